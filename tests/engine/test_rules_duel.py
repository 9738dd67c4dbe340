"""`duel`: two players in opposite corners; every rival pawn on the square goes home,
a pair included; a capture or a pawn home starts the sixes-in-a-row count again."""

import pytest

from games.engine import (
    RULESETS,
    Captured,
    ExtraRoll,
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

DUEL = RULESETS["duel"]
YELLOW = 2


def test_two_players_sit_in_opposite_corners_and_no_more():
    assert new_game(DUEL, 2).seats == (0, YELLOW)
    with pytest.raises(ValueError, match="2 players, not 3"):
        new_game(DUEL, 3)


def test_worked_example_from_the_start_square_a_pawn_takes_56_steps_home():
    state = setup(DUEL, {0: [0, Y, Y, Y], YELLOW: [Y] * 4})
    steps = 0
    # 50 round the shared track, 5 up its own lane and one onto home.
    for face in [5] * 10 + [5, 1]:
        state, _ = roll(state, face)
        state, events = move(state, the_move(state, 0))
        steps += face
        while state.to_play != 0:
            state, _ = roll(state, 2)  # Yellow has nothing out
        if steps == 50:
            assert state.pawns[0][0] == DUEL.last_track
        if steps == 55:
            assert state.pawns[0][0] == 55  # the last square of its own lane
    assert steps == 56 and state.pawns[0][0] == DUEL.goal
    assert kinds(events)[-2:] == ["home", "extra_roll"]


def test_from_the_start_square_no_roll_carries_a_pawn_past_home():
    state = setup(DUEL, {0: [52, Y, Y, 56], YELLOW: [Y] * 4})
    for face in (5, 6):
        after, _ = roll(state, face)
        assert 0 not in pawn_targets(after)


def test_landing_on_a_rival_pair_sends_both_pawns_to_the_yard():
    y = on(DUEL, YELLOW, 20)
    state = setup(DUEL, {0: [15, Y, Y, Y], YELLOW: [y, y, 30, Y]})
    state, events = play(state, 5, 0)
    captured = [e for e in events if isinstance(e, Captured)]
    assert captured == [Captured(YELLOW, 0, 0, 20), Captured(YELLOW, 1, 0, 20)]
    assert state.pawns[YELLOW] == (Y, Y, 30, Y)
    assert events[-1] == ExtraRoll(0, ("capture",))


def test_the_safe_squares_protect_a_pair_too():
    y = on(DUEL, YELLOW, 21)
    state = setup(DUEL, {0: [15, Y, Y, Y], YELLOW: [y, y, Y, Y]})
    state, _ = roll(state, 6)
    assert the_move(state, 0).captures == ()


def test_a_6_a_capture_or_a_pawn_home_give_one_extra_roll():
    state = setup(DUEL, {0: [14, 50, Y, Y], YELLOW: [on(DUEL, YELLOW, 20), Y, Y, Y]})
    state, events = play(state, 6, 0)
    assert extra_roll_reasons(events) == [("six", "capture")]
    state, events = play(state, 6, 1)
    assert extra_roll_reasons(events) == [("six", "home")]


def test_the_third_six_is_forfeited_and_the_earlier_moves_stay():
    state = setup(DUEL, {0: [10, Y, Y, Y], YELLOW: [Y] * 4})
    state, _ = play(state, 6, 0)
    state, _ = play(state, 6, 0)
    state, events = roll(state, 6)
    assert events == (Rolled(0, 6, 6), SixForfeited(0, 3), TurnPassed(0, YELLOW))
    assert state.pawns[0] == (22, Y, Y, Y)


def test_a_capture_starts_the_sixes_count_again():
    state = setup(DUEL, {0: [10, Y, Y, Y], YELLOW: [on(DUEL, YELLOW, 22), Y, Y, Y]})
    state, _ = play(state, 6, 0)  # first six
    assert state.sixes == 1
    state, events = play(state, 6, 0)  # second six captures on square 22
    assert "captured" in kinds(events)
    assert state.sixes == 0
    state, _ = play(state, 6, 0)
    state, _ = play(state, 6, 0)
    assert state.sixes == 2 and state.to_play == 0
    state, events = roll(state, 6)
    assert "six_forfeited" in kinds(events)


def test_a_pawn_home_starts_the_sixes_count_again():
    state = setup(DUEL, {0: [10, 50, Y, Y], YELLOW: [Y] * 4})
    state, _ = play(state, 6, 0)
    state, events = play(state, 6, 1)  # 50 + 6 = home
    assert "home" in kinds(events) and state.sixes == 0
    state, _ = play(state, 6, 0)
    state, _ = play(state, 6, 0)
    assert state.to_play == 0 and state.sixes == 2


def test_the_same_sixes_in_classic_forfeit_the_third():
    # Contrast: classic keeps counting through a capture.
    classic = RULESETS["classic"]
    state = setup(classic, {0: [10, Y, Y, Y], YELLOW: [on(classic, YELLOW, 22), Y, Y, Y]})
    state, _ = play(state, 6, 0)
    state, _ = play(state, 6, 0)
    state, events = roll(state, 6)
    assert "six_forfeited" in kinds(events)


def test_a_six_no_pawn_can_use_rolls_again():
    state = setup(DUEL, {0: [52, 53, 54, 56], YELLOW: [Y] * 4})
    state, events = roll(state, 6)
    assert events[-1] == ExtraRoll(0, ("unusable_six",))
    assert legal_moves(state) == () and state.to_play == 0


def test_the_first_with_four_home_wins():
    state = setup(DUEL, {0: [56, 56, 56, 55], YELLOW: [56, 56, 56, 10]})
    state, events = play(state, 1, 3)
    assert kinds(events)[-2:] == ["finished", "won"]
    assert state.placings == (0, YELLOW) and state.winner == 0


def test_clock_rules_as_data():
    assert (DUEL.turn_seconds, DUEL.on_timeout, DUEL.timeouts_to_forfeit) == (20, "auto_move", 3)
    assert (DUEL.disconnect_seconds, DUEL.on_disconnect) == (60, "forfeit")
    assert DUEL.first_player == "random"
