"""Whole random games of every preset, option and player count reach their end, and every
position on the way round-trips through the notation."""

import random

import pytest

from games.engine import (
    RULESETS,
    STORED_BONUSES,
    Ruleset,
    dumps,
    legal_moves,
    loads,
    move,
    new_game,
    resign,
    roll,
    rules_name,
)

VARIANTS = [
    RULESETS["classic"],
    RULESETS["family"],
    RULESETS["duel"],
    RULESETS["mensch"],
    RULESETS["mensch"].with_options(compulsory_capture=True, no_jump_home_column=True),
    RULESETS["mensch"].with_options(optional_bring_out=True),
    RULESETS["party"],
    RULESETS["party"].with_options(pairs=True),
    RULESETS["party"].with_options(power=True),
    RULESETS["party"].with_options(pairs=True, power=True),
    RULESETS["classic"].with_options(arms=6),
    RULESETS["family"].with_options(arms=6),
    RULESETS["classic"].with_options(teams=2),
    RULESETS["classic"].with_options(arms=6, teams=2),
    RULESETS["classic"].with_options(arms=6, teams=3),
]
CASES = [
    (rules, players)
    for rules in VARIANTS
    for players in range(rules.min_players, rules.max_players + 1)
    if not (rules.pairs and players != 4) and not (rules.teams and players != rules.arms)
]


def play(rules, players, rng, resign_rate=0.0):
    state = new_game(rules, players, first=rules.seats_for(players)[0])
    for _ in range(20_000):
        if state.phase == "over":
            return state
        bonus = ""
        if rules.power and rng.random() < 0.3:
            kind = rng.choice(STORED_BONUSES)
            if state.stock[state.to_play][STORED_BONUSES.index(kind)] and state.bonus in ("", kind):
                bonus = kind
        state, _ = roll(state, rng.randint(1, 6), bonus=bonus)
        assert loads(dumps(state)) == state
        if state.phase == "move":
            state, _ = move(state, rng.choice(legal_moves(state)))
            assert loads(dumps(state)) == state
        if state.phase != "over" and rng.random() < resign_rate:
            playing = [c for c in state.seats if c not in state.out + state.placings]
            state, _ = resign(state, rng.choice(playing))
    raise AssertionError(f"no end after 20,000 rolls: {dumps(state)}")


@pytest.mark.parametrize(
    ("rules", "players"), CASES, ids=lambda x: rules_name(x) if isinstance(x, Ruleset) else x
)
def test_random_games_end_with_every_seat_placed(rules, players):
    rng = random.Random(players)
    for _ in range(15):
        state = play(rules, players, rng, resign_rate=0.002)
        assert sorted(state.placings) == sorted(state.seats)
        assert state.winner == state.placings[0]
