"""The bot levels as the level picker shows them: each level's name, how it plays, and its
measured strength from the stored ladder (games/bots/ladder.json, written by
``manage.py bot_tournament --ladder``)."""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

from django.utils.formats import number_format
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from games import bots
from games.match import names

LADDER_FILE = Path(bots.__file__).with_name("ladder.json")


@functools.lru_cache(maxsize=1)
def measured() -> dict[str, dict[str, Any]]:
    """Each level's row of the stored ladder (wins, games, rate, low, high) by level name;
    empty when the file is missing or unreadable (the picker then shows no figures)."""
    try:
        data = json.loads(LADDER_FILE.read_text())
        return {row["level"]: row for row in data["levels"]}
    except (OSError, ValueError, KeyError, TypeError):
        return {}


# How each level plays, in the reader's language (the bots' own `about` is the English,
# for the tools; games.bots is pure and translates nothing).
ABOUT = {
    "beginner": _(
        "gentle: moves the pawn furthest behind, misses captures and safe squares half the time"
    ),
    "easy": _("the best pawn 1 turn in 5, else any move"),
    "medium": _("the best pawn 7 turns in 10, else any move"),
    "hard": _("the best pawn every turn: capture, home, safe square, out, away from a rival"),
    "greedy": _("always the obvious move: home, capture, out of the yard, else furthest along"),
    "expert": _("looks ahead over the dice, weighing each pawn's progress against its risk"),
    "random": _("any legal move, at random"),
}


def percent(rate: float) -> str:
    """56%, in the reader's digits and sign ("%56" in Turkish)."""
    return gettext("%(n)s%%") % {"n": number_format(round(rate * 100))}


def level_text(level: str) -> str:
    """ "Easy — the best pawn 1 turn in 5, else any move; wins 56% against a random mover" """
    bot = bots.BOTS[level]
    text = names.level(level)
    about = ABOUT.get(level, bot.about)
    if about:
        text = gettext("%(level)s — %(about)s") % {"level": text, "about": about}
    row = measured().get(level)
    if row:
        text = gettext("%(text)s; wins %(rate)s against a random mover") % {
            "text": text,
            "rate": percent(row["rate"]),
        }
    return text


def levels() -> list[tuple[str, str]]:
    """(key, text) for every level, in the picker's order: weakest first."""
    return [(level, level_text(level)) for level in bots.BOTS]


def strength(level: str) -> str:
    """ "strength 3 of 6": the level's place on the measured ladder, weakest first (empty
    without a stored figure). A bare "wins 80%" beside a level reads as "beats you 80% of the
    time"; the figure is said in full, with what it is against, in `level_text`."""
    if level not in measured() or level not in bots.BOTS:
        return ""
    order = list(bots.BOTS)
    return gettext("strength %(n)s of %(total)s") % {
        "n": number_format(order.index(level) + 1),
        "total": number_format(len(order)),
    }


def choices() -> list[dict[str, str]]:
    """For a picker that lists each level short and describes the chosen one apart: every
    level, weakest first, as key, name ("Medium"), strength ("strength 3 of 6", or empty) and about
    (`level_text`: how it plays and its strength in full)."""
    return [
        {
            "key": level,
            "name": names.level(level),
            "strength": strength(level),
            "about": level_text(level),
        }
        for level in bots.BOTS
    ]
