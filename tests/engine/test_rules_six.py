"""`classic` and `family` on the six-arm board (docs/rules.md, "Six arms and Team-Up"): six
arms of 13, track 78, starts 13 apart, stars 8 past each start, 82 steps, seating for 2 to 6."""

import dataclasses

import pytest

from games.engine import (
    MARKS,
    RULESETS,
    Captured,
    IllegalAction,
    State,
    dumps,
    legal_moves,
    loads,
    move,
    new_game,
    roll,
    rules_from_name,
    rules_name,
    setup,
)
from tests.engine.positions import Y, kinds, on, play, square_of, targets

SIX = RULESETS["classic"].with_options(arms=6)
FAMILY_SIX = RULESETS["family"].with_options(arms=6)
RED, GREEN, YELLOW, BLUE, ORANGE, PURPLE = range(6)


def test_the_six_arm_board_has_78_squares_starts_13_apart_and_82_steps():
    for rules in (SIX, FAMILY_SIX):
        assert (rules.track_len, rules.quarter, rules.last_track, rules.goal) == (78, 13, 76, 82)
        assert rules.safe == frozenset({0, 13, 26, 39, 52, 65, 8, 21, 34, 47, 60, 73})
        assert rules.colours == ("red", "green", "yellow", "blue", "orange", "purple")
        assert [MARKS[c] for c in rules.colours[4:]] == ["square", "cross"]
        assert rules.capture == RULESETS[rules.name].capture


def test_each_of_the_six_corners_comes_out_on_its_own_start_square():
    for corner in range(6):
        state = setup(SIX, {corner: [Y] * 4, (corner + 3) % 6: [Y] * 4}, corner)
        state, _ = roll(state, 6)
        assert {m.square for m in legal_moves(state)} == {13 * corner}


def test_a_pawn_takes_82_steps_from_its_start_to_home():
    state = setup(SIX, {RED: [76, Y, Y, Y], BLUE: [Y] * 4})
    state, _ = roll(state, 6)
    assert targets(state)[(RED, 0)] == 82
    # Past the track's last square (76) the pawn turns into its home column (77..81).
    assert legal_moves(state)[0].square == -1
    state = setup(SIX, {RED: [81, Y, Y, Y], BLUE: [Y] * 4})
    state, events = play(state, 1, 0)
    assert "home" in kinds(events) and state.pawns[RED][0] == 82
    state = setup(SIX, {RED: [80, Y, Y, Y], BLUE: [Y] * 4})
    state, _ = roll(state, 3)
    assert state.phase == "roll" and state.to_play == BLUE  # exact finish


def test_purple_captures_across_the_end_of_the_78_square_track():
    # Purple starts on square 65: progress 15 is square 2, where Red's lone pawn stands.
    state = setup(SIX, {PURPLE: [11, Y, Y, Y], RED: [2, Y, Y, Y]}, PURPLE)
    assert square_of(SIX, PURPLE, 15) == 2
    state, events = play(state, 4, 0)
    assert [e for e in events if isinstance(e, Captured)] == [Captured(RED, 0, PURPLE, 2)]
    assert state.pawns[RED] == (Y, Y, Y, Y) and state.to_play == PURPLE  # classic: roll again


def test_orange_captures_on_square_70_and_not_on_purples_start_or_star():
    state = setup(SIX, {ORANGE: [16, 8, 13, Y], PURPLE: [5, 0, Y, Y]}, ORANGE)
    state, _ = roll(state, 2)
    moves = {m.pawn: m for m in legal_moves(state)}
    assert moves[0].square == 70 and moves[0].captures == ((PURPLE, 0),)
    assert on(SIX, PURPLE, 70) == 5
    # Square 65 (Purple's start, where Purple's pawn 1 stands) and 73 (its star) are safe.
    state = setup(SIX, {ORANGE: [11, 19, Y, Y], PURPLE: [0, 8, Y, Y]}, ORANGE)
    state, _ = roll(state, 2)
    assert {m.square: m.captures for m in legal_moves(state)} == {65: (), 73: ()}


def test_family_on_six_arms_captures_only_a_lone_pawn():
    state = setup(FAMILY_SIX, {RED: [15, Y, Y, Y], BLUE: [on(FAMILY_SIX, BLUE, 20)] * 2 + [Y, Y]})
    state, _ = roll(state, 5)
    assert legal_moves(state)[0].captures == ()
    state = setup(FAMILY_SIX, {RED: [15, Y, Y, Y], BLUE: [on(FAMILY_SIX, BLUE, 20), Y, Y, Y]})
    state, events = play(state, 5, 0)
    assert kinds(events) == ["rolled", "moved", "captured", "turn_passed"]


@pytest.mark.parametrize(
    ("players", "seats"),
    [
        (2, (0, 3)),
        (3, (0, 2, 4)),
        (4, (0, 1, 3, 4)),
        (5, (0, 1, 2, 3, 4)),
        (6, (0, 1, 2, 3, 4, 5)),
    ],
)
def test_players_sit_as_far_apart_as_the_arms_allow(players, seats):
    for rules in (SIX, FAMILY_SIX):
        state = new_game(rules, players)
        assert state.seats == seats
        assert len(state.pawns) == 6
        assert [c for c in range(6) if state.pawns[c]] == list(seats)


def test_turns_go_clockwise_round_the_seated_corners():
    state = new_game(SIX, 4)
    order = []
    for _ in range(5):
        state, _ = roll(state, 1)
        order.append(state.to_play)
    assert order == [1, 3, 4, 0, 1]


def test_one_or_seven_players_are_refused():
    for players in (1, 7):
        with pytest.raises(ValueError, match="2 to 6"):
            new_game(SIX, players)


def test_only_classic_and_family_are_played_on_six_arms():
    for name in ("duel", "mensch", "quick", "party"):
        with pytest.raises(ValueError, match=f"no option arms|{name} is not played"):
            RULESETS[name].with_options(arms=6)
    with pytest.raises(ValueError, match="4 or 6 arms"):
        RULESETS["classic"].with_options(arms=5)


def test_the_four_arm_board_keeps_its_coordinates_exactly():
    classic = RULESETS["classic"]
    assert (classic.arms, classic.track_len, classic.goal) == (4, 52, 56)
    assert len(new_game(classic, 4).pawns) == 4
    back = dataclasses.replace(SIX, arms=4)
    assert back == classic and back.board.square == classic.board.square


def test_the_notation_carries_six_corners():
    state = setup(SIX, {RED: [0, 12, 76, 82], ORANGE: [Y, 40, 80, Y], PURPLE: [1, Y, Y, Y]}, ORANGE)
    text = dumps(state)
    assert text == "classic+arms6 to=4 phase=roll pawns=0,12,76,h/-/-/-/y,40,80,y/1,y,y,y"
    assert loads(text) == state and State.parse(text) == state
    assert rules_name(FAMILY_SIX) == "family+arms6"
    assert rules_from_name("family+arms6") is rules_from_name("family+arms6")
    with pytest.raises(IllegalAction, match="six corners"):
        loads("classic+arms6 to=0 pawns=y,y,y,y/-/y,y,y,y/-")
    with pytest.raises(IllegalAction, match="0 to 5"):
        loads("classic+arms6 to=0 seats=07 pawns=y,y,y,y/-/-/y,y,y,y/-/-")
    with pytest.raises(IllegalAction, match="Unknown option"):
        rules_from_name("classic+arms")


def test_a_move_on_six_arms_passes_the_turn_to_the_next_seat():
    state = setup(SIX, {RED: [3, Y, Y, Y], BLUE: [Y] * 4, PURPLE: [Y] * 4})
    state, _ = roll(state, 2)
    state, events = move(state, legal_moves(state)[0])
    assert state.to_play == BLUE and state.pawns[RED][0] == 5
    assert events[-1].kind == "turn_passed"
