"""Regenerate tests/engine/positions.txt, the counted legal-move table (like chess perft files).

    .venv/bin/python -m tests.engine.make_positions

Each line is ``<notation> ; <roll> ; <result>``:

- ``<roll>`` is the face, then a Power bonus used on the roll if any (``4 double``);
- ``<result>`` lists every legal move as ``corner.pawn:from>to``, with ``xC.P`` for each pawn it
  captures and ``+kind`` when it ends on a Power bonus square (``0.1:17>20x1.0``; ``y`` is the
  yard and ``h`` the goal, as in the notation), or says why nothing moves: ``no-move:again``
  (the same player rolls again), ``no-move:pass`` (the turn passes) or ``six-forfeited``.

The lines are the hand-checked cases below (their expected results written by hand from
docs/rules.md), hand-picked edge cases, and positions sampled from random games of every preset,
option and player count with fixed seeds. Every line must agree with both the engine and the
independent reading of the rules in `tests.engine.reference`; the script refuses to write a
table where they differ.
"""

from __future__ import annotations

import random
from pathlib import Path

from games.engine import (
    STORED_BONUSES,
    YARD,
    ExtraRoll,
    Move,
    SixForfeited,
    State,
    dumps,
    legal_moves,
    loads,
    move,
    new_game,
    roll,
)
from tests.engine import reference

TABLE = Path(__file__).with_name("positions.txt")

# Verified by hand against docs/rules.md: (position, roll, expected result, why it is right).
CHECKED: list[tuple[str, str, str, str]] = [
    (
        "classic to=0 phase=roll pawns=53,y,y,y/-/y,y,y,y/-",
        "5",
        "no-move:pass",
        "exact finish: 53+5 passes home (56); the yard needs a 6; not a six, so the turn passes",
    ),
    (
        "classic to=0 phase=roll pawns=53,y,y,y/-/y,y,y,y/-",
        "3",
        "0.0:53>h",
        "a pawn 3 from home lands home with a 3 (docs/rules.md worked example)",
    ),
    (
        "family to=0 phase=roll pawns=y,y,y,y/-/y,y,y,y/-",
        "5",
        "no-move:pass",
        "family: a 5 with all four in the yard: nothing moves, the turn passes (worked example)",
    ),
    (
        "family to=0 phase=roll pawns=17,y,y,y/7,y,y,y/y,y,y,y/-",
        "3",
        "0.0:17>20x1.0",
        "family: red 17+3 lands on square 20; green's lone pawn at progress 7 is on "
        "13+7=20 and goes to its yard (worked example)",
    ),
    (
        "family to=0 phase=roll pawns=17,y,y,y/7,7,y,y/y,y,y,y/-",
        "3",
        "0.0:17>20",
        "family: two green pawns on square 20 are not captured, all three share it",
    ),
    (
        "family to=0 phase=roll pawns=18,y,y,y/8,y,y,y/y,y,y,y/-",
        "3",
        "0.0:18>21",
        "square 21 is green's star (13+8), a safe square: green's pawn stays",
    ),
    (
        "classic to=0 phase=roll pawns=17,y,y,y/7,7,y,y/y,y,y,y/-",
        "3",
        "0.0:17>20x1.0x1.1",
        "classic captures all opponent pawns on the square, a pair included",
    ),
    (
        "classic to=0 phase=roll pawns=3,y,y,y/45,y,y,y/y,y,y,y/-",
        "3",
        "0.0:3>6x1.0",
        "the track wraps: green's progress 45 is square (13+45)%52=6, where red lands",
    ),
    (
        "classic to=0 phase=roll pawns=9,y,y,y/51,y,y,y/y,y,y,y/-",
        "3",
        "0.0:9>12",
        "green's pawn at 51 is in its home column (past last_track 50), never captured, even "
        "though 13+51 would wrap to red's square 12",
    ),
    (
        "classic to=0 phase=roll sixes=2 pawns=10,y,y,y/-/y,y,y,y/-",
        "6",
        "six-forfeited",
        "6, 6, 6: the third six in a row is forfeited, nothing moves (worked example)",
    ),
    (
        "classic to=0 phase=roll pawns=52,h,h,h/-/y,y,y,y/-",
        "6",
        "no-move:again",
        "classic: a 6 no pawn can use (52+6 passes 56, no pawn waits) rolls again",
    ),
    (
        "party to=0 phase=roll pawns=52,h,h,h/-/y,y,y,y/-",
        "6",
        "no-move:pass",
        "party: a 6 no pawn can use is lost with no roll again; a pawn is out, so no tries",
    ),
    (
        "party to=0 phase=roll pawns=y,y,y,h/-/y,y,y,y/-",
        "4",
        "no-move:again",
        "party: all in base or middle gives three tries for a 6; this was the first",
    ),
    (
        "party to=0 phase=roll tries=2 pawns=y,y,y,h/-/y,y,y,y/-",
        "4",
        "no-move:pass",
        "party: the third try without a 6 ends the turn",
    ),
    (
        "mensch to=0 phase=roll pawns=y,y,42,h/-/y,y,y,y/-",
        "5",
        "no-move:again",
        "mensch: 42 cannot move (43 is its own pawn, 44+ is off the row), so no pawn is out: "
        "three tries for a 6",
    ),
    (
        "mensch to=0 phase=roll pawns=y,y,41,h/-/y,y,y,y/-",
        "5",
        "no-move:pass",
        "mensch: 41 can still move 1 to 42, so a pawn is out and one roll only",
    ),
    (
        "mensch to=0 phase=roll pawns=0,15,y,y/-/y,y,y,y/-",
        "3",
        "0.0:0>3",
        "mensch: pawns wait, so the start square is cleared first: only the pawn on 0 moves",
    ),
    (
        "mensch to=0 phase=roll pawns=0,15,y,y/-/y,y,y,y/-",
        "6",
        "0.0:0>6",
        "mensch: with a 6 the start is still cleared first; no pawn can come out onto it",
    ),
    (
        "mensch to=0 phase=roll pawns=0,3,y,y/-/y,y,y,y/-",
        "3",
        "0.1:3>6",
        "mensch: the pawn on the start cannot land on its own pawn at 3, so the other moves",
    ),
    (
        "mensch to=0 phase=roll pawns=5,y,y,y/-/y,y,y,y/-",
        "6",
        "0.1:y>0 0.2:y>0 0.3:y>0",
        "mensch: a 6 with a waiting pawn and a free start must bring a pawn out",
    ),
    (
        "mensch+optional_bring_out to=0 phase=roll pawns=5,y,y,y/-/y,y,y,y/-",
        "6",
        "0.0:5>11 0.1:y>0 0.2:y>0 0.3:y>0",
        "optional bring-out: the 6 may also move the pawn on the track",
    ),
    (
        "mensch to=0 phase=roll pawns=5,y,y,y/-/20,y,y,y/-",
        "6",
        "0.1:y>0x2.0 0.2:y>0x2.0 0.3:y>0x2.0",
        "mensch: green's pawn at 20 stands on red's start (20+20)%40=0; bringing out captures",
    ),
    (
        "mensch+compulsory_capture to=0 phase=roll pawns=5,12,y,y/-/28,y,y,y/-",
        "3",
        "0.0:5>8x2.0",
        "compulsory capture: 5+3=8 holds green's pawn ((20+28)%40=8), so 12>15 is not allowed",
    ),
    (
        "mensch+compulsory_capture to=0 phase=roll pawns=2,y,y,y/-/28,y,y,y/-",
        "6",
        "0.1:y>0 0.2:y>0 0.3:y>0",
        "compulsory capture yields to bringing out: the 6 must bring a pawn out, not capture",
    ),
    (
        "mensch+no_jump_home_column to=0 phase=roll pawns=40,42,y,y/-/y,y,y,y/-",
        "3",
        "no-move:pass",
        "no jumping in the home row: 40>43 would pass 42; 42+3 is off the row; 40 can still "
        "move 1, so a pawn is out and the turn passes",
    ),
    (
        "mensch to=0 phase=roll pawns=40,42,y,y/-/y,y,y,y/-",
        "3",
        "0.0:40>h",
        "mensch without the house rule: a pawn may jump inside the home row to 43 (the goal)",
    ),
    (
        "mensch to=0 phase=roll pawns=5,8,y,y/-/y,y,y,y/-",
        "3",
        "0.1:8>11",
        "mensch: a pawn may not land on its own pawn (5+3=8)",
    ),
    (
        "party to=0 phase=roll pawns=17,20,y,y/7,7,y,y/y,y,y,y/-",
        "3",
        "0.0:17>20x1.0x1.1 0.1:20>23",
        "party count: landing makes two red on 20 against two green: no more than the mover, "
        "so both go home",
    ),
    (
        "party to=0 phase=roll pawns=17,y,y,y/7,7,y,y/y,y,y,y/-",
        "3",
        "0.0:17>20",
        "party count: one red against two green: fewer, nobody goes home",
    ),
    (
        "party+pairs to=0 phase=roll pawns=17,y,y,y/7,7,y,y/46,y,y,y/y,y,y,y",
        "3",
        "0.0:17>20x1.0x1.1",
        "pairs: red plus partner yellow on 20 ((26+46)%52=20) count two against green's two; "
        "the partner is never captured",
    ),
    (
        "party+pairs to=0 phase=roll pawns=17,y,y,y/7,y,y,y/y,y,y,y/33,y,y,y",
        "3",
        "0.0:17>20",
        "pairs: green (13+7) and blue ((39+33)%52=20) count together, two against one: no capture",
    ),
    (
        "party+pairs to=0 phase=roll placings=0 pawns=h,h,h,h/y,y,y,y/10,y,y,y/y,y,y,y",
        "6",
        "2.0:10>16 2.1:y>0 2.2:y>0 2.3:y>0",
        "pairs: red has all four home, so red's roll moves partner yellow's pawns",
    ),
    (
        "party+power to=0 phase=roll pawns=0,3,y,y/-/y,y,y,y/-",
        "2",
        "0.0:0>2+double 0.1:3>5+control",
        "power: bonus squares lie 2 (double) and 5 (control) past each start",
    ),
    (
        "party+power to=0 phase=roll picked=5 pawns=0,3,y,y/-/y,y,y,y/-",
        "2",
        "0.0:0>2+double 0.1:3>5",
        "power: a bonus picked this turn is not there to pick again",
    ),
    (
        "party+power to=0 phase=roll stock=100/000/000/000 pawns=3,y,y,y/-/y,y,y,y/-",
        "3 double",
        "0.0:3>9",
        "double roll: 3 moves 6, but it is not a six, so no pawn comes out",
    ),
    (
        "party+power to=0 phase=roll stock=010/000/000/000 pawns=3,y,y,y/-/y,y,y,y/-",
        "6 control",
        "0.0:3>9 0.1:y>0 0.2:y>0 0.3:y>0",
        "dice control: a chosen 6 is a normal six and brings a pawn out",
    ),
    (
        "party+power to=0 phase=roll shields=110 pawns=17,y,y,y/7,y,y,y/y,y,y,y/-",
        "3",
        "0.0:17>20",
        "shield: green's shielded pawn on 20 cannot be sent home",
    ),
    # Lines first drawn from random games, then checked square by square.
    (
        "mensch to=1 phase=roll sixes=1 pawns=y,y,h,8/5,33,6,15/y,y,y,31/10,y,14,y",
        "5",
        "1.0:5>10 1.1:33>38x0.3 1.2:6>11 1.3:15>20",
        "blue (start 10) waits with no pawn, so no compulsion; 33+5=38 is square (10+38)%40=8 "
        "where red's 8 stands; 10, 11 and 20 land on squares 20, 21, 30, all empty",
    ),
    (
        "mensch to=1 phase=roll tries=2 pawns=h,37,25,41/41,h,42,y/y,42,28,y/-",
        "6",
        "1.3:y>0",
        "blue's 41, 42, 43 cannot move (own pawns or off the row): a 6 must bring the waiting "
        "pawn out onto square 10, which is empty",
    ),
    (
        "classic+compulsory_capture to=3 phase=roll sixes=1 "
        "pawns=h,h,h,42/23,6,h,y/y,6,0,54/0,h,54,21",
        "3",
        "3.0:0>3x0.3",
        "blue (start 39): 0+3 is square 42 where red's 42 stands, not safe; 54+3 passes home; "
        "21+3 (square 11) captures nothing, so compulsory capture leaves only 3.0",
    ),
    (
        "party+pairs+power to=2 phase=roll sixes=1 stock=210/111/002/022 shields=110 "
        "pawns=0,55,15,20/40,y,28,y/h,0,4,4/15,35,22,44",
        "1",
        "2.1:0>1 2.2:4>5x3.3+control 2.3:4>5x3.3+control",
        "yellow (start 26): 4+1 is square 31, a control square (26+5), where blue's lone 44 "
        "((39+44)%52=31) stands: one against one goes home (the shield is on green's pawn); "
        "0+1 is square 27, empty and plain",
    ),
    (
        "family to=2 phase=roll sixes=1 pawns=y,y,h,45/26,15,9,h/h,51,h,0/38,h,55,9",
        "2",
        "2.1:51>53 2.3:0>2x1.1",
        "yellow 0+2 is square 28 holding green's lone 15 (13+15): captured; 51 moves up the "
        "home column; the two home pawns cannot move",
    ),
    (
        "mensch to=0 phase=roll pawns=y,10,y,41/y,10,42,y/y,24,y,6/11,13,39,0",
        "2",
        "0.1:10>12 0.3:41>h",
        "a 2 brings nobody out and red's start is empty, so no compulsion; square 12 is "
        "empty; 41+2 reaches the last home square exactly",
    ),
    (
        "classic to=1 phase=roll pawns=h,37,55,y/16,51,33,7/5,17,h,2/-",
        "5",
        "1.0:16>21 1.1:51>h 1.2:33>38 1.3:7>12",
        "green (start 13): 16+5 is the star 34, safe; 51+5 home exactly; squares 51 and 25 "
        "are empty",
    ),
    (
        "mensch to=2 phase=roll pawns=42,12,39,h/-/h,42,41,36/-",
        "2",
        "2.3:36>38",
        "42+2 is off the home row, 41+2 lands on its own 43, so only 36 moves",
    ),
]

# Hand-picked edge cases whose expected results come from the engine (and the reference).
EDGES: list[tuple[str, str]] = [
    ("classic to=0 phase=roll pawns=53,y,y,y/-/y,y,y,y/-", "2"),
    ("classic to=0 phase=roll pawns=50,y,y,y/-/y,y,y,y/-", "6"),
    ("classic to=0 phase=roll pawns=10,y,y,y/0,y,y,y/y,y,y,y/-", "3"),
    ("classic to=0 phase=roll pawns=34,y,y,y/-/y,y,y,y/50,y,y,y", "3"),
    ("classic+compulsory_capture to=0 phase=roll pawns=17,30,y,y/7,y,y,y/y,y,y,y/-", "3"),
    ("classic to=0 phase=roll sixes=1 pawns=10,y,y,y/-/y,y,y,y/-", "6"),
    ("duel to=0 phase=roll pawns=0,y,y,y/-/y,y,y,y/-", "6"),
    ("duel to=0 phase=roll pawns=17,y,y,y/-/46,46,y,y/-", "3"),
    ("duel to=0 phase=roll sixes=2 pawns=17,y,y,y/-/46,46,y,y/-", "6"),
    ("family to=0 phase=roll pawns=17,y,y,y/7,y,y,y/y,y,y,y/46,y,y,y", "3"),
    ("mensch to=0 phase=roll sixes=5 pawns=5,y,y,y/-/y,y,y,y/-", "6"),
    ("mensch to=0 phase=roll tries=2 pawns=y,y,y,y/-/y,y,y,y/-", "5"),
    ("mensch to=0 phase=roll tries=2 pawns=y,y,y,y/-/y,y,y,y/-", "6"),
    ("mensch to=0 phase=roll pawns=0,6,y,y/-/y,y,y,y/-", "6"),
    ("mensch+optional_bring_out to=0 phase=roll pawns=0,15,y,y/-/y,y,y,y/-", "3"),
    ("mensch+compulsory_capture to=0 phase=roll pawns=0,5,y,y/-/28,y,y,y/-", "3"),
    ("mensch+compulsory_capture to=0 phase=roll pawns=37,40,41,h/-/y,y,y,y/-", "1"),
    ("mensch+no_jump_home_column to=0 phase=roll pawns=38,41,y,y/-/y,y,y,y/-", "4"),
    ("mensch to=0 phase=roll pawns=38,41,y,y/-/y,y,y,y/-", "4"),
    ("party to=0 phase=roll pawns=17,20,y,y/7,y,y,y/y,y,y,y/46,46,y,y", "3"),
    ("party+pairs to=0 phase=roll placings=0 pawns=h,h,h,h/y,y,y,y/53,y,y,y/y,y,y,y", "3"),
    ("party+pairs to=0 phase=roll pawns=17,20,y,y/7,7,y,y/y,y,y,y/33,y,y,y", "3"),
    ("party+power to=0 phase=roll pawns=9,8,y,y/-/y,y,y,y/-", "2"),
    ("party+power to=0 phase=roll pawns=9,8,y,y/-/y,y,y,y/-", "3"),
    ("party+power to=0 phase=roll stock=100/000/000/000 pawns=y,y,y,y/-/y,y,y,y/-", "3 double"),
    ("party+power to=0 phase=roll stock=100/000/000/000 pawns=46,y,y,y/-/y,y,y,y/-", "5 double"),
    ("party+power to=0 phase=roll stock=001/000/000/000 pawns=17,y,y,y/7,y,y,y/-/-", "3 shield"),
    ("party+pairs+power to=0 phase=roll pawns=8,y,y,y/y,y,y,y/y,y,y,y/y,y,y,y", "2"),
    ("party+pairs+power to=2 phase=roll pawns=13,y,y,y/y,y,y,y/10,y,y,y/y,y,y,y", "1"),
    ("party+pairs+power to=0 phase=roll placings=0 pawns=h,h,h,h/y,y,y,y/0,y,y,y/y,y,y,y", "2"),
]


def pawn_text(state: State, p: int) -> str:
    return "y" if p == YARD else "h" if p == state.rules.goal else str(p)


def move_text(state: State, m: Move | reference.Expected) -> str:
    text = f"{m.corner}.{m.pawn}:{pawn_text(state, m.frm)}>{pawn_text(state, m.to)}"
    text += "".join(f"x{c}.{j}" for c, j in sorted(m.captures))
    return text + (f"+{m.bonus}" if m.bonus else "")


def parse_roll(text: str) -> tuple[int, str]:
    face, _, bonus = text.partition(" ")
    return int(face), bonus


def engine_result(state: State, face: int, bonus: str) -> str:
    """What the engine does with the roll: the legal moves, or why nothing moves."""
    after, events = roll(state, face, bonus=bonus)
    if after.phase == "move":
        return " ".join(sorted(move_text(state, m) for m in legal_moves(after)))
    if any(isinstance(e, SixForfeited) for e in events):
        return "six-forfeited"
    if any(isinstance(e, ExtraRoll) for e in events):
        return "no-move:again"
    return "no-move:pass"


def reference_result(state: State, face: int, bonus: str) -> str:
    """What docs/rules.md, read by `tests.engine.reference`, says the roll does."""
    outcome = reference.roll_outcome(state, face, bonus)
    if outcome.kind == "moves":
        return " ".join(sorted(move_text(state, m) for m in outcome.moves))
    return {"forfeit": "six-forfeited", "again": "no-move:again", "pass": "no-move:pass"}[
        outcome.kind
    ]


CASES = [
    ("classic", 2),
    ("classic", 3),
    ("classic", 4),
    ("classic+compulsory_capture", 4),
    ("classic+no_jump_home_column", 2),
    ("family", 2),
    ("family", 3),
    ("family", 4),
    ("duel", 2),
    ("mensch", 2),
    ("mensch", 3),
    ("mensch", 4),
    ("mensch+compulsory_capture", 3),
    ("mensch+optional_bring_out", 3),
    ("mensch+no_jump_home_column", 2),
    ("mensch+compulsory_capture+optional_bring_out+no_jump_home_column", 4),
    ("party", 2),
    ("party", 3),
    ("party", 4),
    ("party+pairs", 4),
    ("party+power", 2),
    ("party+power", 3),
    ("party+power", 4),
    ("party+pairs+power", 4),
]
PER_CASE = 11


def sampled_rolls(name: str, players: int) -> list[tuple[str, str]]:
    """Rolls from random games of one case, chosen to cover captures, bonuses, going home,
    partner moves and every way a roll can fail, then filled up at random."""
    from games.engine import rules_from_name

    rules = rules_from_name(name)
    rng = random.Random(f"{name} {players}")
    candidates: list[tuple[State, int, str, str]] = []
    for _ in range(3):
        state = new_game(rules, players, first=rules.seats_for(players)[0])
        while state.phase != "over":
            bonus = ""
            if rules.power and rng.random() < 0.3:
                k = rng.randrange(3)
                if state.stock[state.to_play][k] and state.bonus in ("", STORED_BONUSES[k]):
                    bonus = STORED_BONUSES[k]
            face = rng.randint(1, 6)
            candidates.append((state, face, bonus, engine_result(state, face, bonus)))
            state, _ = roll(state, face, bonus=bonus)
            if state.phase == "move":
                state, _ = move(state, rng.choice(legal_moves(state)))
    features = [
        lambda r: "x" in r,
        lambda r: "+" in r,
        lambda r: ">h" in r,
        lambda r: r.count(":") >= 3,
        lambda r: r.count(":") == 1,
        lambda r: r == "no-move:again",
        lambda r: r == "no-move:pass",
        lambda r: r == "six-forfeited",
    ]
    chosen: list[tuple[State, int, str, str]] = []
    for feature in features:
        fitting = [c for c in candidates if feature(c[3]) and c not in chosen]
        if fitting:
            chosen.append(rng.choice(fitting))
    if rules.pairs:
        partner = [c for c in candidates if not c[3].startswith(f"{c[0].to_play}.") and ":" in c[3]]
        if partner:
            chosen.append(rng.choice(partner))
    while len(chosen) < PER_CASE:
        pick = rng.choice(candidates)
        if pick not in chosen:
            chosen.append(pick)
    return [(dumps(s), f"{face} {bonus}".strip()) for s, face, bonus, _ in chosen]


def build() -> list[str]:
    """The table's lines, checked against the engine and the reference; raises on a mismatch."""
    problems: list[str] = []
    lines: list[str] = []
    seen: set[tuple[str, str]] = set()

    def add(text: str, roll_text: str, expected: str | None = None) -> None:
        state = loads(text)
        notation = dumps(state)
        if (notation, roll_text) in seen:
            return
        seen.add((notation, roll_text))
        face, bonus = parse_roll(roll_text)
        engine = engine_result(state, face, bonus)
        ref = reference_result(state, face, bonus)
        if expected is not None and expected != engine:
            problems.append(f"{notation} ; {roll_text}: by hand {expected}, engine {engine}")
        if ref != engine:
            problems.append(f"{notation} ; {roll_text}: reference {ref}, engine {engine}")
        lines.append(f"{notation} ; {roll_text} ; {engine}")

    for text, roll_text, expected, _ in CHECKED:
        add(text, roll_text, expected)
    for text, roll_text in EDGES:
        add(text, roll_text)
    for name, players in CASES:
        for text, roll_text in sampled_rolls(name, players):
            add(text, roll_text)
    if problems:
        raise SystemExit("Not written; these lines disagree:\n" + "\n".join(problems))
    return lines


def header(lines: list[str]) -> list[str]:
    doc = (__doc__ or "").strip().splitlines()
    out = ["# Counted legal-move table of the Ludo engine, read by test_positions.py."]
    out += [f"# {row}" if row else "#" for row in doc[1:]]
    out += ["#", "# Checked by hand against docs/rules.md (line numbers in this file):"]
    first = len(out) + len(CHECKED) + 2
    for n, (_, roll_text, expected, why) in enumerate(CHECKED):
        out.append(f"#   line {first + n}: roll {roll_text} -> {expected}: {why}")
    out.append("#")
    return out


def main() -> None:
    lines = build()
    text = "\n".join(header(lines) + lines) + "\n"
    TABLE.write_text(text)
    print(f"{TABLE}: {len(lines)} positions")


if __name__ == "__main__":
    main()
