"""Bot against bot on the engine alone (no database): win rates with their 95% intervals.

Seats rotate every game: side A takes one seat (with its partner in Pairs), side B the rest.
The games of one rotation share a dice seed, so each side meets the same luck from each seat.
"""

from __future__ import annotations

import math
import random
import time
from dataclasses import dataclass, field

from games.engine import Ruleset, State, move, new_game, roll, rules_from_name, rules_name

from . import BOTS
from .simple import Bot, RandomBot

POLICIES: dict[str, Bot] = {**BOTS, "random": RandomBot()}
MAX_ROLLS = 20_000


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


def run(
    rules: Ruleset | str,
    a: str,
    b: str,
    games: int,
    seed: int,
    players: int = 2,
) -> Result:
    """`games` games of `a` (one seat, rotating) against `b` (every other seat); `rules` is
    a Ruleset or its name with options (``party+pairs+power``)."""
    if isinstance(rules, str):
        rules = rules_from_name(rules)
    seats = rules.seats_for(players)
    result = Result(rules, players, a, b)
    rotation = 2 if rules.pairs else len(seats)
    start = time.perf_counter()
    for game in range(games):
        corner = seats[game % rotation]
        side_a = {corner, (corner + 2) % 4} if rules.pairs else {corner}
        bots = {c: POLICIES[a] if c in side_a else POLICIES[b] for c in seats}
        dice = random.Random(f"{seed}:dice:{game // rotation}")
        rng = random.Random(f"{seed}:bots:{game}")
        final, rolls = play_game(rules, players, bots, dice, rng, result.timing)
        result.games += 1
        result.rolls += rolls
        result.wins_a += final.placings[0] in side_a
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
