"""Words for the engine's rule tests: squares as docs/rules.md counts them, moves and events
by kind.

Squares in the worked examples are absolute track squares counted from Red's start; the engine
keeps each pawn's progress from its own corner's start. `on` converts one into the other.
"""

from __future__ import annotations

from collections.abc import Iterable

from games.engine import YARD, Event, ExtraRoll, Move, Ruleset, State, legal_moves, move, roll

Y = YARD


def on(rules: Ruleset, corner: int, square: int) -> int:
    """The progress at which `corner`'s pawn stands on absolute track `square`."""
    return (square - corner * rules.quarter) % rules.track_len


def square_of(rules: Ruleset, corner: int, progress: int) -> int:
    """The absolute track square of `corner`'s pawn at `progress` (on the track)."""
    assert 0 <= progress <= rules.last_track
    return (corner * rules.quarter + progress) % rules.track_len


def kinds(events: Iterable[Event]) -> list[str]:
    return [e.kind for e in events]


def targets(state: State) -> dict[tuple[int, int], int]:
    """The legal moves as {(corner, pawn): progress it moves to}."""
    return {(m.corner, m.pawn): m.to for m in legal_moves(state)}


def pawn_targets(state: State) -> dict[int, int]:
    """The legal moves of the player's own pawns as {pawn: progress it moves to}."""
    return {m.pawn: m.to for m in legal_moves(state)}


def the_move(state: State, pawn: int, corner: int | None = None) -> Move:
    """The legal move of `pawn` (of `corner`, by default whoever's pawns are being moved)."""
    found = [
        m for m in legal_moves(state) if m.pawn == pawn and (corner is None or m.corner == corner)
    ]
    assert len(found) == 1, f"pawn {pawn} has no single legal move in {legal_moves(state)}"
    return found[0]


def play(
    state: State, face: int, pawn: int | None = None, **bonus: str
) -> tuple[State, tuple[Event, ...]]:
    """Roll `face`, then (if given) move `pawn`; the events of both, in order."""
    state, rolled = roll(state, face, **bonus)
    if pawn is None:
        return state, rolled
    state, moved = move(state, the_move(state, pawn))
    return state, rolled + moved


def extra_roll_reasons(events: Iterable[Event]) -> list[tuple[str, ...]]:
    """The reasons of every ExtraRoll among `events`."""
    return [e.reasons for e in events if isinstance(e, ExtraRoll)]
