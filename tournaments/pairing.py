"""Pairing and scoring of tournaments, as pure functions (no Django, no I/O, no clock): the
services pass plain values in and store what comes out, and `verify_tournament` calls the
same `standings` on what it re-derives from the stored games.

Points
  Arena (`ARENA_POINTS`): by place, a table of four 3, 2, 1, 0 and a duel or a table of two
  2 for the win, 0 for the loss. Streak bonus: a win (first place) after two wins in a row
  counts double, and the streak lasts until a game that is not a win (lichess's arena rule).
  Swiss (`SWISS_POINTS`): a duel 1 for the win; a table of four 3, 2, 1, 0. A bye is worth
  `bye_points`: the win in a duel, a second place at a table of four.
  A voided game is as if it had never been played: no points, and it neither makes nor
  breaks a streak.

Tie-breaks (`standings`)
  Score, then Buchholz (the sum of the final scores of everyone a player sat at a table
  with, once per game; a bye adds nothing), then games won, then the earlier entry. The
  order is total, so two recomputations agree.

Arena pairing (`pair_arena`)
  The free players (not paused, not in a game) in order of score, then rating, best first;
  each table takes the next players in that order, skipping one who would make the table a
  repeat of the last table of any player at it (an immediate rematch). A player who has
  waited past the services' limit (`ArenaPlayer.waited`) and finds no other table may sit
  again with players who all waited as long: in a small field the table they just left is
  the only one to be had, and a rematch beats sitting idle. Blocks do not change that order
  (see "Blocks" below). Whoever is left over waits for the next pairing. Linear in the
  players (each looks ahead at most `LOOKAHEAD`).

Swiss pairing
  Duels (`pair_swiss_duels`): the Monrad system with backtracking: players ordered by score,
  Buchholz, rating; the first unpaired player meets the next one in that order they have not
  met yet, depth first, going back when the rest cannot be paired without a rematch (a
  budget of steps; past it, or when no pairing without rematches exists, rematches are
  allowed, nearest first). Odd one out: the lowest-ordered player without a bye yet gets it.
  Tables of four (`pair_swiss_tables`): score groups in the same order; the lowest-ordered
  players without a bye (count mod four) get byes; then consecutive tables of four, a player
  swapped with the next table's when a table would repeat one already played.

Blocks (fair play)
  A block keeps its pair apart and costs nobody else anything. Every pairing is first made
  as if there were no blocks (a player's `blocked` is whom they blocked; either side's block
  keeps the pair apart); then, at each table holding a blocked pair, whoever made the block
  sits out (`Pairing.unpaired` in Swiss: no game, no points, no bye; waits for the next
  pairing in an arena), and the table's other players are not punished for it: in Swiss
  each gets a bye; in an arena they are paired, by the same rule, with whoever else was
  left over, or wait.
  Every other table is exactly the table it would have been without any block: blocking the
  strongest players never brings a blocker weaker ones out of turn.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

ARENA = "arena"
SWISS = "swiss"

ARENA_POINTS: dict[int, tuple[int, ...]] = {2: (2, 0), 4: (3, 2, 1, 0)}
SWISS_POINTS: dict[int, tuple[int, ...]] = {2: (1, 0), 4: (3, 2, 1, 0)}
STREAK_FROM = 2  # wins in a row after which a win counts double (arena)
LOOKAHEAD = 12  # players an arena table looks ahead to avoid an immediate rematch
BACKTRACK_BUDGET = 20_000  # steps of the Swiss duel search before rematches are allowed


def bye_points(kind: str, size: int) -> int:
    """A bye: the win in a duel, a second place at a table of four (Swiss only)."""
    table = SWISS_POINTS if kind == SWISS else ARENA_POINTS
    return table[size][0] if size == 2 else table[size][1]


def place_points(kind: str, size: int, place: int) -> int:
    table = SWISS_POINTS if kind == SWISS else ARENA_POINTS
    points = table[size]
    return points[min(place, len(points)) - 1]


# ---------------------------------------------------------------------------- standings


@dataclass(frozen=True)
class Game:
    """One game of a tournament as the standings read it: its players and their places
    (None: voided, counts nothing), or a bye (one player, ``bye=True``)."""

    users: tuple[int, ...]
    places: Mapping[int, int] | None
    round: int = 0
    bye: bool = False


@dataclass
class Row:
    user: int
    score: int = 0
    games: int = 0
    wins: int = 0
    streak: int = 0  # wins in a row at the end (arena: the current streak)
    byes: int = 0
    buchholz: int = 0
    rank: int = 0
    opponents: list[int] = field(default_factory=list)

    def as_dict(self) -> dict[str, int]:
        return {
            "user": self.user,
            "score": self.score,
            "games": self.games,
            "wins": self.wins,
            "streak": self.streak,
            "byes": self.byes,
            "buchholz": self.buchholz,
            "rank": self.rank,
        }


def standings(kind: str, size: int, entrants: Sequence[int], games: Iterable[Game]) -> list[Row]:
    """The standings from the games in the order they were played; `entrants` in the order
    they entered (the last tie-break). Every entrant has a row, played or not."""
    rows = {u: Row(u) for u in entrants}
    for game in games:
        if game.bye:
            for u in game.users:
                row = rows.setdefault(u, Row(u))
                row.score += bye_points(kind, size)
                row.byes += 1
            continue
        if game.places is None:
            continue  # voided: as if never played
        for u in game.users:
            row = rows.setdefault(u, Row(u))
            place = game.places.get(u, len(game.users))
            points = place_points(kind, size, place)
            won = place == 1
            if kind == ARENA and won and row.streak >= STREAK_FROM:
                points *= 2
            row.score += points
            row.games += 1
            row.wins += won
            row.streak = row.streak + 1 if won else 0
            row.opponents.extend(o for o in game.users if o != u)
    for row in rows.values():
        row.buchholz = sum(rows[o].score for o in row.opponents if o in rows)
    entered = {u: i for i, u in enumerate(entrants)}
    ordered = sorted(
        rows.values(),
        key=lambda r: (-r.score, -r.buchholz, -r.wins, entered.get(r.user, len(entered)), r.user),
    )
    for rank, row in enumerate(ordered, start=1):
        row.rank = rank
    return ordered


# ---------------------------------------------------------------------------- arena


@dataclass(frozen=True)
class ArenaPlayer:
    user: int
    score: int
    rating: float
    last_table: frozenset[int] = frozenset()  # the players of their last game, them included
    blocked: frozenset[int] = frozenset()  # the players they blocked
    waited: bool = False  # waited past the limit: may sit again with their last table


class _Blocking(Protocol):
    @property
    def user(self) -> int: ...
    @property
    def blocked(self) -> frozenset[int]: ...


def _blockers(table: Sequence[_Blocking]) -> set[int]:
    """Who at `table` blocked someone else at it (both, when each blocked the other)."""
    users = {p.user for p in table}
    return {p.user for p in table if p.blocked & (users - {p.user})}


def _repeats(table: Sequence[ArenaPlayer], waited_ok: bool = False) -> bool:
    """Whether `table` repeats the last table of a player at it (allowed when `waited_ok`
    and everyone at it has waited past the limit)."""
    if waited_ok and all(p.waited for p in table):
        return False
    users = frozenset(p.user for p in table)
    return any(p.last_table == users for p in table)


def pair_arena(free: Sequence[ArenaPlayer], size: int) -> list[list[int]]:
    """Tables of `size` from the free players (see the module's note); user ids, best first.
    A table a block breaks: its blockers wait, its other players are paired with whoever
    else no table seated (by this same rule) or wait; every other table stands as made."""
    by_user = {p.user: p for p in free}
    tables: list[list[int]] = []
    waiting: set[int] = set()
    for table in _arena_tables(free, size):
        out = _blockers([by_user[u] for u in table])
        if out:
            waiting.update(out)
        else:
            tables.append(table)
    if waiting:
        # Whoever no table seated, the blockers aside: fewer players each time round.
        seated = {u for table in tables for u in table}
        left = [p for p in free if p.user not in seated and p.user not in waiting]
        tables.extend(pair_arena(left, size))
    return tables


def _arena_tables(free: Sequence[ArenaPlayer], size: int) -> list[list[int]]:
    """The tables as they would be without any block."""
    order = sorted(free, key=lambda p: (-p.score, -p.rating, p.user))
    taken = [False] * len(order)
    tables: list[list[int]] = []
    start = 0
    while True:
        while start < len(order) and taken[start]:
            start += 1
        if start >= len(order):
            break
        table, picked = _fill(order, taken, start, size, waited_ok=False)
        if len(table) < size and order[start].waited:
            table, picked = _fill(order, taken, start, size, waited_ok=True)
        if len(table) == size:
            for i in picked:
                taken[i] = True
            tables.append([p.user for p in table])
        else:
            taken[start] = True  # waits: nobody to sit with now without a rematch
        start += 1
    return tables


def _fill(
    order: Sequence[ArenaPlayer], taken: Sequence[bool], start: int, size: int, *, waited_ok: bool
) -> tuple[list[ArenaPlayer], list[int]]:
    """The table `order[start]` heads: the next free players in order, skipping whoever would
    make it an immediate rematch (see `_repeats`). The players and their places in `order`."""
    table = [order[start]]
    picked = [start]
    j = start + 1
    looked = 0
    while len(table) < size and j < len(order) and looked < LOOKAHEAD * size:
        if not taken[j]:
            looked += 1
            candidate = [*table, order[j]]
            if len(candidate) < size or not _repeats(candidate, waited_ok):
                table.append(order[j])
                picked.append(j)
        j += 1
    return table, picked


# ---------------------------------------------------------------------------- Swiss


@dataclass(frozen=True)
class SwissPlayer:
    user: int
    score: int
    buchholz: int = 0
    rating: float = 0.0
    met: frozenset[int] = frozenset()  # everyone they have sat at a table with
    byes: int = 0
    tables: frozenset[frozenset[int]] = frozenset()  # every table they have played at
    blocked: frozenset[int] = frozenset()  # the players they blocked


def swiss_order(players: Iterable[SwissPlayer]) -> list[SwissPlayer]:
    return sorted(players, key=lambda p: (-p.score, -p.buchholz, -p.rating, p.user))


def _take_byes(order: list[SwissPlayer], count: int) -> tuple[list[SwissPlayer], list[int]]:
    """The `count` lowest-ordered players with the fewest byes sit out; the rest play."""
    if count <= 0:
        return order, []
    ranked = sorted(range(len(order)), key=lambda i: (order[i].byes, -i))
    out = set(ranked[:count])
    return [p for i, p in enumerate(order) if i not in out], [order[i].user for i in sorted(out)]


@dataclass
class Pairing:
    tables: list[list[int]]
    byes: list[int]
    rematches: int = 0
    unpaired: list[int] = field(default_factory=list)  # blocked a table-mate: sit out, no bye


def _apply_blocks(made: Pairing, players: Sequence[SwissPlayer]) -> Pairing:
    """The round's pairing made without regard to blocks, with each table holding a blocked
    pair broken up: its blockers sit out (no bye), its other players get a bye."""
    by_user = {p.user: p for p in players}
    kept: list[list[int]] = []
    for table in made.tables:
        out = _blockers([by_user[u] for u in table])
        if not out:
            kept.append(table)
            continue
        made.unpaired.extend(u for u in table if u in out)
        made.byes.extend(u for u in table if u not in out)
        made.rematches -= _is_rematch([by_user[u] for u in table])
    made.tables = kept
    return made


def _is_rematch(table: Sequence[SwissPlayer]) -> bool:
    if len(table) == 2:
        return table[1].user in table[0].met
    return _played_before(table)


def pair_swiss_duels(players: Sequence[SwissPlayer], budget: int = BACKTRACK_BUDGET) -> Pairing:
    """One Swiss round of duels (Monrad with backtracking; see the module's note)."""
    return _apply_blocks(_swiss_duels(players, budget), players)


def _swiss_duels(players: Sequence[SwissPlayer], budget: int) -> Pairing:
    order, byes = _take_byes(swiss_order(players), len(players) % 2)
    found = _monrad(order, budget, rematches=False)
    if found is not None:
        return Pairing(found, byes, 0)
    met = {p.user: p.met for p in order}
    found = _monrad(order, budget, rematches=True)
    if found is None:
        # The search ran out: nearest first, a rematch only where no other partner is free.
        found = []
        left = list(order)
        while left:
            first = left.pop(0)
            pick = next((i for i, p in enumerate(left) if p.user not in first.met), 0)
            found.append([first.user, left.pop(pick).user])
    return Pairing(found, byes, sum(b in met[a] for a, b in found))


def _monrad(order: list[SwissPlayer], budget: int, *, rematches: bool) -> list[list[int]] | None:
    """A complete pairing of `order` by depth-first search, nearest partner first: no
    rematch unless `rematches` (then unmet partners are tried first)."""
    steps = 0

    def partners(first: SwissPlayer, rest: list[SwissPlayer]) -> list[int]:
        fresh = [i for i, o in enumerate(rest) if o.user not in first.met]
        if not rematches:
            return fresh
        return fresh + [i for i, o in enumerate(rest) if o.user in first.met]

    def search(left: list[SwissPlayer]) -> list[list[int]] | None:
        nonlocal steps
        if not left:
            return []
        first, rest = left[0], left[1:]
        for i in partners(first, rest):
            steps += 1
            if steps > budget:
                return None
            tail = search(rest[:i] + rest[i + 1 :])
            if tail is not None:
                return [[first.user, rest[i].user], *tail]
        return None

    return search(order)


def pair_swiss_tables(players: Sequence[SwissPlayer], size: int = 4) -> Pairing:
    """One Swiss round at tables of `size` (score groups; see the module's note)."""
    order, byes = _take_byes(swiss_order(players), len(players) % size)
    tables = [order[i : i + size] for i in range(0, len(order), size)]
    for t in range(len(tables)):
        if _played_before(tables[t]):
            _swap_mends(tables, t, size)
    repeats = sum(_played_before(table) for table in tables)
    made = Pairing([[p.user for p in table] for table in tables], byes, repeats)
    return _apply_blocks(made, players)


def _swap_mends(tables: list[list[SwissPlayer]], t: int, size: int) -> bool:
    """Swap one player of table `t` with one of another table (the later tables first, then
    the earlier) so that neither repeats a table played before. Whether a swap was made."""
    others = [*range(t + 1, len(tables)), *range(t - 1, -1, -1)]
    for u in others:
        for a in range(size - 1, -1, -1):
            for b in range(size):
                one = [*tables[t][:a], tables[u][b], *tables[t][a + 1 :]]
                two = [*tables[u][:b], tables[t][a], *tables[u][b + 1 :]]
                if _played_before(one) or _played_before(two):
                    continue
                tables[t], tables[u] = one, two
                return True
    return False


def _played_before(table: Sequence[SwissPlayer]) -> bool:
    users = frozenset(p.user for p in table)
    return any(users in p.tables for p in table)
