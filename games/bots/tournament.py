"""Bot against bot on the engine alone (no database): win rates with their 95% intervals.

Seats rotate every game: side A takes one seat (with its partner in Pairs), side B the rest.
The games of one rotation share a dice seed, so each side meets the same luck from each seat.
"""

from __future__ import annotations

import math
import multiprocessing
import random
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field

from games.engine import Ruleset, State, move, new_game, roll, rules_from_name, rules_name

from . import BOTS
from .simple import Bot, RandomBot

POLICIES: dict[str, Bot] = {**BOTS, "random": RandomBot()}
MAX_ROLLS = 20_000
# Four-player tables: every preset that seats four, party with and without its options.
TABLES = (
    "classic",
    "family",
    "mensch",
    "quick",
    "party",
    "party+pairs",
    "party+power",
    "party+pairs+power",
)
# The ladder: each level against a random mover, head to head (duel rules).
LADDER_RULES = "duel"
LADDER_OPPONENT = "random"


@dataclass
class Timing:
    """The CPU time a policy took per move: every call, and the calls with a real choice
    (CPU time, so that other work on a shared machine does not count)."""

    calls: int = 0
    total: float = 0.0
    longest: float = 0.0
    choices: int = 0
    choice_total: float = 0.0

    def add(self, seconds: float, choice: bool) -> None:
        self.calls += 1
        self.total += seconds
        self.longest = max(self.longest, seconds)
        if choice:
            self.choices += 1
            self.choice_total += seconds

    def merge(self, other: Timing) -> None:
        """Add another process's count for the same policy."""
        self.calls += other.calls
        self.total += other.total
        self.longest = max(self.longest, other.longest)
        self.choices += other.choices
        self.choice_total += other.choice_total


@dataclass
class Result:
    rules: Ruleset
    players: int
    a: str
    b: str
    games: int = 0
    wins_a: int = 0
    seconds: float = 0.0
    rolls: int = 0
    timing: dict[str, Timing] = field(default_factory=dict)

    @property
    def wins_b(self) -> int:
        return self.games - self.wins_a


def wilson(wins: int, games: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval for a win rate (95% for z = 1.96)."""
    if games == 0:
        return 0.0, 1.0
    p = wins / games
    centre = p + z * z / (2 * games)
    margin = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games))
    scale = 1 + z * z / games
    return max(0.0, (centre - margin) / scale), min(1.0, (centre + margin) / scale)


def play_game(
    rules: Ruleset,
    players: int,
    bots: dict[int, Bot],
    dice: random.Random,
    rng: random.Random,
    timing: dict[str, Timing] | None = None,
) -> tuple[State, int]:
    """One game to its end: `bots` maps each seated corner to its policy; `dice` rolls, `rng`
    is the bots' own random source. Returns the final state and the number of rolls."""
    seats = rules.seats_for(players)
    first = seats[0] if rules.first_player == "red" else dice.choice(seats)
    state = new_game(rules, players, first=first)
    timing = {} if timing is None else timing
    rolls = 0
    while state.phase != "over":
        rolls += 1
        if rolls > MAX_ROLLS:
            raise RuntimeError(f"no end after {MAX_ROLLS} rolls: {state!r}")
        bot = bots[state.to_play]
        face = dice.randint(1, 6)  # drawn every roll, so a bonus does not shift later rolls
        bonus = ""
        if rules.power:
            start = time.process_time()
            bonus = bot.choose_bonus(state, rng)
            if bonus == "control":
                face = bot.choose_face(state, rng)
            timing.setdefault(f"{bot.name} (bonus)", Timing()).add(
                time.process_time() - start, any(state.stock[state.to_play])
            )
        state, _ = roll(state, face, bonus=bonus)
        if state.phase == "move":
            start = time.process_time()
            chosen, reason = bot.choose(state, rng)
            spent = time.process_time() - start
            timing.setdefault(bot.name, Timing()).add(spent, len(state.legal) > 1)
            if not reason:
                raise RuntimeError(f"{bot.name} gave no reason for {chosen} in {state!r}")
            state, _ = move(state, chosen)
    return state, rolls


def _play(
    rules: Ruleset, a: str, b: str, games: range, seed: int, players: int
) -> tuple[int, int, int, dict[str, Timing]]:
    """Games number `games` of a tournament: (games, wins of side A, rolls, timing). Each
    game's seats and dice follow from its number alone, so any split plays the same games."""
    seats = rules.seats_for(players)
    rotation = 2 if rules.pairs else len(seats)
    timing: dict[str, Timing] = {}
    wins = rolls = 0
    for game in games:
        corner = seats[game % rotation]
        side_a = {corner, (corner + 2) % 4} if rules.pairs else {corner}
        bots = {c: POLICIES[a] if c in side_a else POLICIES[b] for c in seats}
        dice = random.Random(f"{seed}:dice:{game // rotation}")
        rng = random.Random(f"{seed}:bots:{game}")
        final, n = play_game(rules, players, bots, dice, rng, timing)
        rolls += n
        wins += final.placings[0] in side_a
    return len(games), wins, rolls, timing


def run(
    rules: Ruleset | str,
    a: str,
    b: str,
    games: int,
    seed: int,
    players: int = 2,
    jobs: int = 1,
) -> Result:
    """`games` games of `a` (one seat, rotating) against `b` (every other seat); `rules` is
    a Ruleset or its name with options (``party+pairs+power``). `jobs` > 1 plays them in that
    many processes: the same games, the same wins."""
    if isinstance(rules, str):
        rules = rules_from_name(rules)
    rules.seats_for(players)  # refuses a table the rule set does not seat
    result = Result(rules, players, a, b)
    start = time.perf_counter()
    if jobs <= 1:
        parts = [_play(rules, a, b, range(games), seed, players)]
    else:
        # Every job takes every jobs-th game, so that each gets its share of every seat.
        with ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("spawn")) as pool:
            futures = [
                pool.submit(_play, rules, a, b, range(k, games, jobs), seed, players)
                for k in range(jobs)
            ]
            parts = [f.result() for f in futures]
    for played, wins, rolls, timing in parts:
        result.games += played
        result.wins_a += wins
        result.rolls += rolls
        for name, t in timing.items():
            result.timing.setdefault(name, Timing()).merge(t)
    result.seconds = time.perf_counter() - start
    return result


def report(result: Result) -> list[str]:
    """The lines the `bot_tournament` command prints."""
    n = result.games
    lines = [
        f"{rules_name(result.rules)}, {result.players} players, {n} games: "
        f"{result.a} (one seat, rotating) against {result.b}"
    ]
    for name, wins in ((result.a, result.wins_a), (result.b, result.wins_b)):
        low, high = wilson(wins, n)
        rate = wins / n if n else 0.0
        lines.append(
            f"  {name:<8} wins {wins:>5} of {n}: {rate:6.1%}"
            f"  (95% interval {low:.1%} to {high:.1%})"
        )
    speed = n / result.seconds if result.seconds else 0.0
    lines.append(f"  {speed:.1f} games/s, {result.rolls / max(n, 1):.0f} rolls a game")
    for name, t in sorted(result.timing.items()):
        mean = t.total / t.calls * 1000 if t.calls else 0.0
        choice = t.choice_total / t.choices * 1000 if t.choices else 0.0
        if name.endswith("(bonus)"):
            # Power: the choice of a bonus before each roll; "with a choice" = some stock.
            lines.append(
                f"  {name:<8} CPU {mean:.2f} ms mean per roll ({t.calls} rolls), "
                f"{choice:.2f} ms mean with stock ({t.choices}), {t.longest * 1000:.1f} ms max"
            )
            continue
        lines.append(
            f"  {name:<8} CPU {mean:.2f} ms mean per move ({t.calls} moves), "
            f"{choice:.2f} ms mean with a choice ({t.choices}), {t.longest * 1000:.1f} ms max"
        )
    return lines


def ladder(games: int, seed: int, levels: list[str] | None = None, jobs: int = 1) -> list[Result]:
    """Each level's strength: `games` duel games against a random mover, seats rotating."""
    return [
        run(LADDER_RULES, name, LADDER_OPPONENT, games, seed, 2, jobs)
        for name in levels or list(BOTS)
    ]


def ladder_data(results: list[Result], seed: int) -> dict[str, object]:
    """The ladder as the site stores it (games/bots/ladder.json): each level's wins against a
    random mover with the 95% interval, in the order of `results`."""
    levels = []
    for r in results:
        low, high = wilson(r.wins_a, r.games)
        levels.append(
            {
                "level": r.a,
                "wins": r.wins_a,
                "games": r.games,
                "rate": round(r.wins_a / r.games, 4),
                "low": round(low, 4),
                "high": round(high, 4),
            }
        )
    return {
        "rules": LADDER_RULES,
        "players": 2,
        "opponent": LADDER_OPPONENT,
        "seed": seed,
        "command": f"manage.py bot_tournament --ladder --games {results[0].games if results else 0}"
        f" --seed {seed}",
        "levels": levels,
    }


def out_of_order(data: dict[str, object]) -> list[str]:
    """The levels whose measured rate is not above the one before (empty: strictly rising)."""
    levels = data["levels"]
    assert isinstance(levels, list)
    return [
        f"{b['level']} ({b['rate']:.1%}) is not above {a['level']} ({a['rate']:.1%})"
        for a, b in zip(levels, levels[1:], strict=False)
        if b["rate"] <= a["rate"]
    ]


def ladder_report(data: dict[str, object]) -> list[str]:
    """The lines `bot_tournament --ladder` prints."""
    levels = data["levels"]
    assert isinstance(levels, list)
    games = levels[0]["games"] if levels else 0
    lines = [
        f"ladder: {data['rules']}, 2 players, {games} games a level against a random mover "
        f"(seats rotating, seed {data['seed']})"
    ]
    for row in levels:
        lines.append(
            f"  {row['level']:<8} wins {row['wins']:>5} of {row['games']}: {row['rate']:6.1%}"
            f"  (95% interval {row['low']:.1%} to {row['high']:.1%})"
        )
    return lines


def summary(results: list[Result]) -> list[str]:
    """One line a table: side A's win rate with its interval and its fair share."""
    lines = []
    for r in results:
        low, high = wilson(r.wins_a, r.games)
        side = 2 if r.rules.pairs else 1
        fair = side / r.players
        lines.append(
            f"  {rules_name(r.rules):<18} {r.a} {r.wins_a:>4}/{r.games}: {r.wins_a / r.games:6.1%}"
            f"  [{low:.1%}, {high:.1%}]  (fair share {fair:.0%})"
        )
    return lines
