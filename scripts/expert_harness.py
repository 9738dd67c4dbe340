"""An independent measure of one bot against three others at a table of four, written apart
from `games.bots.tournament`: the engine contract only (`new_game`, `roll`, `legal_moves`,
`move`) and `BOTS[name].choose`; the measured bot's corner rotates over the four corners, the
first player rotates too (independently), dice and choices come from one `random.Random`.

    .venv/bin/python scripts/expert_harness.py --ruleset mensch --a expert --b hard \
        --games 300 --seed 11 [--first rotate|red|drawn]

`--first red` starts every game with red, as the site's practice games of mensch and family do
(`Match.draws_first`); `rotate` (the issue's harness) rotates it, `drawn` draws it from the
dice as online rooms do; `site` (the default) is red where the preset starts with red, else
drawn.
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from games.bots import BOTS  # noqa: E402
from games.engine import legal_moves, move, new_game, roll, rules_from_name  # noqa: E402


def wilson(wins: int, n: int, z: float = 1.96) -> tuple[float, float]:
    p = wins / n
    centre = p + z * z / (2 * n)
    margin = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return (centre - margin) / (1 + z * z / n), (centre + margin) / (1 + z * z / n)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--ruleset", default="mensch")
    parser.add_argument("--a", default="expert")
    parser.add_argument("--b", default="hard")
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--first", choices=("site", "rotate", "red", "drawn"), default="site")
    args = parser.parse_args()
    rules = rules_from_name(args.ruleset)
    rng = random.Random(args.seed)
    wins = starts = wins_started = 0
    begun = time.perf_counter()
    how = args.first
    if how == "site":
        how = "red" if rules.first_player == "red" else "drawn"
    for g in range(args.games):
        mine = g % 4
        if how == "rotate":
            first = (g // 4) % 4
        elif how == "red":
            first = 0
        else:
            first = rng.randrange(4)
        state = new_game(rules, 4, first=first)
        while state.phase != "over":
            state, _ = roll(state, rng.randint(1, 6))
            if state.phase == "move" and legal_moves(state):
                bot = BOTS[args.a if state.to_play == mine else args.b]
                chosen, _ = bot.choose(state, rng)
                state, _ = move(state, chosen)
        won = state.placings[0] == mine
        wins += won
        if first == mine:
            starts += 1
            wins_started += won
    low, high = wilson(wins, args.games)
    print(
        f"{args.ruleset}, 4 players, {args.games} games, seed {args.seed}, first {args.first}: "
        f"{args.a} against three {args.b} wins {wins}: {wins / args.games:.1%} "
        f"[{low:.1%}, {high:.1%}]; when it starts {wins_started}/{starts}; "
        f"{time.perf_counter() - begun:.0f} s"
    )


if __name__ == "__main__":
    main()
