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
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from games.engine import Ruleset, State, legal_moves, move, new_game, roll, rules_from_name

from . import BOTS, TABLE_SETTINGS, Expert
from .analysis import analyse
from .chances import FALLBACK, FITTED, Params, Side, after_moves, params_for, race, resting, sides

MIX = ("hard", "medium", "greedy")
MAX_ROLLS = 20_000


@dataclass
class Sample:
    state: State
    found: list[Side]
    winner: int  # index in `found` of the side that won


def play(
    rules: Ruleset,
    players: int,
    rng: random.Random,
    keep: Callable[[State], bool],
    mix: Sequence[str] = MIX,
) -> tuple[list[State], State]:
    """One bot game (each seat a level of `mix` at random); the kept positions (phase "roll")
    and the final state."""
    seats = rules.seats_for(players)
    names = {c: rng.choice(mix) for c in seats}
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


def recorded(
    rules: Ruleset, players: int, level: Callable[[int], str], rng: random.Random
) -> tuple[State, list[tuple[Any, ...]]]:
    """One whole bot game (`level(corner)` names each seat's bot; the first seat starts) as
    `analysis.analyse` takes it: the start and the rolls and moves in order."""
    state = start = new_game(rules, players, first=rules.seats_for(players)[0])
    actions: list[tuple[Any, ...]] = []
    seq = 0
    while state.phase != "over":
        bot = BOTS[level(state.to_play)]
        bonus = bot.choose_bonus(state, rng) if rules.power else ""
        face = bot.choose_face(state, rng) if bonus == "control" else rng.randint(1, 6)
        seq += 1
        actions.append(("roll", seq, face, bonus))
        state, _ = roll(state, face, bonus=bonus)
        if state.phase == "move" and legal_moves(state):
            chosen, _ = bot.choose(state, rng)
            seq += 1
            actions.append(("move", seq, chosen, False))
            state, _ = move(state, chosen)
    return start, actions


def winner_team(state: State) -> set[int]:
    first = state.placings[0]
    return {first, (first + 2) % 4} if state.rules.pairs else {first}


def samples(
    table: str, players: int, games: int, seed: int, every: int = 6, mix: Sequence[str] = MIX
) -> list[Sample]:
    """Positions of `games` games (one in `every` rolls, at random), with the winning side."""
    rules = rules_from_name(table)
    rng = random.Random(f"{seed}:{table}:{players}")
    found = []
    for _ in range(games):
        kept, final = play(rules, players, rng, lambda s: rng.random() < 1.0 / every, mix)
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
    return Params(SPEED, *(math.exp(v) for v in x))


def fit(data: Sequence[Sample], start: Params, iterations: int = 60) -> Params:
    """Nelder-Mead over the logarithms of the spread, the yard price, the danger weight and
    the sharpness (the speed is fixed: `SPEED`)."""
    x0 = [math.log(max(v, 1e-3)) for v in start[1:]]
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
    data: Sequence[Sample], positions: int, games: int, seed: int, mix: Sequence[str] = MIX
) -> list[tuple[float, float]]:
    """For `positions` of the held-back positions: (the evaluator's chance of the side to
    play, the share of `games` games played on from there by the bot mix that it won)."""
    rng = random.Random(f"{seed}:rollouts")
    picked = rng.sample(list(data), min(positions, len(data)))
    found = []
    for s in picked:
        me = s.state.to_play
        team = {me, (me + 2) % 4} if s.state.rules.pairs else {me}
        predicted = resting(s.state)[me]
        wins = 0
        for _ in range(games):
            final = _play_on(s.state, rng, mix)
            wins += bool(winner_team(final) & team)
        found.append((predicted, wins / games))
    return found


def _play_on(state: State, rng: random.Random, mix: Sequence[str] = MIX) -> State:
    names = {c: rng.choice(mix) for c in state.seats}
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


@dataclass
class TableCheck:
    """One table's check on games the evaluator was not fitted to."""

    table: str
    players: int
    games: int
    positions: int
    loss: float  # mean log loss of the winning side's predicted chance
    even: float  # the same for even chances
    bins: list[Bin]
    rollouts: list[tuple[float, float]]  # (evaluator, rollouts' share) per held-back position
    rollout_games: int
    seconds: float  # CPU


def check(
    table: str,
    players: int,
    games: int,
    seed: int,
    positions: int = 0,
    rollout_games: int = 0,
    mix: Sequence[str] = MIX,
    every: int = 8,
) -> TableCheck:
    """Play `games` games of `mix` at one table, bin the evaluator's predictions of every side
    of a position in `every` against who won, and roll `rollout_games` games on from
    `positions` of those positions (picked at random)."""
    began = time.process_time()
    data = samples(table, players, games, seed, every=every, mix=mix)
    loss = log_loss(data, params_for(data[0].state)) if data else 0.0
    even = sum(math.log(len(s.found)) for s in data) / max(1, len(data))
    rolled = rollouts(data, positions, rollout_games, seed, mix) if positions else []
    return TableCheck(
        table,
        players,
        games,
        len(data),
        loss,
        even,
        calibration(data),
        rolled,
        rollout_games,
        time.process_time() - began,
    )


def fit_table(args: Sequence[Any]) -> tuple[str, int, Params, int, float]:
    """Fit one table (name, players, games, seed, iterations), for a process pool: a table in
    `FITTED` gets its sharpness refitted (`fit_sharp`), one not there all its prices (`fit`
    from `FALLBACK`). Gives (name, players, the prices, positions, CPU seconds)."""
    name, players, games, seed, iterations = args
    began = time.process_time()
    data = samples(name, players, games, seed, every=8)
    known = FITTED.get((name, players))
    fitted = fit(data, FALLBACK, iterations) if known is None else fit_sharp(data, known)
    return name, players, fitted, len(data), time.process_time() - began


def fit_sharp(data: Sequence[Sample], start: Params, steps: int = 24) -> Params:
    """`start` with its sharpness alone refitted (a golden-section search of its logarithm
    between 1/8 and 4 on the log loss): the race's confidence corrected to the outcomes."""
    ratio = (math.sqrt(5.0) - 1.0) / 2.0

    def f(x: float) -> float:
        return log_loss(data, start._replace(sharp=math.exp(x)))

    lo, hi = math.log(0.125), math.log(4.0)
    a, b = hi - ratio * (hi - lo), lo + ratio * (hi - lo)
    fa, fb = f(a), f(b)
    for _ in range(steps):
        if fa < fb:
            hi, b, fb = b, a, fa
            a = hi - ratio * (hi - lo)
            fa = f(a)
        else:
            lo, a, fa = a, b, fb
            b = lo + ratio * (hi - lo)
            fb = f(b)
    return start._replace(sharp=math.exp((lo + hi) / 2.0))


def check_star(args: Sequence[Any]) -> TableCheck:
    """`check(*args)`, for a process pool."""
    return check(*args)


def merged(checks: Sequence[TableCheck]) -> list[Bin]:
    """The bins of several tables' checks added up."""
    out = [Bin(b.low, b.high) for b in checks[0].bins] if checks else []
    for c in checks:
        for total, b in zip(out, c.bins, strict=True):
            total.count += b.count
            total.predicted += b.predicted
            total.won += b.won
    return out


def worst_gap(bins: Sequence[Bin], least: int = 200) -> float:
    """The largest |observed win rate - mean prediction| over bins of at least `least` sides."""
    gaps = [abs(b.won / b.count - b.predicted / b.count) for b in bins if b.count >= least]
    return max(gaps, default=0.0)


def agreement(args: Sequence[Any]) -> tuple[str, int, int, int]:
    """How often the evaluator's best move (`after_moves`, the report's and the Hint's) is the
    Expert's (as the dispute desk asks it: its table settings, no clock) at one table:
    (name, players, positions with a real choice, agreed). The positions: one roll in
    `every` of games of the bot mix (seed, games), each with a fresh roll."""
    name, players, games, seed = args
    rules = rules_from_name(name)
    rng = random.Random(f"{seed}:{name}:{players}:agreement")
    expert = Expert(depth=2, max_nodes=3000, clock=lambda: 0.0, tables=TABLE_SETTINGS)
    seen = agreed = 0
    for _ in range(games):
        kept, _ = play(rules, players, rng, lambda s: rng.random() < 1.0 / 8)
        for state in kept:
            rolled, _ = roll(state, rng.randint(1, 6))
            if rolled.phase != "move":
                continue
            groups: dict[Any, set[Any]] = {}
            for m in rolled.legal:
                after = move(rolled, m)[0]
                groups.setdefault((after.pawns, after.to_play, after.phase), set()).add(m)
            if len(groups) < 2:
                continue
            ours = after_moves(rolled)[0][0]
            theirs = expert.rank(rolled)[0][1]
            seen += 1
            agreed += any(ours in ms and theirs in ms for ms in groups.values())
    return name, players, seen, agreed


LUCK_LEVELS = ("beginner", "easy", "medium", "hard", "greedy")
PRESETS = ("classic", "family", "duel", "mensch", "quick", "party")


@dataclass
class LuckCheck:
    """One table's dice luck over whole bot games (`analysis.analyse`'s report of each): per
    seat and per level, each game's luck of that seat; and every seat's chance over each game
    taken apart (the sums over all seats and games of its change, luck, decisions, the other
    seats' turns and the rest of its own turns), with the largest gap of that identity."""

    table: str
    players: int
    games: int
    by_seat: dict[int, list[float]]
    by_level: dict[str, list[float]]
    rolls: int
    change: float
    luck: float
    lost: float
    others: float
    own: float
    worst_identity: float
    seconds: float  # CPU


def luck_check(args: Sequence[Any]) -> LuckCheck:
    """(name, players, games, seed): `games` whole games at one table, each seat a level of
    `LUCK_LEVELS` at random, every game analysed as a finished match is; for a process pool."""
    name, players, games, seed = args
    rules = rules_from_name(name)
    rng = random.Random(f"{seed}:{name}:{players}:luck")
    began = time.process_time()
    by_seat: dict[int, list[float]] = {c: [] for c in rules.seats_for(players)}
    by_level: dict[str, list[float]] = {level: [] for level in LUCK_LEVELS}
    totals = dict.fromkeys(("change", "luck", "lost", "others", "own"), 0.0)
    rolls = 0
    worst = 0.0
    for _ in range(games):
        names = {c: rng.choice(LUCK_LEVELS) for c in by_seat}
        start, actions = recorded(rules, players, names.__getitem__, rng)
        for key, seat in analyse(start, actions)["seats"].items():
            c = int(key)
            by_seat[c].append(seat["luck"])
            by_level[names[c]].append(seat["luck"])
            rolls += seat["rolls"]
            for term in totals:
                totals[term] += seat[term]
            parts = seat["luck"] - seat["lost"] + seat["others"] + seat["own"]
            worst = max(worst, abs(parts - seat["change"]))
    return LuckCheck(
        name,
        players,
        games,
        by_seat,
        by_level,
        rolls,
        worst_identity=worst,
        seconds=time.process_time() - began,
        **totals,
    )


def mean_interval(values: Sequence[float]) -> tuple[float, float]:
    """The mean and the half-width of its 95% interval (normal approximation)."""
    n = len(values)
    if n == 0:
        return 0.0, 0.0
    mean = sum(values) / n
    if n == 1:
        return mean, 0.0
    var = sum((v - mean) ** 2 for v in values) / (n - 1)
    return mean, 1.96 * math.sqrt(var / n)


def mean_gap(bins: Sequence[Bin]) -> float:
    """|observed win rate - mean prediction| averaged over every side (each bin weighed by its
    count): the calibration error."""
    total = sum(b.count for b in bins)
    return sum(abs(b.won - b.predicted) for b in bins) / total if total else 0.0


def tables() -> list[tuple[str, int]]:
    """Every table the site seats: each preset (with party's options) and size."""
    found = []
    for name in (
        "classic",
        "family",
        "duel",
        "mensch",
        "quick",
        "party",
        "party+power",
        "party+pairs",
        "party+pairs+power",
    ):
        rules = rules_from_name(name)
        low = 4 if rules.pairs else rules.min_players
        found += [(name, n) for n in range(low, rules.max_players + 1)]
    return found


__all__ = [
    "FITTED",
    "agreement",
    "Bin",
    "Sample",
    "TableCheck",
    "calibration",
    "check",
    "fit",
    "fit_sharp",
    "luck_check",
    "LuckCheck",
    "mean_interval",
    "mean_gap",
    "merged",
    "rollouts",
    "samples",
    "tables",
    "worst_gap",
]
