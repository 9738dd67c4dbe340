"""Who can hit whom: the board as the bots read it, and the rival pawns within one roll
behind a pawn on the track."""

from __future__ import annotations

import functools
from typing import NamedTuple

from games.engine import YARD, Ruleset, State


class Geometry(NamedTuple):
    """Lookup tables built from a Ruleset's public fields (docs/rules.md, "Coordinates")."""

    square: tuple[tuple[int, ...], ...]  # square[c][p + 1]: track square, -1 off the track
    progress: tuple[tuple[int, ...], ...]  # progress[c][s]: c's progress on square s, or -9
    safe: tuple[bool, ...]  # safe[s]: no capture on track square s


@functools.lru_cache(maxsize=64)
def geometry(rules: Ruleset) -> Geometry:
    """The lookup tables of `rules`' board (built once per Ruleset)."""
    last, size, quarter = rules.last_track, rules.track_len, rules.quarter
    square = tuple(
        tuple(
            (c * quarter + p) % size if 0 <= p <= last else -1 for p in range(YARD, rules.goal + 1)
        )
        for c in range(4)
    )
    progress = tuple(
        tuple(q if (q := (s - c * quarter) % size) <= last else -9 for s in range(size))
        for c in range(4)
    )
    safe = tuple(s in rules.safe for s in range(size))
    return Geometry(square, progress, safe)


def rivals(state: State, corner: int) -> tuple[int, ...]:
    """The corners still playing that may capture `corner`'s pawns (never a Pairs partner)."""
    partner = (corner + 2) % 4 if state.rules.pairs else -1
    return tuple(
        c
        for c in state.seats
        if c != corner and c != partner and c not in state.out and state.pawns[c]
    )


def can_be_captured(state: State, corner: int, progress: int) -> bool:
    """Whether a pawn of `corner` at `progress` stands where a rival may land and capture it."""
    rules = state.rules
    if not 0 <= progress <= rules.last_track:
        return False
    board = geometry(rules)
    return not board.safe[board.square[corner][progress + 1]]


def threat(
    state: State,
    corner: int,
    progress: int,
    pawns: tuple[tuple[int, ...], ...] | None = None,
) -> int:
    """How many rival pawns could land on a pawn of `corner` at `progress` with one roll:
    those 1 to 6 squares behind it on their way round (and, where start squares are not safe,
    a rival's yard pawn when it stands on that rival's start square)."""
    if not can_be_captured(state, corner, progress):
        return 0
    board = geometry(state.rules)
    grid = state.pawns if pawns is None else pawns
    square = board.square[corner][progress + 1]
    count = 0
    for r in rivals(state, corner):
        target = board.progress[r][square]  # the progress r's pawns have on that square
        if target < 0:
            continue
        for q in grid[r]:
            if q == YARD:
                count += target == 0
            elif 1 <= target - q <= 6:
                count += 1
    return count
