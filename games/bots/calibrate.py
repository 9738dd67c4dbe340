"""Fitting and checking the winning-chances evaluator (`chances`) on bot games, pure.

`games` plays bot games (hard, medium and greedy at random seats: a spread of play) and keeps
positions with who won; `fit` fits a table's `Params` to them (Nelder-Mead on the log loss);
`calibration` bins predicted chances against the observed wins of other games; `rollouts`
compares the evaluator with the wins of whole games played on from held-back positions.
`manage.py evaluator_check` prints them.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from games.engine import Ruleset, State, legal_moves, move, new_game, roll, rules_from_name

from . import BOTS
from .chances import FITTED, Params, Side, params_for, race, resting, sides

MIX = ("hard", "medium", "greedy")
MAX_ROLLS = 20_000


@dataclass
class Sample:
    state: State
    found: list[Side]
    winner: int  # index in `found` of the side that won


def play(
    rules: Ruleset, players: int, rng: random.Random, keep: Callable[[State], bool]
) -> tuple[list[State], State]:
    """One bot game; the kept positions (phase "roll") and the final state."""
    seats = rules.seats_for(players)
    names = {c: rng.choice(MIX) for c in seats}
    state = new_game(rules, players, first=rng.choice(seats))
    kept = []
    rolls = 0
    while state.phase != "over":
        rolls += 1
        if rolls > MAX_ROLLS:
            raise RuntimeError(f"no end after {MAX_ROLLS} rolls")
        if keep(state):
            kept.append(state)
        bot = BOTS[names[state.to_play]]
        face = rng.randint(1, 6)
        bonus = bot.choose_bonus(state, rng) if rules.power else ""
        if bonus == "control":
            face = bot.choose_face(state, rng)
        state, _ = roll(state, face, bonus=bonus)
        if state.phase == "move" and legal_moves(state):
            state, _ = move(state, bot.choose(state, rng)[0])
    return kept, state


def winner_team(state: State) -> set[int]:
    first = state.placings[0]
    return {first, (first + 2) % 4} if state.rules.pairs else {first}


def samples(table: str, players: int, games: int, seed: int, every: int = 6) -> list[Sample]:
    """Positions of `games` games (one in `every` rolls, at random), with the winning side."""
    rules = rules_from_name(table)
    rng = random.Random(f"{seed}:{table}:{players}")
    found = []
    for _ in range(games):
        kept, final = play(rules, players, rng, lambda s: rng.random() < 1.0 / every)
        team = winner_team(final)
        for state in kept:
            if state.placings and not rules.pairs:
                continue  # settled: the evaluator knows the winner
            ss = sides(state)
            idx = [i for i, s in enumerate(ss) if set(s.corners) & team]
            if idx:
                found.append(Sample(state, ss, idx[0]))
    return found


def log_loss(data: Sequence[Sample], p: Params) -> float:
    total = 0.0
    for s in data:
        total -= math.log(max(1e-6, race(s.found, p)[s.winner]))
    return total / max(1, len(data))


SPEED = 3.0  # squares a round: only its ratio to the spread shows in the outcomes, so fixed


def _from(x: Sequence[float]) -> Params:
    return Params(SPEED, math.exp(x[0]), math.exp(x[1]), math.exp(x[2]))


def fit(data: Sequence[Sample], start: Params, iterations: int = 60) -> Params:
    """Nelder-Mead over the logarithms of the spread, the yard price and the danger weight
    (the speed is fixed: `SPEED`)."""
    x0 = [math.log(v) for v in start[1:]]
    dims = len(x0)

    def f(x: Sequence[float]) -> float:
        return log_loss(data, _from(x))

    simplex = [x0] + [[v + (0.4 if i == j else 0.0) for j, v in enumerate(x0)] for i in range(dims)]
    scored = sorted(((f(x), x) for x in simplex), key=lambda fx: fx[0])
    for _ in range(iterations):
        best, worst = scored[0], scored[-1]
        centre = [sum(x[i] for _, x in scored[:-1]) / dims for i in range(dims)]
        reflect = [c + (c - w) for c, w in zip(centre, worst[1], strict=True)]
        fr = f(reflect)
        if fr < best[0]:
            expand = [c + 2 * (c - w) for c, w in zip(centre, worst[1], strict=True)]
            fe = f(expand)
            scored[-1] = (fe, expand) if fe < fr else (fr, reflect)
        elif fr < scored[-2][0]:
            scored[-1] = (fr, reflect)
        else:
            contract = [c + 0.5 * (w - c) for c, w in zip(centre, worst[1], strict=True)]
            fc = f(contract)
            if fc < worst[0]:
                scored[-1] = (fc, contract)
            else:
                b = best[1]
                scored = [scored[0]] + [
                    (f(y), y)
                    for y in (
                        [bi + 0.5 * (xi - bi) for bi, xi in zip(b, x, strict=True)]
                        for _, x in scored[1:]
                    )
                ]
        scored.sort(key=lambda fx: fx[0])
    return _from(scored[0][1])


@dataclass
class Bin:
    low: float
    high: float
    count: int = 0
    predicted: float = 0.0
    won: int = 0


def calibration(data: Sequence[Sample], bins: int = 10) -> list[Bin]:
    """Every side of every position, binned by its predicted chance: the mean prediction
    against the share that won."""
    table = [Bin(k / bins, (k + 1) / bins) for k in range(bins)]
    for s in data:
        shares = race(s.found, params_for(s.state))
        for i, share in enumerate(shares):
            b = table[min(bins - 1, int(share * bins))]
            b.count += 1
            b.predicted += share
            b.won += i == s.winner
    return table


def rollouts(
    data: Sequence[Sample], positions: int, games: int, seed: int
) -> list[tuple[float, float]]:
    """For `positions` of the held-back positions: (the evaluator's chance of the side to
    play, the share of `games` games played on from there by the same bot mix that it won)."""
    rng = random.Random(f"{seed}:rollouts")
    picked = rng.sample(list(data), min(positions, len(data)))
    found = []
    for s in picked:
        me = s.state.to_play
        team = {me, (me + 2) % 4} if s.state.rules.pairs else {me}
        predicted = resting(s.state)[me]
        wins = 0
        for _ in range(games):
            final = _play_on(s.state, rng)
            wins += bool(winner_team(final) & team)
        found.append((predicted, wins / games))
    return found


def _play_on(state: State, rng: random.Random) -> State:
    names = {c: rng.choice(MIX) for c in state.seats}
    rules = state.rules
    rolls = 0
    while state.phase != "over":
        rolls += 1
        if rolls > MAX_ROLLS:
            raise RuntimeError(f"no end after {MAX_ROLLS} rolls")
        bot = BOTS[names[state.to_play]]
        face = rng.randint(1, 6)
        bonus = bot.choose_bonus(state, rng) if rules.power else ""
        if bonus == "control":
            face = bot.choose_face(state, rng)
        state, _ = roll(state, face, bonus=bonus)
        if state.phase == "move" and legal_moves(state):
            state, _ = move(state, bot.choose(state, rng)[0])
    return state


def tables() -> list[tuple[str, int]]:
    """Every table the site seats: each preset (with party's options) and size."""
    found = []
    for name in (
        "classic",
        "family",
        "duel",
        "mensch",
        "party",
        "party+power",
        "party+pairs",
        "party+pairs+power",
    ):
        rules = rules_from_name(name)
        low = 4 if rules.pairs else rules.min_players
        found += [(name, n) for n in range(low, rules.max_players + 1)]
    return found


__all__ = ["FITTED", "Bin", "Sample", "calibration", "fit", "rollouts", "samples", "tables"]
