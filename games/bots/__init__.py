"""Bot policies on the engine, pure: no Django, no I/O; the caller seeds the random source.

    move, reason = BOTS["hard"].choose(state, rng)   # state in phase "move"
    bonus = BOTS["expert"].choose_bonus(state, rng)  # Power, before rolling ("" for none)

`BOTS` lists the levels in the picker's order, weakest first, as the stored ladder measured
them (`manage.py bot_tournament --ladder`, games/bots/ladder.json). "beginner" is the gentle
level for a first game; the classic one-device computer is "greedy", placed by its strength.
"""

from .expert import TABLE_SETTINGS, Expert
from .simple import Beginner, Bot, Greedy, Levelled, RandomBot, best_pawn

BOTS: dict[str, Bot] = {
    "beginner": Beginner(),
    "easy": Levelled("easy", 0.2, "the best pawn 1 turn in 5, else any move"),
    "medium": Levelled("medium", 0.7, "the best pawn 7 turns in 10, else any move"),
    "hard": Levelled(
        "hard", 1.0, "the best pawn every turn: capture, home, safe square, out, away from a rival"
    ),
    "greedy": Greedy(),
    "expert": Expert(tables=TABLE_SETTINGS),
}

__all__ = [
    "BOTS",
    "Beginner",
    "Bot",
    "Expert",
    "Greedy",
    "Levelled",
    "RandomBot",
    "TABLE_SETTINGS",
    "best_pawn",
]
