"""How long a four-player match lasts at the room's pace, over many bot games (issue 30: the
quick preset must end in 5-10 minutes at a person's pace).

    .venv/bin/python scripts/quick_lengths.py [--games 1000] [--ruleset quick] [--bot hard]
        [--players 4]

Each game is played by the engine and four bots of one level; every action is timed as the
room paces a person: a roll ROLL_S after the turn comes to them (tap, the die lands), a move
among several choices CHOOSE_S, a lone move the server's pause (LUDO_BOT_DELAY, 0.8 s), each
square walked the board's 150 ms step, and a roll that no pawn can use the pause before the
die passes on (LUDO_PASS_PAUSE, 1.5 s). Prints the median and the 90th and 95th percentiles
in minutes (the 95th: a Swiss round's default length, TOURNAMENT_ROUND_MINUTES), with the
rolls per game. Pure engine and bots: no server, no database."""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from games.bots import BOTS  # noqa: E402
from games.engine import RULESETS, Ruleset, move, new_game, roll  # noqa: E402

ROLL_S = 1.5  # from the turn coming to a person to the die showing its face
CHOOSE_S = 2.0  # a person picking one of several moves
LONE_S = 0.8  # the server plays a lone move after LUDO_BOT_DELAY
STEP_S = 0.15  # the board walks a pawn 150 ms a square (static/js/board.js)
PASS_S = 1.5  # a roll no pawn can use: LUDO_PASS_PAUSE before the die passes on


def one_game(rules_name: str | Ruleset, bot: str, seed: int, players: int = 4) -> tuple[float, int]:
    """(seconds at the room's pace, rolls) of one game of `players`."""
    rules = RULESETS[rules_name] if isinstance(rules_name, str) else rules_name
    dice = random.Random(f"{seed}:dice")
    rng = random.Random(f"{seed}:bots")
    player = BOTS[bot]
    state = new_game(rules, players, first=dice.choice(rules.seats_for(players)))
    seconds, rolls = 0.0, 0
    while state.phase != "over":
        rolls += 1
        player_was = state.to_play
        state, _ = roll(state, dice.randint(1, 6))
        seconds += ROLL_S
        if state.phase != "move":
            # Nothing to move: the die passes on after a pause (an extra try has none).
            seconds += PASS_S if state.to_play != player_was or state.phase == "over" else 0.0
            continue
        choices = {(m.frm, m.to) for m in state.legal}
        chosen, _ = player.choose(state, rng)
        seconds += CHOOSE_S if len(choices) > 1 else LONE_S
        walked = chosen.to - max(chosen.frm, 0)
        seconds += STEP_S * min(max(walked, 1), 13)
        state, _ = move(state, chosen)
    return seconds, rolls


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--ruleset", default="quick")
    parser.add_argument("--bot", default="hard")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--players", type=int, default=4)
    args = parser.parse_args()
    lengths, rolls = [], []
    for n in range(args.games):
        s, r = one_game(args.ruleset, args.bot, args.seed * 1_000_003 + n, args.players)
        lengths.append(s / 60)
        rolls.append(r)
    lengths.sort()
    twentieths = statistics.quantiles(lengths, n=20, method="inclusive")
    p90, p95 = twentieths[17], twentieths[18]
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    print(
        f"{args.ruleset}, {args.players} x {args.bot}, {args.games} games (seed {args.seed}): "
        f"median {statistics.median(lengths):.1f} min, 90th percentile {p90:.1f} min, 95th "
        f"{p95:.1f} min "
        f"(shortest {lengths[0]:.1f}, longest {lengths[-1]:.1f}); rolls a game: median "
        f"{statistics.median(rolls):.0f}; load average {load}"
    )


if __name__ == "__main__":
    main()
