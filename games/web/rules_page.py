"""The rules page: each preset's facts, read from its `Ruleset`, and its worked examples,
played through the engine so that what the page shows is what the server does.

`board_config` and `position` are also what the room, local and replay pages send to
static/js/board.js, which draws a snapshot and keeps no rules of its own.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from games.engine import (
    MARKS,
    RULESETS,
    YARD,
    Event,
    Move,
    Ruleset,
    State,
    as_dict,
    move,
    roll,
    setup,
)
from games.engine.notation import rules_from_name
from games.engine.rules import BONUS_OFFSETS
from games.match import names
from games.match.saying import BONUSES

Y = YARD


def board_config(rules: Ruleset) -> dict[str, Any]:
    """The board's shape: size, quarter, track and home column ends, safe squares, colours."""
    starts = {c * rules.quarter for c in range(4)}
    bonus: dict[int, str] = {}
    if rules.power:
        for q in range(4):
            for offset, kind in BONUS_OFFSETS.items():
                bonus[q * rules.quarter + offset] = kind
    return {
        "size": rules.track_len,
        "quarter": rules.quarter,
        "last_track": rules.last_track,
        "goal": rules.goal,
        "finish_from": rules.finish_from,
        "win_pawns": rules.win_pawns,  # how many pawns home finish a seat (quick: one)
        # Turns the clock may play for a seat in a row before it is out (None: never out).
        "timeouts_to_forfeit": rules.timeouts_to_forfeit,
        "safe": sorted(rules.safe),
        "stars": sorted(rules.safe - starts),
        "colours": list(rules.colours),
        "marks": [MARKS[c] for c in rules.colours],
        "bonus": bonus,
    }


def move_dict(m: Move) -> dict[str, Any]:
    """A legal move in the snapshot's shape."""
    return {
        "pawn": m.pawn,
        "corner": m.corner,
        "from": m.frm,
        "to": m.to,
        "captures": [list(c) for c in m.captures],
        "safe": m.safe,
        "home": m.home,
    }


def position(state: State, events: Sequence[Event] = ()) -> dict[str, Any]:
    """A snapshot-like dict of `state`: pawns, whose turn, the die, the legal moves."""
    return {
        "pawns": [list(row) for row in state.pawns],
        "to_play": state.to_play,
        "phase": state.phase,
        "die": state.die,
        "sixes": state.sixes,
        "placings": list(state.placings),
        "legal": [move_dict(m) for m in state.legal],
        "events": [as_dict(e) for e in events],
    }


# ---------------------------------------------------------------------------- words


def _name(rules: Ruleset, corner: int) -> str:
    return names.colour(rules.colours[corner])


REASONS = {
    "six": gettext_lazy("a six"),
    "capture": gettext_lazy("a capture"),
    "home": gettext_lazy("a pawn home"),
    "plus": gettext_lazy("the +1 square"),
    "try": gettext_lazy("another try for a six"),
    "unusable_six": gettext_lazy("a six no pawn could use"),
}

# The engine says why a roll cannot be used in English (it is pure); the page says it again
# in the reader's language from the same facts.
_NOT_OUT = re.compile(r"^no pawn is out, and only a ([\d or]+) brings one out")


def no_move_reason(reason: str, die: int) -> str:
    found = _NOT_OUT.match(reason)
    if found:
        faces = found.group(1).strip()
        if faces == "6":
            return _("no pawn is out, and only a 6 brings one out of the yard")
        return _("no pawn is out, and only a %(faces)s brings one out of the yard") % {
            "faces": faces.replace(" or ", _(" or "))
        }
    return _("no pawn can move %(die)s") % {"die": die}


def narrate(rules: Ruleset, event: Event) -> str:
    """One event in words, as the history and the rules page say it, in the reader's
    language."""
    d = as_dict(event)
    who = _name(rules, d["corner"]) if "corner" in d else ""
    kind = d["kind"]
    if kind == "rolled":
        if d["bonus"] == "double":
            return _("%(who)s rolls %(face)s (Double roll: moves %(value)s)") % {
                "who": who,
                "face": d["face"],
                "value": d["value"],
            }
        return _("%(who)s rolls %(face)s") % {"who": who, "face": d["face"]}
    if kind == "no_move":
        return _("%(who)s cannot move: %(reason)s") % {
            "who": who,
            "reason": no_move_reason(d["reason"], d["value"]),
        }
    if kind == "six_forfeited":
        return _("%(who)s's six number %(sixes)s in a row is forfeited: no move") % {
            "who": who,
            "sixes": d["sixes"],
        }
    if kind == "released":
        return _("%(who)s brings pawn %(pawn)s out onto the start square") % {
            "who": who,
            "pawn": d["pawn"] + 1,
        }
    if kind == "moved":
        to = d["to"]
        if to > rules.last_track:
            return _("%(who)s moves pawn %(pawn)s up the home column") % {
                "who": who,
                "pawn": d["pawn"] + 1,
            }
        return _("%(who)s moves pawn %(pawn)s to square %(square)s") % {
            "who": who,
            "pawn": d["pawn"] + 1,
            "square": d["square"],
        }
    if kind == "captured":
        return _("%(by)s captures %(who)s's pawn %(pawn)s: back to the yard") % {
            "by": _name(rules, d["by"]),
            "who": who,
            "pawn": d["pawn"] + 1,
        }
    if kind == "home":
        return _("%(who)s's pawn %(pawn)s reaches home") % {"who": who, "pawn": d["pawn"] + 1}
    if kind == "finished":
        if rules.win_pawns < 4:  # quick: the first pawn home finishes
            return _("%(who)s is home first: place %(place)s") % {"who": who, "place": d["place"]}
        return _("%(who)s has every pawn home: place %(place)s") % {
            "who": who,
            "place": d["place"],
        }
    if kind == "extra_roll":
        reasons = _(" and ").join(str(REASONS.get(r, r)) for r in d["reasons"])
        return _("%(who)s rolls again for %(reasons)s") % {"who": who, "reasons": reasons}
    if kind == "turn_passed":
        return _("%(who)s to play") % {"who": _name(rules, d["to"])}
    if kind == "won":
        return _("%(who)s wins") % {"who": who}
    if kind == "bonus_picked":
        return _("%(who)s picks up a %(bonus)s bonus") % {
            "who": who,
            "bonus": str(BONUSES.get(d["bonus"], d["bonus"])),
        }
    if kind == "shielded":
        return _("%(who)s shields a pawn") % {"who": who}
    if kind == "resigned":
        return _("%(who)s is out (%(reason)s)") % {
            "who": who,
            "reason": names.out_reason(d["reason"]),
        }
    return str(kind)


# ---------------------------------------------------------------------------- examples


@dataclass
class Frame:
    """One small board: a position and what happened to reach it."""

    title: str
    snapshot: dict[str, Any]
    words: list[str] = field(default_factory=list)


@dataclass
class Example:
    title: str
    frames: list[Frame]
    rules: Ruleset | None = None
    board_index: int = 0  # its place among the boards of a page that draws several


def _play(
    rules: Ruleset, pawns: dict[int, list[int]], steps: Sequence[int | str], to_play: int = 0
) -> Example:
    """Set up `pawns`, then for each step roll a face (int) or play the move of pawn "pN"
    (1-based); one frame for the set-up position and one after each step."""
    state = setup(rules, pawns, to_play=to_play)
    frames = [Frame(_("The position"), position(state))]
    for step in steps:
        if isinstance(step, int):
            state, events = roll(state, step)
            title = _("Roll %(face)s") % {"face": step}
        else:
            pawn = int(step[1:]) - 1
            chosen = next(m for m in state.legal if m.pawn == pawn)
            state, events = move(state, chosen)
            title = _("Pawn %(pawn)s moves") % {"pawn": pawn + 1}
        frames.append(Frame(title, position(state, events), [narrate(rules, e) for e in events]))
    return Example("", frames, rules)


def _example(title: str, ex: Example) -> Example:
    ex.title = title
    return ex


def _classic_examples(r: Ruleset) -> list[Example]:
    return [
        _example(_("A six brings a pawn out"), _play(r, {0: [Y] * 4, 2: [Y] * 4}, [6, "p1"])),
        _example(
            _("Landing on a square sends every opponent pawn there home"),
            _play(r, {0: [15, Y, Y, Y], 1: [7, 7, Y, Y]}, [5, "p1"]),
        ),
        _example(
            _("Stars and start squares are safe"),
            _play(r, {0: [3, Y, Y, Y], 1: [47, Y, Y, Y]}, [5, "p1"]),
        ),
        _example(
            _("A pawn 3 from home: a 5 cannot move it"),
            _play(r, {0: [53, Y, Y, Y], 2: [Y] * 4}, [5]),
        ),
        _example(_("The 3 lands it home"), _play(r, {0: [53, Y, Y, Y], 2: [Y] * 4}, [3, "p1"])),
        _example(
            _("6, 6, 6: the third six is forfeited"),
            _play(r, {0: [10, Y, Y, Y], 2: [Y] * 4}, [6, "p1", 6, "p1", 6]),
        ),
    ]


def _family_examples(r: Ruleset) -> list[Example]:
    return [
        _example(
            _("Roll 5 with all four pawns in the yard"), _play(r, {0: [Y] * 4, 1: [Y] * 4}, [5])
        ),
        _example(
            _("Red lands on square 20, on Green's lone pawn"),
            _play(r, {0: [15, Y, Y, Y], 1: [7, Y, Y, Y]}, [5, "p1"]),
        ),
        _example(
            _("Two Green pawns on square 20: no capture, no block"),
            _play(r, {0: [15, Y, Y, Y], 1: [7, 7, Y, Y]}, [5, "p1"]),
        ),
        _example(
            _("On a safe square both stay"),
            _play(r, {0: [16, Y, Y, Y], 1: [8, Y, Y, Y]}, [5, "p1"]),
        ),
    ]


def _duel_examples(r: Ruleset) -> list[Example]:
    return [
        _example(
            _("From the start square, 56 steps home: the last roll must match"),
            _play(r, {0: [50, 20, Y, Y], 2: [Y] * 4}, [6, "p1"]),
        ),
        _example(
            _("A pair is captured too, and the capture resets the sixes"),
            _play(r, {0: [14, Y, Y, Y], 2: [46, 46, Y, Y]}, [6, "p1"]),
        ),
    ]


def _mensch_examples(r: Ruleset) -> list[Example]:
    return [
        _example(
            _("Three tries for a six when no pawn is out"),
            _play(r, {0: [Y] * 4, 1: [Y] * 4}, [3, 2, 6]),
        ),
        _example(
            _("A six must bring a waiting pawn out"),
            _play(r, {0: [5, Y, Y, Y], 1: [Y] * 4}, [6, "p2"]),
        ),
        _example(
            _("Never onto your own pawn"),
            _play(r, {0: [0, 3, Y, Y], 1: [Y] * 4}, [3]),
        ),
        _example(
            _("Bringing a pawn out captures on the start square"),
            _play(r, {0: [5, Y, Y, Y], 1: [30, Y, Y, Y]}, [6, "p2"]),
        ),
    ]


def _party_examples(r: Ruleset) -> list[Example]:
    return [
        _example(
            _("Landing on one rival pawn sends it home"),
            _play(r, {0: [15, Y, Y, Y], 1: [7, Y, Y, Y]}, [5, "p1"]),
        ),
        _example(
            _("Two rival pawns against one: nobody goes home"),
            _play(r, {0: [15, Y, Y, Y], 1: [7, 7, Y, Y]}, [5, "p1"]),
        ),
        _example(
            _("Pairs: partners (opposite corners) never capture each other"),
            _play(
                rules_from_name("party+pairs"),
                {0: [15, Y, Y, Y], 1: [Y] * 4, 2: [46, Y, Y, Y], 3: [Y] * 4},
                [5, "p1"],
            ),
        ),
        _example(
            _("Power: a pawn that ends on a bonus square adds it to the stock"),
            _play(rules_from_name("party+power"), {0: [0, Y, Y, Y], 1: [Y] * 4}, [2, "p1"]),
        ),
    ]


def _quick_examples(r: Ruleset) -> list[Example]:
    return [
        _example(
            _("Two pawns start on the start square; a 1 brings a third out"),
            _play(r, {0: [0, 0, Y, Y], 2: [0, 0, Y, Y]}, [1, "p3"]),
        ),
        _example(
            _("Landing on a square sends every opponent pawn there to the yard"),
            _play(r, {0: [15, 0, Y, Y], 1: [7, 0, Y, Y]}, [5, "p1"]),
        ),
        _example(
            _("The first pawn home wins; the others are placed by how far they came"),
            _play(
                r,
                {0: [53, 10, Y, Y], 1: [20, 0, Y, Y], 2: [30, 5, Y, Y], 3: [40, 0, Y, Y]},
                [3, "p1"],
            ),
        ),
    ]


_EXAMPLES = {
    "classic": _classic_examples,
    "quick": _quick_examples,
    "family": _family_examples,
    "duel": _duel_examples,
    "mensch": _mensch_examples,
    "party": _party_examples,
}


def examples(name: str) -> list[Example]:
    """The worked examples of preset `name` (docs/rules.md), played on the engine."""
    return _EXAMPLES[name](RULESETS[name])


@dataclass
class Basic:
    """One of the rules page's first six points (issue 30: a newcomer reads them in two
    minutes): a title, a sentence, and one small board played on the engine."""

    key: str
    title: str
    text: str
    example: Example
    frame: int = -1  # the frame the small board shows


def basics() -> list[Basic]:
    """The goal, a turn, six, capture, safe squares and home, on classic's board."""
    r = RULESETS["classic"]
    return [
        Basic(
            "goal",
            _("The goal"),
            _(
                "Take your four pawns from your yard once round the board and up your own "
                "coloured column to home in the middle. The first with every pawn home wins."
            ),
            _play(r, {0: [56, 30, 12, Y], 1: [Y] * 4, 2: [5, Y, Y, Y], 3: [20, Y, Y, Y]}, []),
        ),
        Basic(
            "turn",
            _("A turn"),
            _(
                "Roll the die, then move one pawn that many squares. The pawns that can move "
                "are lit and their landing squares ringed: tap one."
            ),
            _play(r, {0: [10, 20, Y, Y], 2: [Y] * 4}, [4]),
        ),
        Basic(
            "six",
            _("Six"),
            _(
                "A 6 brings a pawn out of the yard onto its start square, and rolls again. "
                "The third 6 in a row is lost."
            ),
            _play(r, {0: [Y] * 4, 2: [Y] * 4}, [6, "p1"]),
        ),
        Basic(
            "capture",
            _("Capture"),
            _(
                "Land on an opponent's pawn and it goes back to its yard, to wait for a 6 "
                "again; you roll again."
            ),
            _play(r, {0: [15, Y, Y, Y], 1: [7, Y, Y, Y]}, [5, "p1"]),
        ),
        Basic(
            "safe",
            _("Safe squares"),
            _("The stars and the start squares are safe: nobody is captured there."),
            _play(r, {0: [3, Y, Y, Y], 1: [47, Y, Y, Y]}, [5, "p1"]),
        ),
        Basic(
            "home",
            _("Home"),
            _(
                "A pawn that has gone round turns up its own column. Only the exact roll takes "
                "it home: a bigger one cannot move it."
            ),
            _play(r, {0: [53, Y, Y, Y], 2: [Y] * 4}, [3, "p1"]),
        ),
    ]
