"""The value objects of a game: the state, a pawn move, and the error for an illegal action."""

from __future__ import annotations

from typing import NamedTuple

from .rules import Ruleset

YARD = -1
Phase = str  # "roll" | "move" | "over"
NO_STOCK = (0, 0, 0)  # double, control, shield


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


class State(NamedTuple):
    """An immutable, hashable game position.

    ``pawns[c]`` holds the progress of corner c's four pawns (empty for an empty corner).
    ``legal`` holds the legal moves in phase "move"; it is derived from the rest.
    """

    rules: Ruleset
    seats: tuple[int, ...]
    to_play: int
    phase: Phase
    pawns: tuple[tuple[int, ...], ...]
    die: int = 0  # the value the pawn moves (twice the face with Double roll); 0 before a roll
    face: int = 0  # the face rolled (or chosen with Dice control)
    sixes: int = 0
    tries: int = 0  # rolls this turn that found no pawn out and no six
    placings: tuple[int, ...] = ()
    out: tuple[int, ...] = ()  # corners that resigned or forfeited, in that order
    legal: tuple[Move, ...] = ()
    # Power.
    stock: tuple[tuple[int, int, int], ...] = (NO_STOCK,) * 4
    picked: frozenset[int] = frozenset()
    shields: frozenset[tuple[int, int, int]] = frozenset()  # (given by, pawn's corner, pawn)
    bonus: str = ""  # the bonus used on the roll in hand: "double", "control" or "shield"

    @property
    def winner(self) -> int | None:
        """The corner placed first once the game is over."""
        return self.placings[0] if self.phase == "over" and self.placings else None

    def finished(self, corner: int) -> bool:
        """Whether every pawn of `corner` is home."""
        pawns = self.pawns[corner]
        return bool(pawns) and min(pawns) >= self.rules.finish_from

    def __repr__(self) -> str:
        from .notation import dumps

        return f"State.parse({dumps(self)!r})"

    @staticmethod
    def parse(text: str) -> State:
        """The state a notation string describes (see `games.engine.notation`)."""
        from .notation import loads

        return loads(text)
