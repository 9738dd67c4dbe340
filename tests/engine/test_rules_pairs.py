"""`party` with Pairs: Red with Yellow against Green with Blue; a pair's pawns count
together and never capture each other; a finished player moves the partner's pawns."""

import pytest

from games.engine import (
    RULESETS,
    Captured,
    ExtraRoll,
    Finished,
    Moved,
    TurnPassed,
    Won,
    legal_moves,
    move,
    mover_of,
    new_game,
    resign,
    roll,
    setup,
)
from tests.engine.positions import Y, extra_roll_reasons, kinds, on, play, square_of, targets

PAIRS = RULESETS["party"].with_options(pairs=True)
RED, GREEN, YELLOW, BLUE = 0, 1, 2, 3


def at20(corner: int) -> int:
    return on(PAIRS, corner, 20)


def position(**rows):
    """Every corner seated (Pairs is four players); unnamed corners wait in their yards."""
    names = {"red": RED, "green": GREEN, "yellow": YELLOW, "blue": BLUE}
    pawns = {c: [Y] * 4 for c in range(4)}
    for name, row in rows.items():
        pawns[names[name]] = row
    return pawns


def test_pairs_is_played_by_four_in_opposite_corners():
    assert new_game(PAIRS, 4).seats == (0, 1, 2, 3)
    for players in (2, 3):
        with pytest.raises(ValueError, match="4"):
            new_game(PAIRS, players)


def test_pairs_is_a_party_option_only():
    with pytest.raises(ValueError, match="no option pairs"):
        RULESETS["classic"].with_options(pairs=True)


# ---------------------------------------------------------------------------- capturing


def test_partners_never_capture_each_other():
    state = setup(PAIRS, position(red=[15, Y, Y, Y], yellow=[at20(YELLOW), Y, Y, Y]))
    state, events = play(state, 5, 0)
    assert "captured" not in kinds(events)
    assert state.pawns[YELLOW][0] == at20(YELLOW) and state.pawns[RED][0] == 20


def test_a_partners_pawn_counts_with_yours():
    # Red lands alone beside one Yellow pawn: two against Green's two, so Green goes home.
    state = setup(
        PAIRS,
        position(
            red=[15, Y, Y, Y], yellow=[at20(YELLOW), Y, Y, Y], green=[at20(GREEN)] * 2 + [Y, Y]
        ),
    )
    state, events = play(state, 5, 0)
    assert [e for e in events if isinstance(e, Captured)] == [
        Captured(GREEN, 0, RED, 20),
        Captured(GREEN, 1, RED, 20),
    ]
    assert state.pawns[YELLOW][0] == at20(YELLOW)


def test_without_the_partner_there_the_same_landing_captures_nobody():
    state = setup(PAIRS, position(red=[15, Y, Y, Y], green=[at20(GREEN)] * 2 + [Y, Y]))
    state, _ = roll(state, 5)
    assert legal_moves(state)[0].captures == ()


def test_the_opposing_pair_counts_together_too():
    # One Green and one Blue pawn: two against Red's one, so nobody goes home.
    state = setup(
        PAIRS, position(red=[15, Y, Y, Y], green=[at20(GREEN), Y, Y, Y], blue=[at20(BLUE), Y, Y, Y])
    )
    state, _ = roll(state, 5)
    assert legal_moves(state)[0].captures == ()


def test_two_against_a_mixed_pair_of_two_sends_both_home():
    state = setup(
        PAIRS,
        position(red=[15, 20, Y, Y], green=[at20(GREEN), Y, Y, Y], blue=[at20(BLUE), Y, Y, Y]),
    )
    state, _ = roll(state, 5)
    m = [m for m in legal_moves(state) if m.pawn == 0][0]
    assert m.captures == ((GREEN, 0), (BLUE, 0))


# ---------------------------------------------------------------------------- a finished player


def finished_red(to_play=RED, **rows):
    return setup(PAIRS, position(red=[56] * 4, **rows), to_play=to_play, placings=[RED])


def test_whoever_finishes_moves_their_partners_pawns():
    state = finished_red(yellow=[10, Y, Y, Y], green=[5, Y, Y, Y])
    assert mover_of(state, RED) == YELLOW and mover_of(state, GREEN) == GREEN
    state, _ = roll(state, 3)
    assert targets(state) == {(YELLOW, 0): 13}
    assert all(m.corner == YELLOW for m in legal_moves(state))
    state, events = move(state, legal_moves(state)[0])
    assert events == (Moved(YELLOW, 0, 10, 13, square_of(PAIRS, YELLOW, 13)), TurnPassed(0, 1))


def test_a_finished_player_keeps_their_turn_in_the_order():
    state = finished_red(BLUE, yellow=[10, Y, Y, Y], green=[5, Y, Y, Y], blue=[5, Y, Y, Y])
    state, events = play(state, 2, 0)
    assert events[-1] == TurnPassed(BLUE, RED)


def test_a_finished_player_rolls_again_after_a_six_with_the_partners_pawn():
    state = finished_red(yellow=[10, Y, Y, Y])
    state, _ = roll(state, 6)
    assert set(targets(state)) == {(YELLOW, j) for j in range(4)}
    state, events = move(state, [m for m in legal_moves(state) if m.pawn == 0][0])
    assert events[-1] == ExtraRoll(RED, ("six",))
    assert state.to_play == RED and state.pawns[YELLOW][0] == 16


def test_a_finished_player_with_the_partners_pawns_all_in_the_yard_gets_three_tries():
    state = finished_red(yellow=[Y] * 4)
    state, events = roll(state, 2)
    assert extra_roll_reasons(events) == [("try",)]


def test_the_pair_with_all_eight_home_wins():
    state = setup(
        PAIRS,
        position(red=[56] * 4, green=[56] * 4, yellow=[56, 56, 56, 53], blue=[30, Y, Y, Y]),
        to_play=YELLOW,
        placings=[GREEN, RED],
    )
    state, events = play(state, 3, 3)
    assert events[-2:] == (Finished(YELLOW, 3), Won(RED, (RED, YELLOW, GREEN, BLUE)))
    assert state.phase == "over" and state.winner == RED


def test_the_finished_partner_can_bring_the_pair_home():
    state = finished_red(yellow=[56, 56, 56, 55], blue=[30, Y, Y, Y])
    state, _ = roll(state, 1)
    state, events = move(state, legal_moves(state)[0])
    assert kinds(events)[-3:] == ["home", "finished", "won"]
    assert state.placings[:2] == (RED, YELLOW)


def test_one_finished_player_does_not_end_the_game():
    state = setup(PAIRS, position(red=[56, 56, 56, 53], yellow=[10, Y, Y, Y]))
    state, events = play(state, 3, 3)
    assert "won" not in kinds(events) and state.phase == "roll"
    assert events[-2:] == (Finished(RED, 1), ExtraRoll(RED, ("home",)))


def test_when_a_player_resigns_the_partner_leaves_too_and_the_other_pair_wins():
    state = setup(PAIRS, position(red=[10, Y, Y, Y], green=[20, Y, Y, Y]))
    state, events = resign(state, GREEN)
    assert kinds(events) == ["resigned", "resigned", "won"]
    assert state.out == (GREEN, BLUE)
    assert state.phase == "over" and state.placings[:2] in ((RED, YELLOW), (YELLOW, RED))
    assert set(state.placings[2:]) == {GREEN, BLUE}
    assert state.pawns[GREEN] == () and state.pawns[BLUE] == ()
