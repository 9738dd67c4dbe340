"""The pawn's value objects: the yard, one legal pawn move, and the error for an illegal
action. At the bottom of the engine: the rules' move tables are built of these."""

from __future__ import annotations

from typing import NamedTuple

YARD = -1


class IllegalAction(ValueError):
    """An action the rules do not allow; the message says which rule, for a person to read."""


class Move(NamedTuple):
    """One legal pawn move for the roll in hand.

    ``corner`` owns the pawn (in Pairs a finished player moves the partner's pawns);
    ``frm`` and ``to`` are progress values; ``captures`` lists (corner, pawn) sent to the yard;
    ``square`` is the absolute track square landed on (-1 off the track).
    """

    corner: int
    pawn: int
    frm: int
    to: int
    captures: tuple[tuple[int, int], ...] = ()
    square: int = -1
    safe: bool = False
    home: bool = False  # the pawn reaches home with this move
    bonus: str = ""  # Power: the bonus square this move ends on, not yet picked this turn
