"""`mensch`: the 40-square board; never land on your own pawn; bring a pawn out on a 6
and clear the start square first; three tries for a 6; no limit on sixes."""

import pytest

from games.engine import (
    RULESETS,
    Captured,
    ExtraRoll,
    Home,
    Moved,
    Released,
    Rolled,
    TurnPassed,
    legal_moves,
    move,
    new_game,
    roll,
    setup,
)
from tests.engine.positions import Y, extra_roll_reasons, kinds, on, pawn_targets, play, the_move

MENSCH = RULESETS["mensch"]
BLUE, GREEN, YELLOW = 1, 2, 3


def test_red_blue_green_yellow_start_on_squares_0_10_20_30():
    assert MENSCH.colours == ("red", "blue", "green", "yellow")
    for corner in range(4):
        state = setup(MENSCH, {corner: [Y] * 4, (corner + 2) % 4: [Y] * 4}, to_play=corner)
        state, events = play(state, 6, 0)
        assert events[1] == Released(corner, 0, 10 * corner)


def test_two_players_play_red_and_green_three_play_red_blue_and_green():
    colours = MENSCH.colours
    assert [colours[c] for c in new_game(MENSCH, 2).seats] == ["red", "green"]
    assert [colours[c] for c in new_game(MENSCH, 3).seats] == ["red", "blue", "green"]


def test_red_goes_first():
    assert MENSCH.first_player == "red"


# ---------------------------------------------------------------------------- capturing


def test_landing_on_an_opponent_sends_it_to_its_base_anywhere_on_the_track():
    # Square 10 is Blue's start: on this board no square is safe.
    state = setup(MENSCH, {0: [5, Y, Y, Y], BLUE: [0, Y, Y, Y]})
    state, events = play(state, 5, 0)
    assert events[1:] == (Moved(0, 0, 5, 10, 10), Captured(BLUE, 0, 0, 10), TurnPassed(0, BLUE))
    assert state.pawns[BLUE] == (Y, Y, Y, Y)


def test_bringing_a_pawn_out_onto_the_start_square_captures_too():
    blue_on_red_start = on(MENSCH, BLUE, 0)
    state = setup(MENSCH, {0: [Y] * 4, BLUE: [blue_on_red_start, Y, Y, Y]})
    state, events = play(state, 6, 0)
    assert events[1:3] == (Released(0, 0, 0), Captured(BLUE, 0, 0, 0))
    assert events[-1] == ExtraRoll(0, ("six",))  # the capture itself gives no extra roll


def test_a_capture_gives_no_extra_roll():
    state = setup(MENSCH, {0: [5, Y, Y, Y], GREEN: [on(MENSCH, GREEN, 8), Y, Y, Y]})
    state, events = play(state, 3, 0)
    assert "captured" in kinds(events) and events[-1] == TurnPassed(0, GREEN)


def test_a_pawn_cannot_land_on_its_own_pawn_but_jumps_over_it():
    state = setup(MENSCH, {0: [5, 8, Y, Y], GREEN: [Y] * 4})
    state, _ = roll(state, 3)
    assert pawn_targets(state) == {1: 11}
    state = setup(MENSCH, {0: [5, 8, Y, Y], GREEN: [Y] * 4})
    state, _ = roll(state, 4)
    assert pawn_targets(state) == {0: 9, 1: 12}


# ---------------------------------------------------------------------------- bringing out


def test_a_six_with_a_pawn_waiting_must_bring_it_out():
    state = setup(MENSCH, {0: [Y, 10, Y, Y], GREEN: [Y] * 4})
    state, _ = roll(state, 6)
    assert pawn_targets(state) == {0: 0, 2: 0, 3: 0}


def test_the_start_square_is_cleared_first_while_pawns_wait():
    state = setup(MENSCH, {0: [0, 10, Y, Y], GREEN: [Y] * 4})
    for face in (3, 6):
        after, _ = roll(state, face)
        assert pawn_targets(after) == {0: face}


def test_a_pawn_on_the_start_that_cannot_move_leaves_the_other_pawns_free():
    # Pawn 0 on the start would land on pawn 1 with a 6; the yard pawns cannot come out onto it.
    state = setup(MENSCH, {0: [0, 6, Y, Y], GREEN: [Y] * 4})
    state, _ = roll(state, 6)
    assert pawn_targets(state) == {1: 12}


def test_with_no_pawn_waiting_the_start_square_need_not_be_cleared():
    state = setup(MENSCH, {0: [0, 10, 20, 40], GREEN: [Y] * 4})
    state, _ = roll(state, 3)
    assert pawn_targets(state) == {0: 3, 1: 13, 2: 23, 3: 43}


def test_the_bring_out_must_be_played_even_when_another_pawn_could_capture():
    state = setup(MENSCH, {0: [Y, 4, Y, Y], GREEN: [on(MENSCH, GREEN, 10), Y, Y, Y]})
    state, _ = roll(state, 6)
    assert pawn_targets(state) == {0: 0, 2: 0, 3: 0}


# ---------------------------------------------------------------------------- sixes and tries


def test_after_a_six_you_roll_again_and_there_is_no_limit_on_sixes():
    state = setup(MENSCH, {0: [10, Y, Y, Y], GREEN: [Y] * 4})
    for expected_sixes in range(1, 6):
        state, events = roll(state, 6)
        assert "six_forfeited" not in kinds(events)
        state, events = move(state, legal_moves(state)[0])
        assert events[-1] == ExtraRoll(0, ("six",))
        assert state.sixes == expected_sixes and state.to_play == 0


def test_a_six_no_pawn_can_use_rolls_again():
    state = setup(MENSCH, {0: [39, 40, 41, 42], GREEN: [Y] * 4})
    state, events = roll(state, 6)
    assert kinds(events) == ["rolled", "no_move", "extra_roll"]
    assert events[-1] == ExtraRoll(0, ("unusable_six",))


def test_no_pawn_in_play_three_tries_for_a_six():
    state = setup(MENSCH, {0: [Y] * 4, GREEN: [Y] * 4})
    state, events = roll(state, 1)
    assert events[-1] == ExtraRoll(0, ("try",)) and state.tries == 1
    state, events = roll(state, 2)
    assert events[-1] == ExtraRoll(0, ("try",)) and state.tries == 2
    state, events = roll(state, 3)
    assert kinds(events) == ["rolled", "no_move", "turn_passed"]
    assert (state.to_play, state.tries) == (GREEN, 0)


def test_a_six_on_the_third_try_brings_a_pawn_out_and_rolls_again():
    state = setup(MENSCH, {0: [Y] * 4, GREEN: [Y] * 4})
    state, _ = roll(state, 1)
    state, _ = roll(state, 1)
    state, events = play(state, 6, 0)
    assert events[0] == Rolled(0, 6, 6) and events[1] == Released(0, 0, 0)
    assert events[-1] == ExtraRoll(0, ("six",)) and state.tries == 0


def test_home_pawns_that_cannot_move_count_as_not_in_play():
    # 42 cannot move: 43 is taken and it may not go past it.
    state = setup(MENSCH, {0: [43, 42, Y, Y], GREEN: [Y] * 4})
    state, events = roll(state, 5)
    assert extra_roll_reasons(events) == [("try",)]


def test_a_home_pawn_that_can_still_move_counts_as_in_play():
    state = setup(MENSCH, {0: [43, 40, Y, Y], GREEN: [Y] * 4})
    state, events = roll(state, 5)
    assert kinds(events) == ["rolled", "no_move", "turn_passed"]


def test_a_pawn_on_the_track_that_cannot_use_the_roll_still_counts_as_in_play():
    state = setup(MENSCH, {0: [38, 42, Y, Y], GREEN: [Y] * 4})
    state, events = roll(state, 5)  # 38 + 5 = 43 ... free, so it moves
    assert pawn_targets(state) == {0: 43}
    state = setup(MENSCH, {0: [38, 43, Y, Y], GREEN: [Y] * 4})
    state, events = roll(state, 5)  # 43 taken: no move, and one roll only
    assert kinds(events) == ["rolled", "no_move", "turn_passed"]


# ---------------------------------------------------------------------------- the home row


def test_entering_the_home_row_is_reaching_home_and_gives_no_extra_roll():
    state = setup(MENSCH, {0: [37, Y, Y, Y], GREEN: [Y] * 4})
    state, events = play(state, 4, 0)
    assert events[1:] == (Moved(0, 0, 37, 41, -1), Home(0, 0), TurnPassed(0, GREEN))


def test_other_colours_never_enter_red_home_row():
    # Blue's pawn passing Red's home entrance stays on the track: square 0 is Blue's progress 30.
    state = setup(MENSCH, {0: [40, Y, Y, Y], BLUE: [28, Y, Y, Y]}, to_play=BLUE)
    state, _ = roll(state, 4)
    m = the_move(state, 0)
    assert (m.to, m.square, m.captures) == (32, 2, ())


@pytest.mark.parametrize(("face", "to"), [(1, 41), (3, 43)])
def test_inside_the_home_row_a_pawn_moves_forward_and_jumps(face, to):
    state = setup(MENSCH, {0: [40, 42, Y, Y], GREEN: [Y] * 4})
    state, _ = roll(state, face)
    assert pawn_targets(state)[0] == to


def test_inside_the_home_row_a_pawn_may_not_land_on_its_own_pawn_or_pass_the_last_square():
    state = setup(MENSCH, {0: [40, 42, Y, Y], GREEN: [Y] * 4})
    state, _ = roll(state, 2)
    assert pawn_targets(state) == {}
    assert state.to_play == GREEN  # the turn is lost


def test_the_first_with_all_four_in_the_home_row_wins():
    state = setup(MENSCH, {0: [40, 41, 42, 38], GREEN: [41, 42, 43, 39]})
    state, events = play(state, 5, 3)
    assert kinds(events)[1:] == ["moved", "home", "finished", "won"]
    assert state.phase == "over" and state.placings == (0, GREEN)


def test_any_four_home_row_squares_finish_the_game_not_only_the_last_ones():
    state = setup(MENSCH, {0: [40, 41, 43, 36], GREEN: [Y] * 4})
    state, events = play(state, 6, 3)
    assert state.pawns[0] == (40, 41, 43, 42)
    assert state.winner == 0


def test_clock_rules_as_data():
    assert (MENSCH.turn_seconds, MENSCH.on_timeout) == (20, "auto_move")
    assert (MENSCH.disconnect_seconds, MENSCH.on_disconnect) == (45, "computer")
