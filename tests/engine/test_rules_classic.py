"""`classic`: ranked online Ludo; every rival pawn on the square is captured, and a 6,
a capture or a pawn home gives another roll."""

import pytest

from games.engine import (
    RULESETS,
    Captured,
    ExtraRoll,
    Finished,
    Home,
    Moved,
    Rolled,
    SixForfeited,
    TurnPassed,
    Won,
    legal_moves,
    move,
    roll,
    setup,
)
from tests.engine.positions import Y, extra_roll_reasons, kinds, on, pawn_targets, play, the_move

CLASSIC = RULESETS["classic"]
GREEN, YELLOW, BLUE = 1, 2, 3


# ---------------------------------------------------------------------------- capturing


def test_landing_on_two_opponent_pawns_captures_both():
    g = on(CLASSIC, GREEN, 20)
    state = setup(CLASSIC, {0: [15, Y, Y, Y], GREEN: [g, g, Y, Y]})
    state, _ = roll(state, 5)
    assert the_move(state, 0).captures == ((GREEN, 0), (GREEN, 1))
    state, events = move(state, the_move(state, 0))
    assert events[1:3] == (Captured(GREEN, 0, 0, 20), Captured(GREEN, 1, 0, 20))
    assert state.pawns[GREEN] == (Y, Y, Y, Y)


def test_landing_on_pawns_of_two_opponents_captures_them_all():
    state = setup(
        CLASSIC,
        {
            0: [15, Y, Y, Y],
            GREEN: [on(CLASSIC, GREEN, 20), Y, Y, Y],
            YELLOW: [on(CLASSIC, 2, 20)] * 4,
        },
    )
    state, _ = roll(state, 5)
    captures = the_move(state, 0).captures
    assert sorted(captures) == [(GREEN, 0)] + [(YELLOW, j) for j in range(4)]


@pytest.mark.parametrize("square", sorted(CLASSIC.safe - {0}))
def test_nothing_is_captured_on_a_start_or_a_star(square):
    g = on(CLASSIC, GREEN, square)
    state = setup(CLASSIC, {0: [square - 3, Y, Y, Y], GREEN: [g, g, Y, Y]})
    state, _ = roll(state, 3)
    m = the_move(state, 0)
    assert (m.square, m.safe, m.captures) == (square, True, ())


def test_a_pawn_brought_out_onto_its_start_captures_nothing_there():
    state = setup(CLASSIC, {0: [Y] * 4, GREEN: [on(CLASSIC, GREEN, 0), Y, Y, Y]})
    state, _ = roll(state, 6)
    state, events = move(state, the_move(state, 0))
    assert "captured" not in kinds(events)
    assert state.pawns[GREEN][0] == on(CLASSIC, GREEN, 0)


def test_a_captured_pawn_needs_a_six_to_come_out_again():
    state = setup(CLASSIC, {0: [15, Y, Y, Y], GREEN: [7, 30, Y, Y]})
    state, _ = play(state, 5, 0)
    state, _ = roll(state, 3)  # Red's extra roll for the capture
    state, _ = move(state, the_move(state, 0))
    assert state.to_play == GREEN and state.pawns[GREEN] == (Y, 30, Y, Y)
    state, _ = roll(state, 5)
    assert pawn_targets(state) == {1: 35}


# ---------------------------------------------------------------------------- extra rolls


def test_a_capture_gives_an_extra_roll():
    state = setup(CLASSIC, {0: [15, Y, Y, Y], GREEN: [7, Y, Y, Y]})
    state, events = play(state, 5, 0)
    assert events[-1] == ExtraRoll(0, ("capture",))
    assert (state.to_play, state.phase, state.sixes) == (0, "roll", 0)


def test_reaching_home_gives_an_extra_roll():
    state = setup(CLASSIC, {0: [53, 10, Y, Y], GREEN: [Y] * 4})
    state, events = play(state, 3, 0)
    assert events == (Rolled(0, 3, 3), Moved(0, 0, 53, 56, -1), Home(0, 0), ExtraRoll(0, ("home",)))


def test_a_six_gives_an_extra_roll():
    state = setup(CLASSIC, {0: [10, Y, Y, Y], GREEN: [Y] * 4})
    state, events = play(state, 6, 0)
    assert events[-1] == ExtraRoll(0, ("six",))
    assert state.sixes == 1


def test_several_reasons_give_one_extra_roll_six_and_capture():
    state = setup(CLASSIC, {0: [14, Y, Y, Y], GREEN: [7, Y, Y, Y]})
    state, events = play(state, 6, 0)
    assert extra_roll_reasons(events) == [("six", "capture")]
    assert kinds(events).count("extra_roll") == 1
    state, events = play(state, 1, 0)
    assert events[-1] == TurnPassed(0, GREEN)


def test_several_reasons_give_one_extra_roll_six_and_home():
    state = setup(CLASSIC, {0: [50, 10, Y, Y], GREEN: [Y] * 4})
    state, events = play(state, 6, 0)
    assert extra_roll_reasons(events) == [("six", "home")]
    state, events = play(state, 2, 1)
    assert events[-1] == TurnPassed(0, GREEN)


# ---------------------------------------------------------------------------- sixes


def test_the_third_six_in_a_row_is_forfeited_and_the_first_two_moves_stay():
    state = setup(CLASSIC, {0: [10, Y, Y, Y], GREEN: [Y] * 4})
    state, _ = play(state, 6, 0)
    state, _ = play(state, 6, 1)
    assert state.pawns[0] == (16, 0, Y, Y) and state.sixes == 2
    state, events = roll(state, 6)
    assert events == (Rolled(0, 6, 6), SixForfeited(0, 3), TurnPassed(0, GREEN))
    assert state.pawns[0] == (16, 0, Y, Y)
    assert legal_moves(state) == ()


def test_a_capture_does_not_reset_the_sixes_in_a_row():
    state = setup(CLASSIC, {0: [8, Y, Y, Y], GREEN: [1, Y, Y, Y]})
    state, events = play(state, 6, 0)  # 8 -> 14 = Green's progress 1: captured
    assert "captured" in kinds(events) and state.sixes == 1
    state, _ = play(state, 6, 0)
    state, events = roll(state, 6)
    assert "six_forfeited" in kinds(events)


def test_a_six_no_pawn_can_use_rolls_again_unless_it_is_the_third():
    state = setup(CLASSIC, {0: [51, 52, 53, 56], GREEN: [Y] * 4})
    state, events = roll(state, 6)
    assert events[-1] == ExtraRoll(0, ("unusable_six",))
    state, events = roll(state, 6)
    assert events[-1] == ExtraRoll(0, ("unusable_six",))
    state, events = roll(state, 6)
    assert kinds(events) == ["rolled", "six_forfeited", "turn_passed"]


def test_with_no_pawn_out_one_roll_only():
    state = setup(CLASSIC, {0: [Y, Y, 56, 56], GREEN: [Y] * 4})
    state, events = roll(state, 5)
    assert kinds(events) == ["rolled", "no_move", "turn_passed"]
    assert state.to_play == GREEN


def test_bringing_out_is_optional():
    state = setup(CLASSIC, {0: [Y, 10, Y, Y], GREEN: [Y] * 4})
    state, _ = roll(state, 6)
    assert pawn_targets(state) == {0: 0, 1: 16, 2: 0, 3: 0}


# ---------------------------------------------------------------------------- the end


def test_the_first_with_four_home_wins_and_the_others_are_placed_by_pawns_home_then_progress():
    state = setup(
        CLASSIC,
        {
            0: [56, 56, 56, 53],
            GREEN: [56, 10, 10, Y],  # one home
            YELLOW: [56, 56, Y, Y],  # two home
            BLUE: [56, 40, 30, Y],  # one home, more progress than Green
        },
    )
    state, events = play(state, 3, 3)
    assert events[-3:] == (Home(0, 3), Finished(0, 1), Won(0, (0, YELLOW, BLUE, GREEN)))
    assert state.phase == "over" and state.winner == 0
    assert state.placings == (0, YELLOW, BLUE, GREEN)
    assert legal_moves(state) == ()


def test_the_winner_gets_no_extra_roll_for_the_last_pawn_home():
    state = setup(CLASSIC, {0: [56, 56, 56, 50], GREEN: [Y] * 4})
    state, events = play(state, 6, 3)
    assert extra_roll_reasons(events) == []
    assert state.phase == "over"


def test_clock_rules_as_data():
    assert CLASSIC.turn_seconds == 20 and CLASSIC.on_timeout == "auto_move"
    assert CLASSIC.timeouts_to_forfeit == 3
    assert (CLASSIC.disconnect_seconds, CLASSIC.on_disconnect) == (60, "forfeit")
