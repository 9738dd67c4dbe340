"""Leaving a game (docs/rules.md, "The end of a game and leaving it"), the timeout move and the
standings (classic: the winner, then pawns home, then total progress)."""

import pytest

from games.engine import (
    RULESETS,
    IllegalAction,
    Resigned,
    TurnPassed,
    Won,
    legal_moves,
    move,
    new_game,
    resign,
    roll,
    setup,
    standings,
    timeout_move,
)
from tests.engine.positions import Y, kinds, on, pawn_targets, play

CLASSIC = RULESETS["classic"]
PARTY = RULESETS["party"]
RED, GREEN, YELLOW, BLUE = 0, 1, 2, 3


# ---------------------------------------------------------------------------- resign and forfeit


def test_in_a_two_player_game_the_opponent_of_whoever_resigns_wins():
    state = setup(CLASSIC, {RED: [56, 56, 56, 10], YELLOW: [5, Y, Y, Y]})
    state, events = resign(state, RED)
    assert events == (Resigned(RED, "resigned"), Won(YELLOW, (YELLOW, RED)))
    assert state.phase == "over" and state.winner == YELLOW
    assert state.pawns[RED] == () and state.out == (RED,)


def test_a_forfeit_by_the_clock_carries_its_reason():
    state = new_game(CLASSIC, 2, first=RED)
    state, events = resign(state, YELLOW, "timeout")
    assert events[0] == Resigned(YELLOW, "timeout")
    assert state.winner == RED


def test_whoever_leaves_is_placed_below_everyone_still_playing_and_their_pawns_removed():
    state = setup(
        CLASSIC,
        {RED: [56, 56, 56, 53], GREEN: [56, 56, 56, 40], YELLOW: [Y, Y, Y, 3]},
    )
    state, events = resign(state, GREEN)
    assert events == (Resigned(GREEN, "resigned"),)
    assert state.pawns[GREEN] == () and state.out == (GREEN,)
    assert (state.phase, state.to_play) == ("roll", RED)
    assert standings(state) == (RED, YELLOW, GREEN)
    state, events = play(state, 3, 3)
    assert events[-1] == Won(RED, (RED, YELLOW, GREEN))  # Green had more home than Yellow


def test_the_last_one_standing_wins():
    state = new_game(CLASSIC, 4, first=RED)
    state, _ = resign(state, GREEN)
    state, _ = resign(state, BLUE)
    assert state.phase == "roll"
    state, events = resign(state, RED)
    assert events[-1] == Won(YELLOW, (YELLOW, RED, BLUE, GREEN))  # the last to leave above


def test_when_the_player_to_move_leaves_the_turn_passes():
    state = new_game(CLASSIC, 3, first=GREEN)
    state, events = resign(state, GREEN)
    assert events == (Resigned(GREEN, "resigned"), TurnPassed(GREEN, YELLOW))
    assert state.to_play == YELLOW


def test_a_player_who_left_is_skipped_in_the_turn_order():
    state = setup(CLASSIC, {RED: [5, Y, Y, Y], GREEN: [5, Y, Y, Y], YELLOW: [5, Y, Y, Y]})
    state, _ = resign(state, GREEN)
    state, events = play(state, 1, 0)
    assert events[-1] == TurnPassed(RED, YELLOW)


def test_a_pending_capture_of_a_pawn_that_left_is_dropped_from_the_legal_moves():
    state = setup(
        CLASSIC, {RED: [15, Y, Y, Y], GREEN: [on(CLASSIC, GREEN, 20), Y, Y, Y], YELLOW: [Y] * 4}
    )
    state, _ = roll(state, 5)
    assert legal_moves(state)[0].captures == ((GREEN, 0),)
    state, _ = resign(state, GREEN)
    assert state.phase == "move" and legal_moves(state)[0].captures == ()
    state, events = move(state, legal_moves(state)[0])
    assert "captured" not in kinds(events)


def test_party_when_all_but_one_leave_before_anyone_finishes_the_last_one_wins():
    state = new_game(PARTY, 3, first=RED)
    state, _ = resign(state, RED)
    state, events = resign(state, YELLOW)
    assert events[-1] == Won(GREEN, (GREEN, YELLOW, RED))


def test_party_those_who_finished_stay_above_the_one_left_and_those_who_left():
    # docs/rules.md says both "when one player is left, that one wins" and, for party, "finishing
    # order"; the engine keeps a player who already finished first.
    state = setup(PARTY, {RED: [56] * 4, GREEN: [10, Y, Y, Y], YELLOW: [5, Y, Y, Y]}, to_play=GREEN)
    state, events = resign(state, GREEN)
    assert events[-1] == Won(RED, (RED, YELLOW, GREEN))


@pytest.mark.parametrize(
    ("action", "message"),
    [
        (lambda s: resign(s, BLUE), "no player"),
        (lambda s: resign(resign(s, GREEN)[0], GREEN), "already left"),
    ],
)
def test_resigning_twice_or_from_an_empty_seat_is_refused(action, message):
    state = new_game(CLASSIC, 3)
    with pytest.raises(IllegalAction, match=message):
        action(state)


def test_a_player_who_finished_cannot_resign_any_more():
    state = setup(PARTY, {RED: [56] * 4, GREEN: [10, Y, Y, Y], YELLOW: [5, Y, Y, Y]}, to_play=GREEN)
    with pytest.raises(IllegalAction, match="already finished"):
        resign(state, RED)


def test_nobody_resigns_a_game_that_is_over():
    state, _ = resign(new_game(CLASSIC, 2), RED)
    with pytest.raises(IllegalAction, match="over"):
        resign(state, YELLOW)


# ---------------------------------------------------------------------------- the timeout move


def test_the_timeout_move_is_the_most_advanced_legal_pawn():
    state = setup(CLASSIC, {RED: [Y, 10, 30, 53], GREEN: [Y] * 4})
    state, _ = roll(state, 6)  # pawn 3 (53) cannot use a 6
    m = timeout_move(state)
    assert (m.pawn, m.frm, m.to) == (2, 30, 36)


def test_the_timeout_move_breaks_ties_by_the_lowest_pawn_number():
    state = setup(CLASSIC, {RED: [5, 20, 20, Y], GREEN: [Y] * 4})
    state, _ = roll(state, 2)
    assert timeout_move(state).pawn == 1


def test_the_timeout_move_from_the_yard_takes_pawn_0():
    state = new_game(CLASSIC, 2)
    state, _ = roll(state, 6)
    m = timeout_move(state)
    assert (m.pawn, m.frm, m.to) == (0, Y, 0)


def test_the_timeout_move_keeps_to_the_rules_compulsions():
    # mensch: a six with a pawn waiting must bring it out, so pawn 1 on 30 is not a choice.
    state = setup(RULESETS["mensch"], {RED: [Y, 30, Y, Y], YELLOW: [Y] * 4})
    state, _ = roll(state, 6)
    assert pawn_targets(state) == {0: 0, 2: 0, 3: 0}
    assert timeout_move(state).pawn == 0


def test_in_pairs_the_timeout_move_of_a_finished_player_is_a_partners_pawn():
    rules = PARTY.with_options(pairs=True)
    state = setup(
        rules,
        {RED: [56] * 4, GREEN: [Y] * 4, YELLOW: [10, 40, Y, Y], BLUE: [Y] * 4},
        placings=[RED],
    )
    state, _ = roll(state, 3)
    m = timeout_move(state)
    assert (m.corner, m.pawn, m.frm) == (YELLOW, 1, 40)


def test_there_is_no_timeout_move_before_the_roll():
    with pytest.raises(IllegalAction, match="roll first"):
        timeout_move(new_game(CLASSIC, 2))


# ---------------------------------------------------------------------------- standings


def test_standings_order_by_pawns_home_then_total_progress():
    state = setup(
        CLASSIC,
        {
            RED: [Y, Y, Y, 5],  # nothing home
            GREEN: [56, 40, 40, Y],  # one home, 135
            YELLOW: [56, 10, Y, Y],  # one home, 65
            BLUE: [56, 56, Y, Y],  # two home
        },
    )
    assert standings(state) == (BLUE, GREEN, YELLOW, RED)


def test_standings_put_finishers_first_in_their_order_and_leavers_last():
    state = setup(
        PARTY,
        {RED: [56] * 4, GREEN: [40, Y, Y, Y], YELLOW: [56] * 4, BLUE: [56, 56, 56, 1]},
        placings=[YELLOW, RED],
        to_play=GREEN,
    )
    assert standings(state) == (YELLOW, RED, BLUE, GREEN)
    state, _ = resign(state, BLUE)
    assert state.phase == "over"
    assert standings(state) == state.placings == (YELLOW, RED, GREEN, BLUE)


def test_final_placings_of_classic_after_the_winner():
    state = setup(
        CLASSIC,
        {
            RED: [10, 10, Y, Y],
            GREEN: [56, 56, 56, 55],
            YELLOW: [50, 50, 50, Y],
            BLUE: [56, Y, Y, Y],
        },
        to_play=GREEN,
    )
    state, _ = play(state, 1, 3)
    # Green wins; Blue has a pawn home; Yellow (149 in all) outruns Red (18).
    assert state.placings == (GREEN, BLUE, YELLOW, RED) == standings(state)
