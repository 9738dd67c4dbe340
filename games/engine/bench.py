"""Random games through the public API, for speed: ``python -m games.engine.bench``.

Plays random games (a seeded `random.Random` picks rolls and moves; the engine itself draws
nothing) and prints games per second, rolls per game and the time per roll+move, on one core.
"""

from __future__ import annotations

import argparse
import random
import time

from . import legal_moves, move, new_game, roll, rules_from_name


def play_random(rules_name: str, players: int, rng: random.Random) -> int:
    """One random game to its end; returns the number of rolls. `rules_name` is a rule set's
    name in the notation (``classic``, ``classic+arms6+teams3``)."""
    state = new_game(rules_from_name(rules_name), players, first=0)
    rolls = 0
    rnd = rng.random
    while state.phase != "over":
        state, _ = roll(state, int(rnd() * 6) + 1)
        rolls += 1
        if state.phase == "move":
            moves = legal_moves(state)
            state, _ = move(state, moves[int(rnd() * len(moves))])
    return rolls


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rules", default="classic", help="classic, family+arms6, ...")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--games", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=3, help="best of this many runs")
    args = parser.parse_args(argv)
    best = float("inf")
    rolls = 0
    for _ in range(args.repeat):
        rng = random.Random(args.seed)
        start = time.perf_counter()
        rolls = sum(play_random(args.rules, args.players, rng) for _ in range(args.games))
        best = min(best, time.perf_counter() - start)
    print(
        f"{args.rules} {args.players} players: {args.games / best:,.0f} games/s "
        f"({rolls / args.games:.0f} rolls a game, {best / rolls * 1e6:.2f} us per roll+move, "
        f"best of {args.repeat} runs of {args.games} games)"
    )


if __name__ == "__main__":
    main()
