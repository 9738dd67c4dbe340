"""Play on for 2nd and 3rd place (a house rule, off by default): the game goes on after the
first player finishes, finished players are skipped, and the places follow the finishing
order, the last one left last."""

import random

import pytest

from games.engine import (
    RULESETS,
    Finished,
    TurnPassed,
    Won,
    legal_moves,
    move,
    new_game,
    roll,
    setup,
)
from games.engine.notation import rules_from_name, rules_name
from tests.engine.positions import Y, play

CLASSIC = RULESETS["classic"]
ON = CLASSIC.with_options(play_on=True)
GREEN, YELLOW, BLUE = 1, 2, 3


def test_off_by_default_the_first_to_finish_ends_a_classic_game():
    assert not CLASSIC.play_on and CLASSIC.ending == "first"
    state = setup(CLASSIC, {0: [56, 56, 56, 53], GREEN: [10, Y, Y, Y], YELLOW: [20, Y, Y, Y]})
    state, events = play(state, 3, 3)
    assert isinstance(events[-1], Won) and state.phase == "over"


def test_switched_on_the_game_plays_on_after_the_first_finishes():
    assert ON.play_on and ON.ending == "last" and ON.capture == CLASSIC.capture
    state = setup(ON, {0: [56, 56, 56, 53], GREEN: [10, Y, Y, Y], YELLOW: [20, Y, Y, Y]})
    state, events = play(state, 3, 3)
    assert events[-2:] == (Finished(0, 1), TurnPassed(0, GREEN))
    assert state.phase == "roll" and state.placings == (0,)


def test_the_finishing_order_places_the_rest_and_the_last_one_left_is_last():
    state = setup(
        ON,
        {0: [56] * 4, GREEN: [10, Y, Y, Y], YELLOW: [56] * 4, BLUE: [56, 56, 56, 55]},
        to_play=BLUE,
        placings=[YELLOW, 0],
    )
    state, events = play(state, 1, 3)
    assert events[-2:] == (Finished(BLUE, 3), Won(YELLOW, (YELLOW, 0, BLUE, GREEN)))
    assert state.phase == "over" and state.placings == (YELLOW, 0, BLUE, GREEN)


def test_its_name_round_trips_and_other_names_are_unchanged():
    assert rules_name(ON) == "classic+play_on"
    assert rules_from_name("classic+play_on") == ON
    assert rules_name(RULESETS["party"].with_options(pairs=True)) == "party+pairs"
    assert rules_name(CLASSIC) == "classic"


@pytest.mark.parametrize("seed", range(5))
def test_a_random_four_player_game_places_all_four_in_finishing_order(seed):
    rng = random.Random(seed)
    state = new_game(ON, 4, first=0)
    finished: list[int] = []
    for _ in range(20000):
        if state.phase == "over":
            break
        if state.phase == "roll":
            state, events = roll(state, rng.randint(1, 6))
        else:
            state, events = move(state, rng.choice(legal_moves(state)))
        finished += [e.corner for e in events if isinstance(e, Finished)]
    assert state.phase == "over"
    assert len(state.placings) == 4
    assert finished == list(state.placings[:3])
