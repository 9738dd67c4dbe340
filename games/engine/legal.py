"""The legal moves of a roll: the move tables of the board read for one corner's pawns, after
the compulsions of the rules. Below the state and its notation, which lists the legal moves
of a position it reads; `games.engine.play` lists them after every roll."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .pawns import YARD, Move

_new = tuple.__new__  # builds a NamedTuple without its Python-level __new__
OTHERS = ((1, 2, 3), (2, 3, 0), (3, 0, 1), (0, 1, 2))  # the other corners, clockwise

if TYPE_CHECKING:
    from .state import State


def mover_of(state: State, player: int) -> int:
    """The corner whose pawns `player` moves: their own, or once done (Pairs, Team-Up) the
    first partner clockwise who is not."""
    rules = state.rules
    pawns = state.pawns
    if rules.teamed and rules.done(pawns[player]):
        for c in rules.team_of(player)[1:]:
            if pawns[c] and not rules.done(pawns[c]):
                return c
        return (player + 2) % 4 if rules.pairs else player
    return player


def legal_for(state: State, mover: int, code: int) -> tuple[Move, ...]:
    """Every legal move of `mover`'s pawns for the roll `code` (the face, or 6 + the face with
    Double roll), after the compulsions of the rules."""
    rules = state[0]
    pawns = state[4]
    board = rules.board
    own = pawns[mover]
    steps = board.steps[mover][code]
    plain = board.plain
    found: list[Move] = []
    for i, p in enumerate(own):
        row = steps[p + 1]
        if row is None:
            continue
        m, rivals, _, _ = row[i]
        if not plain:
            t = m.to
            if not rules.land_on_own and t in own:
                continue
            if rules.no_jump_home_column and any(p < q < t and q > rules.last_track for q in own):
                continue
        if rivals:
            for c, q in rivals:
                if q in pawns[c]:
                    captures = captures_of(state, mover, i, m.square, rivals)
                    if captures:
                        m = _new(Move, (m[0], m[1], m[2], m[3], captures, *m[5:]))
                    break
        if not plain and m.square in board.bonus and m.square not in state.picked:
            m = m._replace(bonus=board.bonus[m.square])
        found.append(m)
    if plain or not found:
        return tuple(found)
    if rules.must_bring_out and not rules.optional_bring_out and YARD in own:
        # The start square is cleared first; else a six must bring a waiting pawn out.
        if 0 in own:
            clear = [m for m in found if m.frm == 0]
            if clear:
                return tuple(clear)
        elif code == 6:
            return tuple(m for m in found if m.frm == YARD)
    if rules.compulsory_capture:
        capturing = [m for m in found if m.captures]
        if capturing:
            return tuple(capturing)
    return tuple(found)


def roll_code(face: int, bonus: str) -> int:
    """The index of a roll in the move tables: the face, or 6 + the face with Double roll."""
    return face + 6 if bonus == "double" else face


def captures_of(
    state: State, mover: int, pawn: int, s: int, others: tuple[tuple[int, int], ...]
) -> tuple[tuple[int, int], ...]:
    """The pawns sent to their yard when `mover`'s `pawn` lands on track square `s`, where
    `others` lists each other corner with the progress at which it would stand there."""
    rules = state.rules
    pawns = state.pawns
    if rules.capture == "all" and not rules.teamed and not state.shields:
        # Classic's capture, most of any game's: every rival pawn on the square.
        sent: list[tuple[int, int]] = []
        for c, q in others:
            row = pawns[c]
            if q in row:
                for j in range(len(row)):
                    if row[j] == q:
                        sent.append((c, j))
        return tuple(sent)
    there = [(c, j) for c, q in others for j, x in enumerate(pawns[c]) if x == q]
    team = rules.team_of(mover)
    partner = (mover + 2) % 4 if rules.pairs else -1
    rivals = [cp for cp in there if cp[0] not in team]
    if not rivals:
        return ()
    shielded = {(c, p) for _, c, p in state.shields} if state.shields else set()
    if rules.capture == "all":
        return tuple(cp for cp in rivals if cp not in shielded)
    if rules.capture == "lone":
        return (rivals[0],) if len(rivals) == 1 and rivals[0] not in shielded else ()
    # "count": each rival (a pair counts together) with no more pawns there than the mover.
    at = rules.board.progress[mover][s]
    mine = 1 + sum(1 for j, q in enumerate(state.pawns[mover]) if j != pawn and q == at)
    mine += sum(1 for cp in there if cp[0] == partner)
    groups: dict[int, list[tuple[int, int]]] = {}
    for cp in rivals:
        key = cp[0] % 2 if rules.pairs else cp[0]
        groups.setdefault(key, []).append(cp)
    sent = []
    for group in groups.values():
        if len(group) <= mine:
            sent.extend(cp for cp in group if cp not in shielded)
    return tuple(sorted(sent))
