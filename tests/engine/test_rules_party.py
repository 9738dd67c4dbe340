"""`party`: pawns are counted on the square; a 6 no pawn can use is lost; three tries
for a 6; the game plays on until one player is left."""

import pytest

from games.engine import (
    RULESETS,
    Captured,
    ExtraRoll,
    Finished,
    Rolled,
    SixForfeited,
    TurnPassed,
    Won,
    legal_moves,
    move,
    new_game,
    roll,
    setup,
)
from tests.engine.positions import Y, extra_roll_reasons, kinds, on, pawn_targets, play, the_move

PARTY = RULESETS["party"]
GREEN, YELLOW, BLUE = 1, 2, 3


def at20(corner: int) -> int:
    return on(PARTY, corner, 20)


# ---------------------------------------------------------------------------- counting pawns


def test_one_pawn_landing_on_one_opponent_pawn_sends_it_home():
    state = setup(PARTY, {0: [15, Y, Y, Y], GREEN: [at20(GREEN), Y, Y, Y]})
    state, events = play(state, 5, 0)
    assert Captured(GREEN, 0, 0, 20) in events
    assert events[-1] == ExtraRoll(0, ("capture",))


def test_with_fewer_pawns_you_can_still_land_there_but_nobody_goes_home():
    state = setup(PARTY, {0: [15, Y, Y, Y], GREEN: [at20(GREEN), at20(GREEN), Y, Y]})
    state, _ = roll(state, 5)
    m = the_move(state, 0)
    assert (m.to, m.captures) == (20, ())
    state, events = move(state, m)
    assert kinds(events) == ["moved", "turn_passed"]
    assert state.pawns[0][0] == 20 and state.pawns[GREEN][:2] == (at20(GREEN),) * 2


def test_your_pawns_already_there_are_counted_with_the_one_that_lands():
    state = setup(PARTY, {0: [15, 20, Y, Y], GREEN: [at20(GREEN), at20(GREEN), Y, Y]})
    state, _ = roll(state, 5)
    assert the_move(state, 0).captures == ((GREEN, 0), (GREEN, 1))


def test_more_opponent_pawns_than_yours_stay_even_when_you_bring_two():
    state = setup(PARTY, {0: [15, 20, Y, Y], GREEN: [at20(GREEN)] * 3 + [Y]})
    state, _ = roll(state, 5)
    assert the_move(state, 0).captures == ()


def test_each_opponent_is_compared_on_its_own():
    # Green has one pawn there (no more than Red's one): home. Yellow has two: they stay.
    state = setup(
        PARTY,
        {
            0: [15, Y, Y, Y],
            GREEN: [at20(GREEN), Y, Y, Y],
            YELLOW: [at20(YELLOW), at20(YELLOW), Y, Y],
        },
    )
    state, events = play(state, 5, 0)
    assert [e for e in events if isinstance(e, Captured)] == [Captured(GREEN, 0, 0, 20)]
    assert state.pawns[YELLOW][:2] == (at20(YELLOW),) * 2


@pytest.mark.parametrize("square", [8, 13, 21])
def test_nobody_is_captured_on_start_squares_and_stars(square):
    state = setup(PARTY, {0: [square - 2, Y, Y, Y], GREEN: [on(PARTY, GREEN, square), Y, Y, Y]})
    state, _ = roll(state, 2)
    assert the_move(state, 0).captures == ()


def test_anyone_may_stand_on_a_safe_square_with_any_number_of_pawns():
    g = on(PARTY, GREEN, 21)
    state = setup(PARTY, {0: [15, Y, Y, Y], GREEN: [g, g, g, Y]})
    state, _ = roll(state, 6)
    assert pawn_targets(state)[0] == 21


# ---------------------------------------------------------------------------- extra rolls


def test_reaching_the_middle_gives_an_extra_roll():
    state = setup(PARTY, {0: [53, 10, Y, Y], GREEN: [Y] * 4})
    state, events = play(state, 3, 0)
    assert kinds(events)[-2:] == ["home", "extra_roll"]
    assert events[-1] == ExtraRoll(0, ("home",))


def test_several_reasons_give_only_one_extra_roll():
    state = setup(PARTY, {0: [14, 50, Y, Y], GREEN: [at20(GREEN), Y, Y, Y]})
    state, events = play(state, 6, 0)
    assert extra_roll_reasons(events) == [("six", "capture")]
    state, events = play(state, 6, 1)
    assert extra_roll_reasons(events) == [("six", "home")]


def test_a_third_six_in_a_row_is_lost_and_the_turn_ends():
    state = setup(PARTY, {0: [10, Y, Y, Y], GREEN: [Y] * 4})
    state, _ = play(state, 6, 0)
    state, _ = play(state, 6, 0)
    state, events = roll(state, 6)
    assert events == (Rolled(0, 6, 6), SixForfeited(0, 3), TurnPassed(0, GREEN))
    assert state.pawns[0] == (22, Y, Y, Y)


def test_a_six_you_cannot_move_with_is_lost_and_you_do_not_roll_again():
    state = setup(PARTY, {0: [52, 53, 54, 56], GREEN: [Y] * 4})
    after, events = roll(state, 6)
    assert kinds(events) == ["rolled", "no_move", "turn_passed"]
    assert after.to_play == GREEN and after.pawns == state.pawns


def test_you_pick_the_pawn_for_a_six_and_only_then_roll_again():
    state = setup(PARTY, {0: [10, Y, Y, Y], GREEN: [Y] * 4})
    state, events = roll(state, 6)
    assert state.phase == "move" and kinds(events) == ["rolled"]
    assert pawn_targets(state) == {0: 16, 1: 0, 2: 0, 3: 0}  # bringing out is optional
    with pytest.raises(ValueError, match="Move a pawn first"):
        roll(state, 3)


# ---------------------------------------------------------------------------- three tries


@pytest.mark.parametrize(
    "pawns", [[Y, Y, Y, Y], [56, Y, Y, Y], [56, 56, 56, Y]], ids=["base", "base+1", "base+3"]
)
def test_all_in_the_base_or_the_middle_three_tries_for_a_six(pawns):
    state = setup(PARTY, {0: pawns, GREEN: [Y] * 4})
    state, events = roll(state, 1)
    assert events[-1] == ExtraRoll(0, ("try",))
    state, events = roll(state, 5)
    assert events[-1] == ExtraRoll(0, ("try",))
    state, events = roll(state, 4)
    assert events[-1] == TurnPassed(0, GREEN)


def test_a_pawn_in_the_home_lane_is_out_one_roll_only():
    state = setup(PARTY, {0: [53, Y, Y, Y], GREEN: [Y] * 4})
    state, events = roll(state, 5)
    assert kinds(events) == ["rolled", "no_move", "turn_passed"]


def test_a_six_on_a_try_brings_a_pawn_out():
    state = setup(PARTY, {0: [Y] * 4, GREEN: [Y] * 4})
    state, _ = roll(state, 2)
    state, events = play(state, 6, 2)
    assert events[-1] == ExtraRoll(0, ("six",))
    assert state.pawns[0] == (Y, Y, 0, Y) and state.tries == 0


# ---------------------------------------------------------------------------- the end


def test_the_game_plays_on_after_the_first_finishes():
    state = setup(PARTY, {0: [56, 56, 56, 53], GREEN: [10, Y, Y, Y], YELLOW: [20, Y, Y, Y]})
    state, events = play(state, 3, 3)
    assert events[-2:] == (Finished(0, 1), TurnPassed(0, GREEN))
    assert state.phase == "roll" and state.placings == (0,)


def test_finished_players_are_skipped():
    state = setup(PARTY, {0: [56] * 4, GREEN: [10, Y, Y, Y], YELLOW: [20, Y, Y, Y]}, to_play=YELLOW)
    state, events = play(state, 2, 0)
    assert events[-1] == TurnPassed(YELLOW, GREEN)


def test_the_last_one_left_loses_and_the_finishing_order_places_the_rest():
    state = setup(
        PARTY,
        {0: [56] * 4, GREEN: [10, Y, Y, Y], YELLOW: [56, 56, 56, 55], BLUE: [40, 40, 40, 40]},
        to_play=YELLOW,
    )
    state, events = play(state, 1, 3)
    assert events[-3:] == (events[-3], Finished(YELLOW, 2), TurnPassed(YELLOW, BLUE))
    state = setup(
        PARTY,
        {0: [56] * 4, GREEN: [10, Y, Y, Y], YELLOW: [56] * 4, BLUE: [56, 56, 56, 55]},
        to_play=BLUE,
        placings=[YELLOW, 0],
    )
    state, events = play(state, 1, 3)
    assert events[-2:] == (Finished(BLUE, 3), Won(YELLOW, (YELLOW, 0, BLUE, GREEN)))
    assert state.phase == "over" and state.placings == (YELLOW, 0, BLUE, GREEN)
    assert state.winner == YELLOW


def test_a_finished_player_gets_no_extra_roll_for_their_last_pawn():
    state = setup(PARTY, {0: [56, 56, 56, 50], GREEN: [10, Y, Y, Y], YELLOW: [20, Y, Y, Y]})
    state, events = play(state, 6, 3)
    assert extra_roll_reasons(events) == []
    assert state.to_play == GREEN


def test_two_to_four_players():
    assert [len(new_game(PARTY, n).seats) for n in (2, 3, 4)] == [2, 3, 4]


def test_clock_rules_as_data():
    assert (PARTY.turn_seconds, PARTY.on_timeout, PARTY.on_disconnect) == (30, "bot", "bot")
    assert PARTY.first_player == "random"


def test_with_two_players_the_first_to_finish_ends_the_game():
    state = setup(PARTY, {0: [56, 56, 56, 53], YELLOW: [10, Y, Y, Y]})
    state, events = play(state, 3, 3)
    assert events[-2:] == (Finished(0, 1), Won(0, (0, YELLOW)))
    assert state.phase == "over" and legal_moves(state) == ()
