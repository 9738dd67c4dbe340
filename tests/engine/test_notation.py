"""The notation: a position as one line of text that reads back to the same state."""

import re

import pytest

from games.engine import (
    RULESETS,
    IllegalAction,
    Move,
    State,
    dumps,
    legal_moves,
    loads,
    move,
    new_game,
    resign,
    roll,
    rules_from_name,
    rules_name,
    setup,
)
from tests.engine.positions import Y, play

CLASSIC = RULESETS["classic"]
PAIRS_POWER = RULESETS["party"].with_options(pairs=True, power=True)


def test_a_position_reads_like_the_board():
    state = setup(CLASSIC, {0: [Y, 0, 12, 56], 2: [Y] * 4})
    assert dumps(state) == "classic to=0 phase=roll pawns=y,0,12,h/-/y,y,y,y/-"


def test_the_roll_in_hand_is_written_and_the_legal_moves_follow_from_it():
    state = setup(CLASSIC, {0: [Y, 0, 12, 56], 2: [Y] * 4})
    state, _ = play(state, 6, 1)
    state, _ = roll(state, 6)
    text = dumps(state)
    assert text == "classic to=0 phase=move die=6 face=6 sixes=2 pawns=y,6,12,h/-/y,y,y,y/-"
    assert legal_moves(loads(text)) == legal_moves(state)


def test_mensch_home_is_its_last_home_square():
    state = setup(RULESETS["mensch"], {0: [40, 41, 42, 43], 2: [Y] * 4})
    assert dumps(state).endswith("pawns=40,41,42,h/-/y,y,y,y/-")
    assert dumps(state).startswith("mensch to=0 phase=over placings=02 ")


def test_house_rules_and_party_options_are_joined_to_the_preset_name():
    rules = RULESETS["mensch"].with_options(compulsory_capture=True, no_jump_home_column=True)
    assert rules_name(rules) == "mensch+compulsory_capture+no_jump_home_column"
    assert rules_from_name("mensch+compulsory_capture+no_jump_home_column") == rules
    assert rules_name(PAIRS_POWER) == "party+pairs+power"
    assert rules_from_name("party+pairs+power") is rules_from_name("party+pairs+power")


HAND_MADE = [
    "classic to=2 phase=roll sixes=1 pawns=y,10,51,h/5,y,y,y/20,20,y,y/-",
    "classic to=0 phase=move die=5 face=5 pawns=15,y,y,y/7,y,y,y/y,y,y,y/h,h,h,53",
    "family to=0 phase=move die=5 face=5 pawns=15,y,y,y/7,7,y,y/-/-",
    "family+optional_bring_out to=3 phase=roll pawns=y,y,y,y/-/-/y,y,y,y",
    "duel to=2 phase=move die=6 face=6 sixes=2 pawns=h,h,55,54/-/0,y,y,y/-",
    "duel to=0 phase=over seats=02 placings=20 out=0 pawns=-/-/y,y,y,y/-",
    "mensch to=0 phase=roll tries=2 pawns=y,y,y,y/-/y,y,y,y/-",
    "mensch to=1 phase=move die=6 face=6 sixes=4 pawns=40,42,h,5/0,y,y,y/y,y,y,y/-",
    "mensch+compulsory_capture+optional_bring_out+no_jump_home_column to=0 phase=roll "
    "pawns=0,y,y,y/y,y,y,y/y,y,y,y/y,y,y,y",
    "party to=1 phase=roll placings=0 pawns=h,h,h,h/10,y,y,y/20,y,y,y/-",
    "party+pairs to=0 phase=move die=3 face=3 placings=0 pawns=h,h,h,h/y,y,y,y/10,y,y,y/5,y,y,y",
    "party+power to=0 phase=roll stock=123/300/000/000 picked=2,10 shields=001,100 "
    "bonus=shield pawns=2,10,y,y/y,y,y,y/-/-",
    "party+power to=0 phase=move die=8 face=4 bonus=double pawns=20,y,y,y/y,y,y,y/-/-",
    "party+pairs+power to=3 phase=roll stock=000/001/000/300 pawns=y,y,y,y/1,y,y,y/y,y,y,y/2,y,y,y",
]


@pytest.mark.parametrize("text", HAND_MADE, ids=lambda t: t.split()[0])
def test_hand_made_positions_of_every_preset_read_back_to_the_same_text(text):
    state = loads(text)
    assert isinstance(state, State)
    assert dumps(state) == text
    assert loads(dumps(state)) == state


def test_hand_made_fields_land_where_they_belong():
    state = loads(HAND_MADE[11])
    assert state.rules == RULESETS["party"].with_options(power=True)
    assert state.stock == ((1, 2, 3), (3, 0, 0), (0, 0, 0), (0, 0, 0))
    assert state.picked == {2, 10}
    assert state.shields == {(0, 0, 1), (1, 0, 0)}
    assert state.bonus == "shield" and state.pawns[0] == (2, 10, Y, Y)
    duel = loads(HAND_MADE[5])
    assert (duel.seats, duel.out, duel.placings, duel.phase) == ((0, 2), (0,), (2, 0), "over")


def positions_of_every_preset():
    """States reached by play (rolls, moves, extra rolls, tries, finishing, leaving)."""
    out = []
    for name in ("classic", "family", "duel", "mensch", "party"):
        state = new_game(RULESETS[name], 2)
        for face in (6, 6, 3, 1, 2, 6, 5):
            state, _ = roll(state, face)
            out.append(state)
            if legal_moves(state):
                state, _ = move(state, legal_moves(state)[-1])
                out.append(state)
    rules = PAIRS_POWER
    state = setup(
        rules,
        {0: [56, 56, 56, 53], 1: [1, Y, Y, Y], 2: [Y, 8, Y, Y], 3: [Y] * 4},
        stock={0: (0, 1, 1), 1: (1, 0, 0)},
    )
    state, _ = play(state, 3, 3)  # Red finishes: now moves Yellow's pawns, home gives a roll
    out.append(state)
    state, _ = roll(state, 2, bonus="shield")
    out.append(state)
    state, _ = move(state, legal_moves(state)[0])  # Yellow's pawn onto 36 (a Shield square)
    out.append(state)
    state, _ = resign(state, 1)
    out.append(state)
    return out


@pytest.mark.parametrize("state", positions_of_every_preset(), ids=lambda s: rules_name(s.rules))
def test_positions_from_play_round_trip(state):
    assert loads(dumps(state)) == state


def test_the_repr_of_a_state_evaluates_back_to_it():
    state = setup(RULESETS["party"].with_options(power=True), {0: [5, Y, Y, Y], 1: [Y] * 4})
    state, _ = roll(state, 6)
    assert repr(state).startswith("State.parse('party+power to=0 phase=move")
    assert eval(repr(state), {"State": State}) == state


def test_a_move_repr_evaluates_back():
    m = Move(0, 1, 5, 8)
    assert eval(repr(m), {"Move": Move}) == m


# ---------------------------------------------------------------------------- malformed text

PAWNS = "pawns=y,y,y,y/-/y,y,y,y/-"


@pytest.mark.parametrize(
    ("text", "words"),
    [
        (f"chess to=0 {PAWNS}", "no rule set 'chess'"),
        (f"classic+turbo to=0 {PAWNS}", "Unknown option 'turbo'"),
        (f"classic+pairs to=0 {PAWNS}", "classic has no option pairs"),
        (f"duel+power to=0 {PAWNS}", "duel has no option power"),
        ("classic to=0", "pawns"),
        (f"classic {PAWNS}", "to"),
        ("classic to=0 pawns=y,y,y/-/y,y,y,y/-", "four pawns"),
        ("classic to=0 pawns=y,y,y,y,y/-/y,y,y,y/-", "four pawns"),
        ("classic to=0 pawns=y,y,y,y/-/y,y,y,y", "four corners"),
        ("classic to=0 pawns=y,x,y,y/-/y,y,y,y/-", "'x'"),
        ("classic to=0 pawns=y,57,y,y/-/y,y,y,y/-", "within the board"),
        ("mensch to=0 pawns=y,44,y,y/-/y,y,y,y/-", "within the board"),
        ("classic to=0 pawns=y,-2,y,y/-/y,y,y,y/-", "within the board"),
        (f"classic to=0 phase=jump {PAWNS}", "phase is roll, move or over"),
        (f"classic to=0 phase=move die=5 face=5 {PAWNS}", "no pawn can move"),
        (f"classic to=0 to=1 {PAWNS}", "one key=value per field"),
        (f"classic to {PAWNS}", "one key=value per field"),
        (f"classic to=0 {PAWNS} junk", "Cannot read 'junk'"),
        (f"classic to=0 colour=red {PAWNS}", "Unknown field 'colour'"),
        (f"classic to=red {PAWNS}", "'red'"),
        (f"classic to=0 placings=x {PAWNS}", "Cannot read the position"),
        (f"party+power to=0 stock=1 {PAWNS}", "Cannot read the position"),
    ],
)
def test_malformed_notation_raises_illegal_action_saying_what_is_wrong(text, words):
    with pytest.raises(IllegalAction, match=re.escape(words)):
        loads(text)
