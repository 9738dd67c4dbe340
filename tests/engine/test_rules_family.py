"""`family`: one device, lone pawns captured, only a 6 gives another roll."""

import pytest

from games.engine import (
    RULESETS,
    Captured,
    ExtraRoll,
    Moved,
    NoMove,
    Rolled,
    SixForfeited,
    TurnPassed,
    legal_moves,
    move,
    new_game,
    roll,
    setup,
)
from tests.engine.positions import Y, extra_roll_reasons, kinds, on, pawn_targets, play, the_move

FAMILY = RULESETS["family"]
GREEN = 1


# ---------------------------------------------------------------------------- worked examples


def test_worked_example_roll_5_with_all_four_in_the_yard_the_turn_passes_nothing_moves():
    state = new_game(FAMILY, 4, first=0)
    after, events = roll(state, 5)
    assert legal_moves(after) == ()
    assert events[0] == Rolled(0, 5, 5)
    assert isinstance(events[1], NoMove) and "only a 6" in events[1].reason
    assert events[2] == TurnPassed(0, 1)
    assert len(events) == 3
    assert after.pawns == state.pawns
    assert (after.to_play, after.phase, after.sixes) == (1, "roll", 0)


def test_worked_example_red_lands_on_square_20_holding_greens_lone_pawn_it_goes_to_its_yard():
    green_on_20 = on(FAMILY, GREEN, 20)
    assert green_on_20 == 7  # Green's progress p stands on square (13 + p) % 52
    state = setup(FAMILY, {0: [15, Y, Y, Y], GREEN: [green_on_20, Y, Y, Y]})
    state, _ = roll(state, 5)
    (m,) = legal_moves(state)
    assert (m.to, m.square, m.captures) == (20, 20, ((GREEN, 0),))
    state, events = move(state, m)
    assert events == (Moved(0, 0, 15, 20, 20), Captured(GREEN, 0, 0, 20), TurnPassed(0, GREEN))
    assert state.pawns == ((20, Y, Y, Y), (Y, Y, Y, Y), (), ())


@pytest.mark.parametrize("square", [0, 8, 13, 21, 26, 34, 39, 47])
def test_worked_example_on_a_safe_square_both_pawns_stay(square):
    # Red's pawn 0 sits 5 short of `square`; Red's start (square 0) is reached from progress 47,
    # which is off the track for Red, so Red comes to its own start through Blue's pawn instead.
    mover, target = (3, on(FAMILY, 3, square)) if square == 0 else (0, square)
    other = GREEN if mover == 0 else 0
    rows = {mover: [target - 5, Y, Y, Y], other: [on(FAMILY, other, square), Y, Y, Y]}
    state = setup(FAMILY, rows, to_play=mover)
    state, _ = roll(state, 5)
    (m,) = legal_moves(state)
    assert (m.square, m.safe, m.captures) == (square, True, ())
    state, events = move(state, m)
    assert "captured" not in kinds(events)
    assert state.pawns[mover][0] == target
    assert state.pawns[other][0] == on(FAMILY, other, square)


def test_worked_example_two_green_pawns_on_20_no_capture_and_all_three_share_the_square():
    green_on_20 = on(FAMILY, GREEN, 20)
    state = setup(FAMILY, {0: [15, Y, Y, Y], GREEN: [green_on_20, green_on_20, Y, Y]})
    state, _ = roll(state, 5)
    (m,) = legal_moves(state)
    assert m.captures == ()
    state, events = move(state, m)
    assert kinds(events) == ["moved", "turn_passed"]
    assert state.pawns[0][0] == 20
    assert state.pawns[GREEN][:2] == (green_on_20, green_on_20)


def test_two_green_pawns_do_not_block_red_passing_over_them():
    green_on_20 = on(FAMILY, GREEN, 20)
    state = setup(FAMILY, {0: [15, Y, Y, Y], GREEN: [green_on_20, green_on_20, Y, Y]})
    state, _ = roll(state, 6)
    assert pawn_targets(state)[0] == 21


def test_worked_example_three_sixes_the_third_is_forfeited_nothing_moves_the_turn_passes():
    state = setup(FAMILY, {0: [Y] * 4, GREEN: [Y] * 4})
    state, events = play(state, 6, 0)
    assert extra_roll_reasons(events) == [("six",)] and state.sixes == 1
    state, events = play(state, 6, 0)
    assert extra_roll_reasons(events) == [("six",)] and state.sixes == 2
    before = state.pawns
    assert before[0] == (6, Y, Y, Y)
    after, events = roll(state, 6)
    assert events == (Rolled(0, 6, 6), SixForfeited(0, 3), TurnPassed(0, GREEN))
    assert after.pawns == before  # the first two moves stay
    assert (after.to_play, after.sixes, after.phase) == (GREEN, 0, "roll")


def test_worked_example_a_token_3_from_home_moves_1_or_2_up_the_column_only_3_takes_it_home():
    state = setup(FAMILY, {0: [53, Y, Y, Y], GREEN: [Y] * 4})
    for face, expected in [(1, {0: 54}), (2, {0: 55}), (3, {0: 56}), (4, {}), (5, {}), (6, None)]:
        after, events = roll(state, face)
        if expected is None:  # a 6 brings a pawn out instead
            assert set(pawn_targets(after)) == {1, 2, 3}
        else:
            assert pawn_targets(after) == expected


# ---------------------------------------------------------------------------- capturing


def test_only_a_lone_opponent_pawn_is_captured_on_a_plain_square():
    state = setup(FAMILY, {0: [15, Y, Y, Y], GREEN: [7, Y, Y, Y], 2: [Y] * 4})
    state, _ = roll(state, 5)
    assert the_move(state, 0).captures == ((GREEN, 0),)


def test_pawns_of_two_different_opponents_on_one_square_are_not_a_lone_pawn():
    # Green and Yellow each have one pawn on square 20: two opponent pawns, so both stay.
    state = setup(FAMILY, {0: [15, Y, Y, Y], GREEN: [7, Y, Y, Y], 2: [on(FAMILY, 2, 20), Y, Y, Y]})
    state, _ = roll(state, 5)
    assert the_move(state, 0).captures == ()


def test_a_lone_pawn_next_to_the_movers_own_pawn_is_still_captured():
    state = setup(FAMILY, {0: [15, 20, Y, Y], GREEN: [7, Y, Y, Y]})
    state, _ = roll(state, 5)
    assert the_move(state, 0).captures == ((GREEN, 0),)


def test_a_pawn_may_land_on_its_own_pawn():
    state = setup(FAMILY, {0: [15, 20, Y, Y], GREEN: [Y] * 4})
    state, _ = roll(state, 5)
    assert pawn_targets(state) == {0: 20, 1: 25}


# ---------------------------------------------------------------------------- extra rolls


def test_a_capture_gives_no_extra_roll():
    state = setup(FAMILY, {0: [15, Y, Y, Y], GREEN: [7, Y, Y, Y]})
    state, events = play(state, 5, 0)
    assert "captured" in kinds(events)
    assert extra_roll_reasons(events) == [] and state.to_play == GREEN


def test_reaching_home_gives_no_extra_roll():
    state = setup(FAMILY, {0: [53, 10, Y, Y], GREEN: [Y] * 4})
    state, events = play(state, 3, 0)
    assert "home" in kinds(events)
    assert extra_roll_reasons(events) == [] and state.to_play == GREEN


def test_a_six_that_captures_gives_one_extra_roll_for_the_six_only():
    state = setup(FAMILY, {0: [14, Y, Y, Y], GREEN: [7, Y, Y, Y]})
    state, events = play(state, 6, 0)
    assert "captured" in kinds(events)
    assert events[-1] == ExtraRoll(0, ("six",))
    assert state.to_play == 0 and state.sixes == 1


def test_a_six_no_pawn_can_use_rolls_again():
    state = setup(FAMILY, {0: [52, 53, 54, 56], GREEN: [Y] * 4})
    after, events = roll(state, 6)
    assert kinds(events) == ["rolled", "no_move", "extra_roll"]
    assert events[-1] == ExtraRoll(0, ("unusable_six",))
    assert (after.to_play, after.phase, after.sixes) == (0, "roll", 1)
    assert after.pawns == state.pawns


def test_a_third_six_no_pawn_can_use_is_still_forfeited():
    state = setup(FAMILY, {0: [52, 53, 54, 56], GREEN: [Y] * 4})
    state, _ = roll(state, 6)
    state, _ = roll(state, 6)
    state, events = roll(state, 6)
    assert kinds(events) == ["rolled", "six_forfeited", "turn_passed"]
    assert state.to_play == GREEN


def test_the_sixes_in_a_row_count_goes_back_to_0_when_the_turn_passes():
    state = setup(FAMILY, {0: [10, Y, Y, Y], GREEN: [Y] * 4})
    state, _ = play(state, 6, 0)
    state, _ = play(state, 6, 0)
    assert state.sixes == 2
    state, events = play(state, 2, 0)
    assert events[-1] == TurnPassed(0, GREEN)
    assert state.sixes == 0
    state, _ = roll(state, 4)  # Green: nothing out, passes back
    assert state.to_play == 0
    state, events = play(state, 6, 0)
    assert state.sixes == 1 and extra_roll_reasons(events) == [("six",)]


def test_no_pawn_out_gives_one_roll_only():
    state = setup(FAMILY, {0: [Y] * 4, GREEN: [Y] * 4})
    state, events = roll(state, 3)
    assert kinds(events) == ["rolled", "no_move", "turn_passed"]


# ---------------------------------------------------------------------------- the table


def test_family_is_played_on_one_device_with_no_clock_and_red_starts():
    assert FAMILY.first_player == "red"
    assert FAMILY.turn_seconds is None and FAMILY.on_timeout == "none"
    assert (FAMILY.min_players, FAMILY.max_players) == (2, 4)


def test_the_first_player_with_four_home_wins():
    state = setup(FAMILY, {0: [56, 56, 56, 53], GREEN: [40, 56, 56, 56], 2: [Y] * 4})
    state, events = play(state, 3, 3)
    assert kinds(events)[-2:] == ["finished", "won"]
    assert state.phase == "over" and state.winner == 0
