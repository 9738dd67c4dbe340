"""What every preset shares (docs/rules.md, "Coordinates" and "What every preset shares")."""

import pytest

from games.engine import (
    MARKS,
    RULESETS,
    IllegalAction,
    NoMove,
    Released,
    Rolled,
    TurnPassed,
    legal_moves,
    move,
    new_game,
    roll,
    setup,
)
from tests.engine.positions import Y, kinds, on, pawn_targets, play, the_move

PRESETS = ["classic", "family", "duel", "mensch", "party"]
BOARD_52 = ["classic", "family", "duel", "party"]


# ---------------------------------------------------------------------------- the board


@pytest.mark.parametrize("name", BOARD_52)
def test_52_square_board_has_four_starts_four_stars_and_56_steps_home(name):
    rules = RULESETS[name]
    assert (rules.track_len, rules.quarter, rules.last_track, rules.goal) == (52, 13, 50, 56)
    assert rules.safe == {0, 13, 26, 39} | {8, 21, 34, 47}
    assert rules.colours == ("red", "green", "yellow", "blue")


def test_mensch_board_has_40_squares_no_stars_and_four_home_squares():
    rules = RULESETS["mensch"]
    assert (rules.track_len, rules.quarter, rules.last_track, rules.goal) == (40, 10, 39, 43)
    assert rules.safe == frozenset()
    assert rules.colours == ("red", "blue", "green", "yellow")


def test_every_colour_has_its_own_shape_mark():
    assert MARKS == {
        "red": "dot",
        "green": "bar",
        "yellow": "triangle",
        "blue": "diamond",
        "orange": "square",
        "purple": "cross",
    }
    assert len(set(MARKS.values())) == len(MARKS)


@pytest.mark.parametrize("name", PRESETS)
def test_each_corner_comes_out_on_its_own_start_square(name):
    rules = RULESETS[name]
    for corner in range(4):
        players = 2 if name == "duel" else 4
        if corner not in rules.seats_for(players):
            continue
        state = new_game(rules, players, first=corner)
        state, events = roll(state, 6)
        state, events = move(state, the_move(state, 0))
        assert events[0] == Released(corner, 0, corner * rules.quarter)
        assert state.pawns[corner] == (0, Y, Y, Y)


# ---------------------------------------------------------------------------- seating


@pytest.mark.parametrize("name", PRESETS)
def test_two_players_sit_in_opposite_corners(name):
    state = new_game(RULESETS[name], 2, first=0)
    assert state.seats == (0, 2)
    assert state.pawns == ((Y,) * 4, (), (Y,) * 4, ())


@pytest.mark.parametrize("name", ["classic", "family", "mensch", "party"])
def test_three_players_take_corners_0_1_2_and_four_take_all(name):
    assert new_game(RULESETS[name], 3).seats == (0, 1, 2)
    assert new_game(RULESETS[name], 4).seats == (0, 1, 2, 3)


@pytest.mark.parametrize("name", PRESETS)
def test_the_first_player_is_given_to_new_game(name):
    state = new_game(RULESETS[name], 2, first=2)
    assert (state.to_play, state.phase, state.sixes) == (2, "roll", 0)


def test_the_first_player_must_be_seated():
    with pytest.raises(IllegalAction, match="no player"):
        new_game(RULESETS["classic"], 2, first=1)


@pytest.mark.parametrize(
    ("name", "first"),
    [("classic", "random"), ("family", "red"), ("duel", "random"), ("mensch", "red")]
    + [("party", "random")],
)
def test_who_starts_per_preset(name, first):
    assert RULESETS[name].first_player == first


# ---------------------------------------------------------------------------- leaving the yard


@pytest.mark.parametrize("name", PRESETS)
@pytest.mark.parametrize("face", [1, 2, 3, 4, 5])
def test_only_a_six_brings_a_pawn_out(name, face):
    rules = RULESETS[name]
    state = setup(rules, {0: [Y, Y, Y, 5], 2: [Y] * 4})
    state, events = roll(state, face)
    assert pawn_targets(state) == {3: 5 + face}


@pytest.mark.parametrize("name", PRESETS)
def test_a_six_brings_any_waiting_pawn_onto_progress_0(name):
    rules = RULESETS[name]
    state = setup(rules, {0: [Y, Y, 20, Y], 2: [Y] * 4})
    state, _ = roll(state, 6)
    moves = pawn_targets(state)
    assert {moves[0], moves[1], moves[3]} == {0}


# ---------------------------------------------------------------------------- exact finish


@pytest.mark.parametrize(
    ("name", "home_gives_extra_roll"),
    [("classic", True), ("family", False), ("duel", True), ("party", True)],
)
def test_worked_example_a_pawn_3_from_home_cannot_move_5_and_lands_home_on_3(
    name, home_gives_extra_roll
):
    rules = RULESETS[name]
    state = setup(rules, {0: [53, Y, Y, Y], 2: [Y] * 4})

    after, events = roll(state, 5)
    assert legal_moves(after) == ()
    assert kinds(events) == ["rolled", "no_move", "turn_passed"]
    assert after.pawns == state.pawns and after.to_play == 2

    state, _ = roll(state, 3)
    assert pawn_targets(state) == {0: 56}
    state, events = move(state, the_move(state, 0))
    assert state.pawns[0] == (56, Y, Y, Y)
    expected = ["moved", "home"] + (["extra_roll"] if home_gives_extra_roll else ["turn_passed"])
    assert kinds(events) == expected


@pytest.mark.parametrize("name", BOARD_52)
@pytest.mark.parametrize(("face", "to"), [(1, 54), (2, 55), (3, 56)])
def test_a_pawn_3_from_home_may_still_step_up_its_home_column(name, face, to):
    state = setup(RULESETS[name], {0: [53, Y, Y, Y], 2: [Y] * 4})
    state, _ = roll(state, face)
    assert pawn_targets(state) == {0: to}


@pytest.mark.parametrize("face", [4, 5, 6])
def test_mensch_a_pawn_3_short_of_the_last_home_square_cannot_pass_it(face):
    state = setup(RULESETS["mensch"], {0: [40, Y, Y, Y], 2: [Y] * 4})
    state, events = roll(state, face)
    moves = pawn_targets(state)
    assert 0 not in moves


def test_mensch_a_pawn_3_short_of_the_last_home_square_lands_there_on_3():
    state = setup(RULESETS["mensch"], {0: [40, 10, Y, Y], 2: [Y] * 4})
    state, _ = roll(state, 3)
    assert pawn_targets(state) == {0: 43, 1: 13}
    state, _ = move(state, the_move(state, 0))
    assert state.pawns[0] == (43, 10, Y, Y)


@pytest.mark.parametrize("name", BOARD_52)
def test_from_the_start_square_a_pawn_takes_56_steps_home(name):
    rules = RULESETS[name]
    state = setup(rules, {0: [0, Y, Y, Y], 2: [Y] * 4})
    faces = [5] * 10 + [6]  # 50 steps round the track, then 6 into home
    for face in faces:
        state, _ = roll(state, face)
        state, events = move(state, the_move(state, 0))
        while state.to_play != 0:  # the other side passes with no pawn out
            state, _ = roll(state, 1)
    assert state.pawns[0][0] == 56 == rules.goal
    assert "home" in kinds(events)


# ---------------------------------------------------------------- jumping, home column


@pytest.mark.parametrize("name", PRESETS)
def test_pawns_jump_over_any_pawn_there_are_no_blockades(name):
    rules = RULESETS[name]
    # Green pawns (a pair where the board allows it) and red's own pawn 1 stand in the way.
    red = [2, 4, Y, Y]
    if rules.land_on_own:
        green = [on(rules, 1, 4), on(rules, 1, 4), Y, Y]
    else:  # mensch: one corner's pawns never share a square
        green = [on(rules, 1, 3), on(rules, 1, 5), Y, Y]
    state = setup(rules, {0: red, 1: green})
    state, _ = roll(state, 5)
    assert pawn_targets(state)[0] == 7


@pytest.mark.parametrize("name", BOARD_52)
def test_a_pawn_in_its_home_column_cannot_be_captured(name):
    rules = RULESETS[name]
    # Red's progress 51 is the first home-column square; the track square 51 beside it is
    # Blue's progress 12.
    state = setup(rules, {0: [51, Y, Y, Y], 3: [7, Y, Y, Y]}, to_play=3)
    state, _ = roll(state, 5)
    (m,) = legal_moves(state)
    assert (m.to, m.square, m.captures) == (12, 51, ())
    state, events = move(state, m)
    assert "captured" not in kinds(events)
    assert state.pawns[0] == (51, Y, Y, Y)


@pytest.mark.parametrize("name", ["classic", "duel", "party"])
def test_the_last_track_square_before_the_home_column_can_still_be_captured(name):
    rules = RULESETS[name]
    state = setup(rules, {0: [50, Y, Y, Y], 3: [6, Y, Y, Y]}, to_play=3)
    state, _ = roll(state, 5)
    (m,) = legal_moves(state)
    assert (m.square, m.captures) == (50, ((0, 0),))


@pytest.mark.parametrize("name", BOARD_52)
def test_pawns_of_different_corners_share_a_home_column_progress_without_meeting(name):
    rules = RULESETS[name]
    state = setup(rules, {0: [53, Y, Y, Y], 1: [50, Y, Y, Y]}, to_play=1)
    state, _ = roll(state, 3)
    (m,) = legal_moves(state)
    assert (m.to, m.square, m.captures) == (53, -1, ())


# ---------------------------------------------------------------- no move: the turn passes


@pytest.mark.parametrize("name", ["classic", "family", "duel"])
def test_no_pawn_can_use_the_roll_the_turn_passes_and_nothing_moves(name):
    state = setup(RULESETS[name], {0: [Y] * 4, 2: [10, Y, Y, Y]})
    after, events = roll(state, 5)
    assert events[0] == Rolled(0, 5, 5)
    assert isinstance(events[1], NoMove) and "6" in events[1].reason
    assert events[2] == TurnPassed(0, 2)
    assert after.pawns == state.pawns
    assert (after.to_play, after.phase, after.die) == (2, "roll", 0)


@pytest.mark.parametrize("name", PRESETS)
def test_the_engine_never_moves_by_itself_even_with_one_choice(name):
    state = setup(RULESETS[name], {0: [Y, Y, Y, 5], 2: [Y] * 4})
    after, events = roll(state, 2)
    assert len(legal_moves(after)) == 1
    assert after.phase == "move" and after.pawns == state.pawns
    assert kinds(events) == ["rolled"]


@pytest.mark.parametrize("name", PRESETS)
def test_a_plain_move_passes_the_turn_clockwise(name):
    rules = RULESETS[name]
    players = 2 if name == "duel" else 3
    state = new_game(rules, players, first=0)
    state = setup(rules, {c: [5, Y, Y, Y] for c in state.seats})
    state, events = play(state, 3, 0)
    assert kinds(events) == ["rolled", "moved", "turn_passed"]
    assert state.to_play == state.seats[1]
