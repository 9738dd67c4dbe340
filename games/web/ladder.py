"""The bot levels as the level picker shows them: each level's name, how it plays, and its
measured strength from the stored ladder (games/bots/ladder.json, written by
``manage.py bot_tournament --ladder``)."""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

from games import bots

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


def level_text(level: str) -> str:
    """ "Easy — the best pawn 1 turn in 5, else any move; wins 56% against a random mover" """
    bot = bots.BOTS[level]
    text = level.capitalize()
    if bot.about:
        text += f" — {bot.about}"
    row = measured().get(level)
    if row:
        text += f"; wins {row['rate']:.0%} against a random mover"
    return text


def levels() -> list[tuple[str, str]]:
    """(key, text) for every level, in the picker's order: weakest first."""
    return [(level, level_text(level)) for level in bots.BOTS]


def strength(level: str) -> str:
    """ "wins 80%": the level's measured strength, short (empty without a stored figure)."""
    row = measured().get(level)
    return f"wins {row['rate']:.0%}" if row else ""


def choices() -> list[dict[str, str]]:
    """For a picker that lists each level short and describes the chosen one apart: every
    level, weakest first, as key, name ("Medium"), strength ("wins 80%", or empty) and about
    (`level_text`: how it plays and its strength in full)."""
    return [
        {
            "key": level,
            "name": level.capitalize(),
            "strength": strength(level),
            "about": level_text(level),
        }
        for level in bots.BOTS
    ]
