"""Bot policies on the engine, pure: no Django, no I/O; the caller seeds the random source.

    move, reason = BOTS["hard"].choose(state, rng)   # state in phase "move"
    bonus = BOTS["expert"].choose_bonus(state, rng)  # Power, before rolling ("" for none)

Five labelled strengths: beginner, easy, medium, hard, expert.
"""

from .expert import Expert
from .simple import Beginner, Bot, Levelled, RandomBot, best_pawn

BOTS: dict[str, Bot] = {
    "beginner": Beginner(),
    "easy": Levelled("easy", 0.2),
    "medium": Levelled("medium", 0.7),
    "hard": Levelled("hard", 1.0),
    "expert": Expert(),
}

__all__ = ["BOTS", "Beginner", "Bot", "Expert", "Levelled", "RandomBot", "best_pawn"]
