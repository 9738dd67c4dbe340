"""The engine's speed beside ludopy's, in one run: random 4-player classic games a second.

    python scripts/engine_vs_ludopy.py [--games 3000] [--repeat 3]

Both play random games on one core, one after the other in the same process, timed in CPU
seconds (other work on the machine does not count): ours through the engine contract
(`games.engine.bench.play_random`: `new_game`, `roll`, `legal_moves`, `move`, a seeded
`random.Random` picking the die and the move), ludopy's through its `Game` (its own numpy die,
a random legal piece). ludopy is not a requirement of the project: install it
anywhere (``python3 -m venv /tmp/ludopy-venv && /tmp/ludopy-venv/bin/pip install ludopy``) and
run this script with that venv's Python (the engine is pure Python, it needs nothing else), or
point ``LUDOPY_SITE`` at that venv's site-packages. Without ludopy it prints the engine's
figure alone and says so.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
if os.environ.get("LUDOPY_SITE"):
    sys.path.append(os.environ["LUDOPY_SITE"])

from games.engine.bench import play_random  # noqa: E402


def engine(games: int, seed: int) -> tuple[float, int]:
    """Seconds for `games` random games of classic for four, and their rolls."""
    rng = random.Random(seed)
    began = time.process_time()
    rolls = sum(play_random("classic", 4, rng) for _ in range(games))
    return time.process_time() - began, rolls


def ludopy_games(games: int, seed: int) -> tuple[float, int]:
    """The same for ludopy (its die is numpy's, seeded here)."""
    import ludopy  # type: ignore[import-not-found]
    import numpy as np  # type: ignore[import-not-found]

    np.random.seed(seed)
    rng = random.Random(seed)
    rolls = 0
    began = time.process_time()
    for _ in range(games):
        game = ludopy.Game()
        over = False
        while not over:
            (_, pieces, _, _, _, over), _ = game.get_observation()
            rolls += 1
            piece = pieces[int(rng.random() * len(pieces))] if len(pieces) else -1
            _, _, _, _, _, over = game.answer_observation(piece)
    return time.process_time() - began, rolls


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=3000, help="games of each, a run")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=3, help="best of this many runs")
    args = parser.parse_args(argv)
    try:
        import ludopy  # type: ignore[import-not-found]  # noqa: F401
    except ImportError:
        have_ludopy = False
    else:
        have_ludopy = True
    ours = theirs = float("inf")
    our_rolls = their_rolls = 0
    for k in range(args.repeat):
        spent, our_rolls = engine(args.games, args.seed + k)
        ours = min(ours, spent)
        if have_ludopy:
            spent, their_rolls = ludopy_games(args.games, args.seed + k)
            theirs = min(theirs, spent)
    print(
        f"engine: {args.games / ours:,.0f} games/s ({our_rolls / args.games:.0f} rolls a game, "
        f"best of {args.repeat} runs of {args.games} games)"
    )
    if not have_ludopy:
        print("ludopy: not importable here (see this script's note); engine figure only")
        return
    print(
        f"ludopy: {args.games / theirs:,.0f} games/s ({their_rolls / args.games:.0f} rolls a "
        f"game, same runs)"
    )
    print(f"engine / ludopy: {theirs / ours:.1f}x")


if __name__ == "__main__":
    main()
