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
  repeat of the last table of any player at it (an immediate rematch), or that a block
  keeps away from someone already at it (fair play: never, not even as a last resort).
  Whoever is left over waits for the next pairing. Linear in the players (each looks ahead
  at most `LOOKAHEAD`).

Swiss pairing
  Duels (`pair_swiss_duels`): the Monrad system with backtracking: players ordered by score,
  Buchholz, rating; the first unpaired player meets the next one in that order they have not
  met yet, depth first, going back when the rest cannot be paired without a rematch (a
  budget of steps; past it, or when no pairing without rematches exists, rematches are
  allowed, nearest first). Odd one out: the lowest-ordered player without a bye yet gets it.
  Tables of four (`pair_swiss_tables`): score groups in the same order; the lowest-ordered
  players without a bye (count mod four) get byes; then consecutive tables of four, a player
  swapped with the next table's when a table would repeat one already played.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

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
    apart: frozenset[int] = frozenset()  # players a block keeps away from them (either side's)


def _repeats(table: Sequence[ArenaPlayer]) -> bool:
    users = frozenset(p.user for p in table)
    return any(p.last_table == users for p in table)


def _kept_apart(table: Sequence[ArenaPlayer], player: ArenaPlayer) -> bool:
    """Whether a block keeps `player` away from someone already at the table."""
    return any(p.user in player.apart or player.user in p.apart for p in table)


def pair_arena(free: Sequence[ArenaPlayer], size: int) -> list[list[int]]:
    """Tables of `size` from the free players (see the module's note); user ids, best first."""
    order = sorted(free, key=lambda p: (-p.score, -p.rating, p.user))
    taken = [False] * len(order)
    tables: list[list[int]] = []
    start = 0
    while True:
        while start < len(order) and taken[start]:
            start += 1
        if start >= len(order):
            break
        table = [order[start]]
        picked = [start]
        j = start + 1
        looked = 0
        while len(table) < size and j < len(order) and looked < LOOKAHEAD * size:
            if not taken[j]:
                looked += 1
                candidate = [*table, order[j]]
                if _kept_apart(table, order[j]):
                    pass  # a block: never at one table, however long they wait
                elif len(candidate) < size or not _repeats(candidate):
                    table.append(order[j])
                    picked.append(j)
            j += 1
        if len(table) == size:
            for i in picked:
                taken[i] = True
            tables.append([p.user for p in table])
        else:
            taken[start] = True  # waits: nobody to sit with now without a rematch
        start += 1
    return tables


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


def pair_swiss_duels(players: Sequence[SwissPlayer], budget: int = BACKTRACK_BUDGET) -> Pairing:
    """One Swiss round of duels (Monrad with backtracking; see the module's note)."""
    order, byes = _take_byes(swiss_order(players), len(players) % 2)
    found = _monrad(order, budget)
    if found is not None:
        return Pairing(found, byes, 0)
    # No pairing without a rematch (or the search ran out): nearest first, rematches allowed,
    # but still avoiding one where another partner is free.
    tables: list[list[int]] = []
    left = list(order)
    rematches = 0
    while left:
        first = left.pop(0)
        pick = next((i for i, p in enumerate(left) if p.user not in first.met), 0)
        other = left.pop(pick)
        rematches += other.user in first.met
        tables.append([first.user, other.user])
    return Pairing(tables, byes, rematches)


def _monrad(order: list[SwissPlayer], budget: int) -> list[list[int]] | None:
    steps = 0

    def search(left: list[SwissPlayer]) -> list[list[int]] | None:
        nonlocal steps
        if not left:
            return []
        first, rest = left[0], left[1:]
        for i, other in enumerate(rest):
            steps += 1
            if steps > budget:
                return None
            if other.user in first.met:
                continue
            tail = search(rest[:i] + rest[i + 1 :])
            if tail is not None:
                return [[first.user, other.user], *tail]
        return None

    return search(order)


def pair_swiss_tables(players: Sequence[SwissPlayer], size: int = 4) -> Pairing:
    """One Swiss round at tables of `size` (score groups; see the module's note)."""
    order, byes = _take_byes(swiss_order(players), len(players) % size)
    tables = [order[i : i + size] for i in range(0, len(order), size)]
    repeats = 0
    for t in range(len(tables)):
        if not _played_before(tables[t]):
            continue
        fixed = False
        for u in range(t + 1, len(tables)):
            for a in range(size - 1, -1, -1):
                for b in range(size):
                    one = [*tables[t][:a], tables[u][b], *tables[t][a + 1 :]]
                    two = [*tables[u][:b], tables[t][a], *tables[u][b + 1 :]]
                    if not _played_before(one) and not _played_before(two):
                        tables[t], tables[u] = one, two
                        fixed = True
                        break
                if fixed:
                    break
            if fixed:
                break
        repeats += not fixed
    return Pairing([[p.user for p in table] for table in tables], byes, repeats)


def _played_before(table: Sequence[SwissPlayer]) -> bool:
    users = frozenset(p.user for p in table)
    return any(users in p.tables for p in table)
