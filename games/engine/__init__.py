"""The rules of Ludo as a pure library: no Django, no I/O, no clock, no randomness.

from games.engine import RULESETS, new_game, roll, legal_moves, move
state = new_game(RULESETS["classic"], players=4, first=0)
state, events = roll(state, 6)
state, events = move(state, legal_moves(state)[0])
"""

from .events import (
    BonusPicked,
    Captured,
    Event,
    ExtraRoll,
    Finished,
    Home,
    Moved,
    NoMove,
    Released,
    Resigned,
    Rolled,
    Shielded,
    SixForfeited,
    TurnPassed,
    Won,
    as_dict,
)
from .legal import mover_of
from .notation import rules_from_name, rules_name
from .pawns import YARD, IllegalAction, Move
from .play import (
    legal_moves,
    move,
    new_game,
    resign,
    roll,
    setup,
    standings,
    timeout_move,
)
from .rules import BONUS_OFFSETS, MARKS, MAX_STOCK, RULESETS, STORED_BONUSES, Ruleset
from .state import State, dumps, loads
from .view import view_for

__all__ = [
    "BONUS_OFFSETS",
    "MARKS",
    "MAX_STOCK",
    "RULESETS",
    "STORED_BONUSES",
    "YARD",
    "BonusPicked",
    "Captured",
    "Event",
    "ExtraRoll",
    "Finished",
    "Home",
    "IllegalAction",
    "Move",
    "Moved",
    "NoMove",
    "Released",
    "Resigned",
    "Rolled",
    "Ruleset",
    "Shielded",
    "SixForfeited",
    "State",
    "TurnPassed",
    "Won",
    "as_dict",
    "dumps",
    "legal_moves",
    "loads",
    "move",
    "mover_of",
    "new_game",
    "resign",
    "roll",
    "rules_from_name",
    "rules_name",
    "setup",
    "standings",
    "timeout_move",
    "view_for",
]
