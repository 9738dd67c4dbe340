"""Illegal actions raise IllegalAction (a ValueError) with a sentence a person can read, and leave
the state as it was."""

import pytest

from games.engine import (
    RULESETS,
    IllegalAction,
    Move,
    legal_moves,
    move,
    new_game,
    roll,
    setup,
)
from tests.engine.positions import Y, on, the_move

CLASSIC = RULESETS["classic"]


def rolled(rules, pawns, face, to_play=0):
    state, _ = roll(setup(rules, pawns, to_play), face)
    return state


def test_illegal_action_is_a_value_error():
    assert issubclass(IllegalAction, ValueError)


# ---------------------------------------------------------------------------- the order of a turn


def test_rolling_again_before_moving_is_refused():
    state = rolled(CLASSIC, {0: [5, Y, Y, Y], 2: [Y] * 4}, 3)
    assert state.phase == "move"
    with pytest.raises(IllegalAction, match="Move a pawn first"):
        roll(state, 4)


def test_moving_before_rolling_is_refused():
    state = setup(CLASSIC, {0: [5, Y, Y, Y], 2: [Y] * 4})
    with pytest.raises(IllegalAction, match="Roll the die first"):
        move(state, Move(0, 0, 5, 8))


@pytest.mark.parametrize("value", [0, 7, -1, "6", 6.0, None, True])
def test_a_die_shows_1_to_6(value):
    state = new_game(CLASSIC, 2)
    with pytest.raises(IllegalAction, match="A die shows 1 to 6"):
        roll(state, value)


def test_nothing_is_played_after_the_game_is_over():
    state = setup(CLASSIC, {0: [56, 56, 56, 53], 2: [Y] * 4})
    state, _ = roll(state, 3)
    state, _ = move(state, legal_moves(state)[0])
    assert state.phase == "over"
    with pytest.raises(IllegalAction, match="game is over"):
        roll(state, 3)
    with pytest.raises(IllegalAction, match="game is over"):
        move(state, Move(2, 0, Y, 0))


# ------------------------------------------------------------------- moves not in legal_moves


@pytest.mark.parametrize(
    ("rules", "pawns", "face", "attempt", "words"),
    [
        (CLASSIC, [5, Y, Y, Y], 3, Move(0, 0, 5, 9), "can move, but to 8, not 9"),
        (CLASSIC, [5, Y, Y, Y], 3, Move(2, 0, Y, 0), "not corner 2's"),
        (CLASSIC, [5, Y, Y, Y], 3, Move(0, 7, 5, 8), "no pawn 7"),
        (CLASSIC, [5, Y, Y, Y], 3, Move(0, 1, Y, 0), "only a 6 brings a pawn out"),
        (CLASSIC, [5, 53, Y, Y], 5, Move(0, 1, 53, 58), "would pass home (exact finish)"),
        (RULESETS["mensch"], [5, 8, Y, Y], 3, Move(0, 0, 5, 8), "cannot land on your own pawn"),
        (RULESETS["mensch"], [Y, 8, Y, Y], 6, Move(0, 1, 8, 14), "must come out on a 6"),
        (RULESETS["mensch"], [0, 8, Y, Y], 2, Move(0, 1, 8, 10), "start square must be cleared"),
    ],
)
def test_a_move_not_in_legal_moves_is_refused_with_the_rule(rules, pawns, face, attempt, words):
    state = rolled(rules, {0: pawns, 2: [Y] * 4}, face)
    assert attempt not in legal_moves(state)
    with pytest.raises(IllegalAction, match=words.replace("(", r"\(").replace(")", r"\)")):
        move(state, attempt)


def test_a_move_refused_for_compulsory_capture_says_so():
    rules = CLASSIC.with_options(compulsory_capture=True)
    state = rolled(rules, {0: [15, 30, Y, Y], 2: [on(rules, 2, 19), Y, Y, Y]}, 4)
    with pytest.raises(IllegalAction, match="Capturing is compulsory"):
        move(state, Move(0, 1, 30, 34))


def test_a_move_named_by_corner_pawn_from_and_to_is_enough():
    state = rolled(CLASSIC, {0: [15, Y, Y, Y], 2: [on(CLASSIC, 2, 19), Y, Y, Y]}, 4)
    state, events = move(state, Move(0, 0, 15, 19))
    assert [e.kind for e in events][:2] == ["moved", "captured"]


def test_a_refused_action_leaves_the_state_unchanged():
    state = rolled(CLASSIC, {0: [5, Y, Y, Y], 2: [Y] * 4}, 3)
    before = state
    with pytest.raises(IllegalAction):
        move(state, Move(0, 0, 5, 9))
    assert state == before and state.phase == "move"
    assert the_move(state, 0).to == 8


# ---------------------------------------------------------------------------- bonuses


def test_a_bonus_without_power_is_refused():
    state = new_game(RULESETS["party"], 2)
    with pytest.raises(IllegalAction, match="Power"):
        roll(state, 3, bonus="double")


def test_a_shield_without_power_is_refused():
    state = rolled(CLASSIC, {0: [5, Y, Y, Y], 2: [Y] * 4}, 3)
    with pytest.raises(IllegalAction, match="Power"):
        move(state, the_move(state, 0), shield=True)


def test_a_bonus_without_stock_is_refused():
    state = new_game(RULESETS["party"].with_options(power=True), 2)
    with pytest.raises(IllegalAction, match="no control bonus in your stock"):
        roll(state, 6, bonus="control")


def test_an_unknown_bonus_is_refused():
    state = new_game(RULESETS["party"].with_options(power=True), 2)
    with pytest.raises(IllegalAction, match="no bonus 'plus'"):
        roll(state, 3, bonus="plus")


# ---------------------------------------------------------------------------- setting up


@pytest.mark.parametrize(
    ("pawns", "to_play", "words"),
    [
        ({0: [Y] * 4, 2: [Y] * 3}, 0, "needs 4 pawns"),
        ({0: [Y] * 4, 2: [Y, Y, Y, 57]}, 0, "outside"),
        ({0: [Y] * 4, 5: [Y] * 4}, 0, "no corner 5"),
        ({0: [Y] * 4}, 0, "not 1"),
        ({0: [Y] * 4, 2: [Y] * 4}, 1, "Corner 1 has no player"),
    ],
)
def test_setup_refuses_impossible_positions(pawns, to_play, words):
    with pytest.raises(IllegalAction, match=words):
        setup(CLASSIC, pawns, to_play)


def test_setup_refuses_two_mensch_pawns_of_one_corner_on_one_square():
    with pytest.raises(IllegalAction, match="never share a square"):
        setup(RULESETS["mensch"], {0: [5, 5, Y, Y], 2: [Y] * 4})


def test_setup_refuses_a_stock_above_3():
    with pytest.raises(IllegalAction, match="0 to 3"):
        setup(
            RULESETS["party"].with_options(power=True),
            {0: [Y] * 4, 2: [Y] * 4},
            stock={0: [4, 0, 0]},
        )


def test_new_game_refuses_a_player_count_the_preset_does_not_seat():
    with pytest.raises(ValueError, match="2 to 4 players, not 5"):
        new_game(CLASSIC, 5)
    with pytest.raises(ValueError, match="not 1"):
        new_game(RULESETS["mensch"], 1)
