"""The two duel guides seed 004 links to: "Ludo rules for two players, and when to capture or
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

from django.utils.translation import gettext_lazy as _l

from games.bots import BOTS
from games.engine import RULESETS, YARD, Move, State, move, roll, setup
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
# Seed 004's "best pawn", the Hard bot's order of preference (games.bots.simple.best_pawn).
HARD_ORDER = (
    "captures, then gets home, then lands safe, then comes out of the yard, then runs from a rival"
)


@dataclass
class Advice:
    """A position with a roll in hand, the move the guide advises, and what the bots play."""

    title: str
    text: str
    example: Example
    state: State  # the position with the roll in hand
    advised: Move
    bots: dict[str, str] = field(default_factory=dict)  # level -> the bot's reason
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
        Frame(f"Red rolls {face}", position(state, events), [narrate(DUEL, e) for e in events]),
        Frame(f"Pawn {pawn} moves", position(after, moved), [narrate(DUEL, e) for e in moved]),
    ]
    advice = Advice(title, text, Example(title, frames, DUEL), state, advised)
    for level in ("hard", "expert"):
        chosen, reason = BOTS[level].choose(state, random.Random(0))
        advice.bots[level] = reason
        advice.agrees[level] = chosen[:4] == advised[:4]
    return advice


@cache
def guides() -> dict[str, Guide]:
    """The two guides by slug (built once: the Expert bot searches each position)."""
    return {g.slug: g for g in (_rules_guide(), _strategy_guide())}


def _rules_guide() -> Guide:
    """Ludo rules for two players: the duel rules, and when to capture or stay safe."""
    return Guide(
        "duel-rules",
        "Ludo rules for two players, and when to capture or stay safe",
        "The duel rules played here, head to head from opposite corners, with every board "
        "played through the same engine as the games, and when to capture or keep a pawn safe.",
        [
            Section(
                "Two players, opposite corners",
                [
                    "Red and Yellow sit in opposite corners, four pawns each, all in the yard. "
                    "Who rolls first is drawn with the match's dice.",
                    "A pawn leaves the yard only on a 6, onto its start square, and a 6 gives "
                    "another roll, so the pawn can move straight away.",
                ],
                [_play(DUEL, {0: [Y] * 4, 2: [Y] * 4}, [6, "p1", 4, "p1"])],
            ),
            Section(
                "56 steps home, the last one exact",
                [
                    "From its start square a pawn takes 56 steps home: 50 round the shared "
                    "track, 5 up its own home column and one onto home. The last roll must "
                    "match what is left: a roll that would carry the pawn past home cannot "
                    "move it.",
                    "A pawn in its home column, or home, can never be captured.",
                ],
                [
                    _play(DUEL, {0: [53, 20, Y, Y], 2: [Y] * 4}, [5, "p2"]),
                    _play(DUEL, {0: [53, 20, Y, Y], 2: [Y] * 4}, [3, "p1"]),
                ],
            ),
            Section(
                "Captures, pairs included",
                [
                    "Land on a square where rival pawns stand and every one of them goes back "
                    "to the yard, a pair included: your own pawns never block you and two "
                    "rival pawns do not make a wall.",
                    "A capture gives another roll, and so does a pawn reaching home. Three 6s "
                    "in a row end the turn on the third with no move, but a capture or a pawn "
                    "home starts the count again.",
                ],
                [_play(DUEL, {0: [14, Y, Y, Y], 2: [46, 46, Y, Y]}, [6, "p1"])],
            ),
            Section(
                "Safe squares",
                [
                    "The 4 start squares and the 4 stars, 8 in all, are safe: nobody is "
                    "captured there, and both colours may share them.",
                ],
                [_play(DUEL, {0: [3, Y, Y, Y], 2: [34, Y, Y, Y]}, [5, "p1"])],
            ),
            Section(
                "When to capture",
                [
                    "Almost always. A capture costs the rival every step that pawn had made "
                    "and a 6 to bring it out again, and gives you another roll. The Hard bot "
                    f"takes a capture before anything else (its order: {HARD_ORDER}), and the "
                    "Expert bot, which looks two rolls ahead, agrees in positions like these.",
                ],
                advice=[
                    _advice(
                        "Capture rather than race",
                        "Red rolls 6: pawn 1 can capture Yellow on square 18; pawn 2 could "
                        "run on, or a new pawn come out. Capture.",
                        {0: [12, 30, Y, Y], 2: [44, Y, Y, Y]},
                        6,
                        1,
                    ),
                    _advice(
                        "Capture before going home",
                        "Red rolls 3: pawn 1 could step home, pawn 2 can capture. The pawn in "
                        "the home column cannot be reached, so it can wait: capture first.",
                        {0: [53, 15, Y, Y], 2: [44, Y, Y, Y]},
                        3,
                        2,
                    ),
                ],
            ),
            Section(
                "When to stay safe",
                [
                    "When there is nothing to capture and no pawn to bring home, move a pawn "
                    "that a rival could hit onto a safe square: a star, a start square or the "
                    "home column. The Hard bot does this next; the Expert bot prices every "
                    "pawn by the chance a rival lands on it and agrees.",
                ],
                advice=[
                    _advice(
                        "Step onto the star",
                        "Yellow's pawn on square 1 is 3 behind Red's pawn on square 4. Red "
                        "rolls 4: pawn 1 reaches the star on square 8, where it cannot be "
                        "captured.",
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
        "How to win at Ludo: strategy for two players",
        "Rules of thumb for the duel, each shown on a position played through the engine, with "
        "the move our Hard and Expert bots make there.",
        [
            Section(
                "The order that wins",
                [
                    f"The Hard bot plays the best pawn every turn: the one that {HARD_ORDER}; "
                    "failing all of those, the pawn that ends furthest along. It is a good "
                    "order for people too, and the Expert bot, which searches two rolls "
                    "ahead, keeps to it in the positions below.",
                ],
            ),
            Section(
                "Bring pawns home",
                [
                    "With nothing to capture, a roll that takes a pawn home is worth taking: "
                    "the pawn is done and the duel gives another roll for it.",
                ],
                advice=[
                    _advice(
                        "Home on the exact roll",
                        "Red rolls 3: pawn 1 is exactly 3 from home. Take it home and roll again.",
                        {0: [53, 20, Y, Y], 2: [Y] * 4},
                        3,
                        1,
                    ),
                ],
            ),
            Section(
                "Get more pawns out",
                [
                    "One pawn on the board uses every roll, but it also takes every risk. "
                    "With a 6 and nothing better to do, bring another pawn out, so the next "
                    "rolls have a choice.",
                ],
                advice=[
                    _advice(
                        "A 6: a second pawn out",
                        "Red rolls 6 with one pawn out and nothing to capture: bring pawn 2 "
                        "out of the yard.",
                        {0: [30, Y, Y, Y], 2: [Y] * 4},
                        6,
                        2,
                    ),
                ],
            ),
            Section(
                "Run from a rival behind you",
                [
                    "A rival pawn 1 to 6 squares behind one of yours can hit it with its next "
                    "roll. If no safe square is in reach, move the threatened pawn out of range "
                    "rather than another one.",
                ],
                advice=[
                    _advice(
                        "Out of range",
                        "Yellow stands 2 squares behind Red's pawn on square 30. Red rolls 5: "
                        "pawn 2 moves 7 squares clear of it.",
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
        _l("Bring pawns out early: a pawn in the yard waits for a 6 and moves nowhere."),
        _l(
            "Capture when you can: every opponent pawn on the square goes back, and you roll again."
        ),
        _l("Stop on stars and start squares when a rival is up to six squares behind you."),
        _l("Do not race one pawn alone: a spread of pawns gives you a move for every roll."),
    ],
    "family": [
        _l("Two of your pawns on one square cannot be captured: keep them together near rivals."),
        _l("Only a 6 rolls again, so a capture is worth less than in Classic: go for home."),
        _l("There is no clock: take your time, and let the youngest roll first."),
    ],
    "duel": [
        _l("Even a pair can be captured: a safe square is the only shelter."),
        _l("A capture or a pawn home starts your count of sixes again: use it."),
        _l("With one rival, every pawn of theirs behind you is a threat: count the squares."),
    ],
    "mensch": [
        _l("No square is safe and a 6 must bring a pawn out: clear your start square first."),
        _l("You get three tries for a 6 while no pawn is out: a slow start is normal."),
        _l("Two of your pawns never share a square: plan the last steps into the home row."),
    ],
    "quick": [
        _l("The first pawn home wins: pick your leader early and run it."),
        _l("Keep your second pawn behind the leader's hunters: it can capture them."),
        _l("A 1 or a 6 brings a pawn out: a captured pawn is back in play quickly."),
        _l("Stars and start squares are safe: rest the leader there when a rival is close."),
    ],
    "party": [
        _l("The game goes on until one is left: do not be the last with pawns out."),
        _l("Capture by count: bring a second pawn to a square before you land on a pair."),
        _l("In Pairs help your partner; with Power, keep a Shield for your leading pawn."),
    ],
}


def preset_guide(name: str) -> dict[str, Any]:
    """What the guide of preset `name` shows: how to play (the preset's rules as the rules
    page reads them), how to win (its end and the tips), its worked examples' boards."""
    return {"name": name, "tips": [str(t) for t in PRESET_TIPS[name]], "examples": examples(name)}
