"""The two duel guides: "Ludo rules for two players, and when to capture or
stay safe" and "How to win at Ludo: strategy for two players".

Every board is a position played through the engine with the duel rules (as on the rules
page), and every piece of advice is a position with a roll in hand where the guide names the
move to play: the page shows what the Hard and Expert bots play there (`games.bots`), and the
tests hold the advice to agree with both.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from django.utils.translation import get_language, gettext_lazy
from django.utils.translation import gettext as _

from games.bots import BOTS
from games.bots.words import Reason
from games.engine import RULESETS, YARD, Move, State, move, roll, setup
from games.match.saying import bot_reason
from games.web.rules_page import (
    Example,
    Frame,
    _play,
    board_config,
    examples,
    narrate,
    position,
)

Y = YARD
DUEL = RULESETS["duel"]


@dataclass
class Advice:
    """A position with a roll in hand, the move the guide advises, and what the bots play."""

    title: str
    text: str
    example: Example
    state: State  # the position with the roll in hand
    advised: Move
    bots: dict[str, str] = field(default_factory=dict)  # level -> the bot's reason, told
    agrees: dict[str, bool] = field(default_factory=dict)  # level -> plays the advised move


@dataclass
class Section:
    title: str
    paragraphs: list[str]
    examples: list[Example] = field(default_factory=list)
    advice: list[Advice] = field(default_factory=list)


@dataclass
class Guide:
    slug: str
    title: str
    lead: str
    sections: list[Section]


def _advice(title: str, text: str, pawns: dict[int, list[int]], face: int, pawn: int) -> Advice:
    """Red (corner 0) to play with `face` in hand; the guide advises pawn `pawn` (1-based)."""
    state, events = roll(setup(DUEL, pawns, to_play=0), face)
    advised = next(m for m in state.legal if m.pawn == pawn - 1)
    after, moved = move(state, advised)
    frames = [
        Frame(
            _("Red rolls %(face)s") % {"face": face},
            position(state, events),
            [narrate(DUEL, e) for e in events],
        ),
        Frame(
            _("Pawn %(pawn)s moves") % {"pawn": pawn},
            position(after, moved),
            [narrate(DUEL, e) for e in moved],
        ),
    ]
    advice = Advice(title, text, Example(title, frames, DUEL), state, advised)
    key = tuple((corner, tuple(at)) for corner, at in sorted(pawns.items()))
    for level in ("hard", "expert"):
        chosen, why = _bot_choice(level, key, face)
        advice.bots[level] = bot_reason(DUEL, why)
        advice.agrees[level] = chosen[:4] == advised[:4]
    return advice


@cache
def _bot_choice(
    level: str, pawns: tuple[tuple[int, tuple[int, ...]], ...], face: int
) -> tuple[Move, dict[str, Any]]:
    """What bot `level` plays with `face` in hand (searched once: the Expert bot looks two
    rolls ahead), and its reason as data, told in each reader's language."""
    state, _events = roll(setup(DUEL, {c: list(at) for c, at in pawns}, to_play=0), face)
    chosen, reason = BOTS[level].choose(state, random.Random(0))
    return chosen, reason.wire() if isinstance(reason, Reason) else {}


def guides() -> dict[str, Guide]:
    """The two guides by slug, in the reader's language."""
    return _guides(get_language())


@cache
def _guides(language: str) -> dict[str, Guide]:
    """The guides told in `language` (the active one), built once per language."""
    return {g.slug: g for g in (_rules_guide(), _strategy_guide())}


def _rules_guide() -> Guide:
    """Ludo rules for two players: the duel rules, and when to capture or stay safe."""
    return Guide(
        "duel-rules",
        _("Ludo rules for two players, and when to capture or stay safe"),
        _(
            "The duel rules played here, head to head from opposite corners, with every board "
            "played through the same engine as the games, and when to capture or keep a pawn safe."
        ),
        [
            Section(
                _("Two players, opposite corners"),
                [
                    _(
                        "Red and Yellow sit in opposite corners, four pawns each, all in the yard. "
                        "Who rolls first is drawn with the match's dice."
                    ),
                    _(
                        "A pawn leaves the yard only on a 6, onto its start square, and a 6 gives "
                        "another roll, so the pawn can move straight away."
                    ),
                ],
                [_play(DUEL, {0: [Y] * 4, 2: [Y] * 4}, [6, "p1", 4, "p1"])],
            ),
            Section(
                _("56 steps home, the last one exact"),
                [
                    _(
                        "From its start square a pawn takes 56 steps home: 50 round the shared "
                        "track, 5 up its own home column and one onto home. The last roll must "
                        "match what is left: a roll that would carry the pawn past home cannot "
                        "move it."
                    ),
                    _("A pawn in its home column, or home, can never be captured."),
                ],
                [
                    _play(DUEL, {0: [53, 20, Y, Y], 2: [Y] * 4}, [5, "p2"]),
                    _play(DUEL, {0: [53, 20, Y, Y], 2: [Y] * 4}, [3, "p1"]),
                ],
            ),
            Section(
                _("Captures, pairs included"),
                [
                    _(
                        "Land on a square where rival pawns stand and every one of them goes back "
                        "to the yard, a pair included: your own pawns never block you and two "
                        "rival pawns do not make a wall."
                    ),
                    _(
                        "A capture gives another roll, and so does a pawn reaching home. Three 6s "
                        "in a row end the turn on the third with no move, but a capture or a pawn "
                        "home starts the count again."
                    ),
                ],
                [_play(DUEL, {0: [14, Y, Y, Y], 2: [46, 46, Y, Y]}, [6, "p1"])],
            ),
            Section(
                _("Safe squares"),
                [
                    _(
                        "The 4 start squares and the 4 stars, 8 in all, are safe: nobody is "
                        "captured there, and both colours may share them."
                    ),
                ],
                [_play(DUEL, {0: [3, Y, Y, Y], 2: [34, Y, Y, Y]}, [5, "p1"])],
            ),
            Section(
                _("When to capture"),
                [
                    _(
                        "Almost always. A capture costs the rival every step that pawn had made "
                        "and a 6 to bring it out again, and gives you another roll. The Hard bot "
                        "takes a capture before anything else (its order: captures, then gets "
                        "home, then lands safe, then comes out of the yard, then runs from a "
                        "rival), and the Expert bot, which looks two rolls ahead, agrees in "
                        "positions like these."
                    ),
                ],
                advice=[
                    _advice(
                        _("Capture rather than race"),
                        _(
                            "Red rolls 6: pawn 1 can capture Yellow on square 18; pawn 2 could "
                            "run on, or a new pawn come out. Capture."
                        ),
                        {0: [12, 30, Y, Y], 2: [44, Y, Y, Y]},
                        6,
                        1,
                    ),
                    _advice(
                        _("Capture before going home"),
                        _(
                            "Red rolls 3: pawn 1 could step home, pawn 2 can capture. The pawn in "
                            "the home column cannot be reached, so it can wait: capture first."
                        ),
                        {0: [53, 15, Y, Y], 2: [44, Y, Y, Y]},
                        3,
                        2,
                    ),
                ],
            ),
            Section(
                _("When to stay safe"),
                [
                    _(
                        "When there is nothing to capture and no pawn to bring home, move a pawn "
                        "that a rival could hit onto a safe square: a star, a start square or the "
                        "home column. The Hard bot does this next; the Expert bot prices every "
                        "pawn by the chance a rival lands on it and agrees."
                    ),
                ],
                advice=[
                    _advice(
                        _("Step onto the star"),
                        _(
                            "Yellow's pawn on square 1 is 3 behind Red's pawn on square 4. Red "
                            "rolls 4: pawn 1 reaches the star on square 8, where it cannot be "
                            "captured."
                        ),
                        {0: [4, 20, Y, Y], 2: [27, Y, Y, Y]},
                        4,
                        1,
                    ),
                ],
            ),
        ],
    )


def _strategy_guide() -> Guide:
    """How to win at Ludo: strategy for two players."""
    return Guide(
        "duel-strategy",
        _("How to win at Ludo: strategy for two players"),
        _(
            "Rules of thumb for the duel, each shown on a position played through the engine, with "
            "the move our Hard and Expert bots make there."
        ),
        [
            Section(
                _("The order that wins"),
                [
                    # The "best pawn" order (games.bots.simple.best_pawn).
                    _(
                        "The Hard bot plays the best pawn every turn: the one that captures, "
                        "then gets home, then lands safe, then comes out of the yard, then runs "
                        "from a rival; failing all of those, the pawn that ends furthest along. "
                        "It is a good order for people too, and the Expert bot, which searches "
                        "two rolls ahead, keeps to it in the positions below."
                    ),
                ],
            ),
            Section(
                _("Bring pawns home"),
                [
                    _(
                        "With nothing to capture, a roll that takes a pawn home is worth taking: "
                        "the pawn is done and the duel gives another roll for it."
                    ),
                ],
                advice=[
                    _advice(
                        _("Home on the exact roll"),
                        _(
                            "Red rolls 3: pawn 1 is exactly 3 from home. Take it home and roll "
                            "again."
                        ),
                        {0: [53, 20, Y, Y], 2: [Y] * 4},
                        3,
                        1,
                    ),
                ],
            ),
            Section(
                _("Get more pawns out"),
                [
                    _(
                        "One pawn on the board uses every roll, but it also takes every risk. "
                        "With a 6 and nothing better to do, bring another pawn out, so the next "
                        "rolls have a choice."
                    ),
                ],
                advice=[
                    _advice(
                        _("A 6: a second pawn out"),
                        _(
                            "Red rolls 6 with one pawn out and nothing to capture: bring pawn 2 "
                            "out of the yard."
                        ),
                        {0: [30, Y, Y, Y], 2: [Y] * 4},
                        6,
                        2,
                    ),
                ],
            ),
            Section(
                _("Run from a rival behind you"),
                [
                    _(
                        "A rival pawn 1 to 6 squares behind one of yours can hit it with its "
                        "next roll. If no safe square is in reach, move the threatened pawn out "
                        "of range rather than another one."
                    ),
                ],
                advice=[
                    _advice(
                        _("Out of range"),
                        _(
                            "Yellow stands 2 squares behind Red's pawn on square 30. Red rolls 5: "
                            "pawn 2 moves 7 squares clear of it."
                        ),
                        {0: [10, 30, Y, Y], 2: [2, Y, Y, Y]},
                        5,
                        2,
                    ),
                ],
            ),
        ],
    )


def page_data(guide: Guide) -> list[dict[str, Any]]:
    """What the guide page draws: each example's board shape and its frames, in page order
    (each example is told its index, ``board_index``)."""
    boards = []
    for section in guide.sections:
        for ex in [*section.examples, *(a.example for a in section.advice)]:
            ex.board_index = len(boards)
            boards.append(
                {
                    "board": board_config(ex.rules or DUEL),
                    "frames": [f.snapshot for f in ex.frames],
                }
            )
    return boards


# ---------------------------------------------------------------------------- a guide per preset

# How to win each preset (issue 30: a guide for each, linked from the home page and the room):
# a few plain tips a newcomer can use in their first game. The rules themselves come from the
# preset's Ruleset (the rules page's table); these are only advice.
PRESET_TIPS: dict[str, list[Any]] = {
    "classic": [
        gettext_lazy("Bring pawns out early: a pawn in the yard waits for a 6 and moves nowhere."),
        gettext_lazy(
            "Capture when you can: every opponent pawn on the square goes back, and you roll again."
        ),
        gettext_lazy(
            "Stop on stars and start squares when a rival is up to six squares behind you."
        ),
        gettext_lazy(
            "Do not race one pawn alone: a spread of pawns gives you a move for every roll."
        ),
    ],
    "family": [
        gettext_lazy(
            "Two of your pawns on one square cannot be captured: keep them together near rivals."
        ),
        gettext_lazy(
            "Only a 6 rolls again, so a capture is worth less than in Classic: go for home."
        ),
        gettext_lazy("There is no clock: take your time, and let the youngest roll first."),
    ],
    "duel": [
        gettext_lazy("Even a pair can be captured: a safe square is the only shelter."),
        gettext_lazy("A capture or a pawn home starts your count of sixes again: use it."),
        gettext_lazy(
            "With one rival, every pawn of theirs behind you is a threat: count the squares."
        ),
    ],
    "mensch": [
        gettext_lazy(
            "No square is safe and a 6 must bring a pawn out: clear your start square first."
        ),
        gettext_lazy("You get three tries for a 6 while no pawn is out: a slow start is normal."),
        gettext_lazy(
            "Two of your pawns never share a square: plan the last steps into the home row."
        ),
    ],
    "quick": [
        gettext_lazy("The first pawn home wins: pick your leader early and run it."),
        gettext_lazy("Keep your second pawn behind the leader's hunters: it can capture them."),
        gettext_lazy("A 1 or a 6 brings a pawn out: a captured pawn is back in play quickly."),
        gettext_lazy(
            "Stars and start squares are safe: rest the leader there when a rival is close."
        ),
    ],
    "party": [
        gettext_lazy("The game goes on until one is left: do not be the last with pawns out."),
        gettext_lazy(
            "Capture by count: bring a second pawn to a square before you land on a pair."
        ),
        gettext_lazy(
            "In Pairs help your partner; with Power, keep a Shield for your leading pawn."
        ),
    ],
}


def preset_guide(name: str) -> dict[str, Any]:
    """What the guide of preset `name` shows: how to play (the preset's rules as the rules
    page reads them), how to win (its end and the tips), its worked examples' boards."""
    return {"name": name, "tips": [str(t) for t in PRESET_TIPS[name]], "examples": examples(name)}
