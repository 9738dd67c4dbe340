"""The expert: a short expectimax search over the dice on the engine, with an evaluation in
squares (pips) that prices every pawn by its progress less the chance a rival hits it.

The search tries each move for the roll in hand, then averages over the next two rolls of
whoever acts next (its own extra roll, or a rival's turn, where the rival answers with its
best move by the same evaluation). It searches one roll deep, then two while a node budget and
a clock allow (a few ms a move on average; `max_nodes` bounds the worst case).

At a table of three or four, `TABLE_SETTINGS` gives each rule set its own settings: there a
rival is expected to answer as the rule-of-thumb player does (`best_pawn`), which is cheaper
and, against the rule-of-thumb levels, exact; and a pawn far along is worth more than its
squares, so the search brings one pawn home rather than spreading risk over four.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Mapping
from typing import NamedTuple

from games.engine import (
    STORED_BONUSES,
    YARD,
    IllegalAction,
    Move,
    Ruleset,
    State,
    legal_moves,
    move,
    roll,
    rules_name,
)

from .simple import Bot, best_pawn
from .threats import geometry, threat
from .words import Reason, describe, say

WIN = 1000.0


class Weights(NamedTuple):
    """The evaluation's prices, in squares of progress."""

    yard: float = 20.0  # a pawn in the yard is worth this much less than one on its start
    column: float = 1.0  # a pawn in its home column can no longer be captured
    home: float = 4.0  # a pawn home
    escape: float = 0.3  # danger counts this much when the pawn's owner moves first
    lead: float = 0.5  # 4 players: weight of the leading rival against the rivals' mean
    extra_roll: float = 2.0  # the player to act rolls again
    risk: float = 1.0  # how much of a pawn's expected loss to capture counts against it
    # A pawn's worth grows faster than its progress by bend * progress**2 / goal: a pawn far
    # along has fewer rivals ahead to pass, so its squares are surer (four players capture
    # far more often than two).
    bend: float = 0.0
    stock: tuple[float, float, float] = (5.0, 6.0, 4.0)  # Power: double, control, shield


class _Tables(NamedTuple):
    value: tuple[float, ...]  # value[p + 1]: a pawn at progress p, before danger
    loss: tuple[float, ...]  # loss[p + 1]: what a capture at progress p costs
    rivals: tuple[tuple[int, ...], ...]  # rivals[c]: corners that may capture c's pawns
    team: tuple[tuple[int, ...], ...]  # team[c]: c, and its partner in Pairs
    square: tuple[tuple[int, ...], ...]  # as in `threats.Geometry`
    progress: tuple[tuple[int, ...], ...]
    safe: tuple[bool, ...]


def _build(rules: Ruleset, weights: Weights) -> _Tables:
    value = []
    for p in range(YARD, rules.goal + 1):
        if p == YARD:
            v = -weights.yard
        elif p >= rules.finish_from:
            v = p + weights.home
        elif p > rules.last_track:
            v = p + weights.column
        else:
            v = float(p)
        if p > 0:
            v += weights.bend * p * p / rules.goal
        value.append(v)
    loss = tuple(
        v - value[0] if 0 <= i - 1 <= rules.last_track else 0.0 for i, v in enumerate(value)
    )
    team = tuple(((c, (c + 2) % 4) if rules.pairs else (c,)) for c in range(4))
    rivals = tuple(tuple(r for r in range(4) if r not in team[c]) for c in range(4))
    board = geometry(rules)
    return _Tables(tuple(value), loss, rivals, team, board.square, board.progress, board.safe)


# Keyed by identity: hashing a Ruleset (a dataclass of some thirty fields) on every
# evaluation would cost more than the evaluation. The objects are kept alive in the value.
_TABLES: dict[tuple[int, int], tuple[Ruleset, Weights, _Tables]] = {}


def _tables(rules: Ruleset, weights: Weights) -> _Tables:
    found = _TABLES.get((id(rules), id(weights)))
    if found is None:
        if len(_TABLES) > 256:
            _TABLES.clear()
        found = _TABLES[(id(rules), id(weights))] = (rules, weights, _build(rules, weights))
    return found[2]


DEFAULT = Weights()
_BITS = tuple(bin(i).count("1") for i in range(128))
_SIX_IN = tuple(1.0 - (5.0 / 6.0) ** n for n in range(7))  # a six within n tries


def values(state: State, weights: Weights = DEFAULT) -> list[float]:
    """Each corner's worth in squares: its pawns' progress, less what the rivals' next rolls
    are expected to capture (a pawn whose owner moves first is in less danger: it may run)."""
    rules = state.rules
    t = _tables(rules, weights)
    square = t.square
    progress = t.progress
    safe = t.safe
    value = t.value
    loss = t.loss
    pawns = state.pawns
    seats = state.seats
    out = state.out
    last = rules.last_track
    escape = weights.escape
    risk = weights.risk
    tries = rules.tries_without_pawn_out
    n = len(seats)
    first = seats.index(state.to_play)
    order = [0, 0, 0, 0]
    for k, c in enumerate(seats):
        order[c] = (k - first) % n
    # Each corner's pawns on the track, and how many wait in its yard.
    track: list[list[int]] = [[], [], [], []]
    yard = [0, 0, 0, 0]
    for c in seats:
        if c not in out:
            row = pawns[c]
            track[c] = [p for p in row if 0 <= p <= last]
            yard[c] = row.count(YARD)
    lone_safe = rules.capture != "all"
    shielded = {(c, i) for _, c, i in state.shields} if state.shields else None
    worth = [0.0, 0.0, 0.0, 0.0]
    for c in seats:
        row = pawns[c]
        if not row or c in out:
            continue
        total = 0.0
        for p in row:
            total += value[p + 1]
        if track[c]:
            at = square[c]
            rivals = t.rivals[c]
            danger = 0.0
            for i, p in enumerate(row):
                if p < 0 or p > last:
                    continue
                s = at[p + 1]
                if safe[s] or (shielded and (c, i) in shielded) or (lone_safe and row.count(p) > 1):
                    continue
                miss = 1.0
                for r in rivals:
                    there = progress[r][s]
                    if there < 0:
                        continue
                    near = 0
                    far = 0
                    for q in track[r]:
                        d = there - q
                        if 0 < d <= 6:
                            near |= 1 << d
                        elif 6 < d <= 12:
                            far |= 1 << (d - 6)
                    if yard[r] and there <= 6:
                        # A six brings the pawn out (onto a start square that captures only
                        # where starts are not safe), and the roll it earns may hit.
                        if there == 0:
                            near |= 64
                        else:
                            far |= 1 << there
                    if not track[r] and tries > 1 and yard[r] and there <= 6:
                        # No pawn out: up to three tries for the six (mensch, party), then
                        # the pawn comes out (mensch: onto its start, capturing there) and the
                        # roll it earns may hit.
                        six = _SIX_IN[tries]
                        hit = six if there == 0 else six / 6.0
                        if order[c] < order[r]:
                            hit *= escape
                        miss *= 1.0 - hit
                    elif near or far:
                        hit = _BITS[near] / 6.0 + _BITS[far] / 36.0
                        if order[c] < order[r]:
                            hit *= escape
                        miss *= 1.0 - hit
                if miss < 1.0:
                    lost = loss[p + 1] * risk
                    danger += (1.0 - miss) * lost
            total -= danger
        worth[c] = total
    return worth


def score(state: State, worth: list[float], me: int, weights: Weights = DEFAULT) -> float:
    """`me`'s standing in squares: its side's worth less its rivals' (the leader's and their
    mean, mixed); a finished game is +-WIN (party: by place)."""
    rules = state.rules
    team = _tables(rules, weights).team[me]
    if state.phase == "over":
        placings = state.placings
        if rules.pairs or rules.ending == "first":
            return WIN if placings[0] in team else -WIN
        n = len(placings)
        return WIN * (1.0 - 2.0 * placings.index(me) / (n - 1))
    out = state.out
    mine = 0.0
    others = []
    for c in state.seats:
        if c in team:
            mine += worth[c]
        elif c not in out:
            others.append(worth[c])
    if rules.pairs or len(others) == 1:
        theirs = sum(others)
    else:
        theirs = weights.lead * max(others) + (1 - weights.lead) * sum(others) / len(others)
    result = mine - theirs
    if state.phase == "roll":
        result += weights.extra_roll if state.to_play in team else -weights.extra_roll
    stock = state.stock[me]
    if stock[0] or stock[1] or stock[2]:
        w = weights.stock
        result += stock[0] * w[0] + stock[1] * w[1] + stock[2] * w[2]
    return result


class Table(NamedTuple):
    """How the expert plays at one table of three or four: how many rolls it looks ahead, how
    it expects a rival to answer ("eval": by the expert's own evaluation; "rule": as the
    rule-of-thumb `best_pawn` plays), its node budget and its prices."""

    depth: int
    model: str
    max_nodes: int
    weights: Weights = DEFAULT


# Tuned against three `hard` bots (manage.py bot_tournament --players 4, seeds other than the
# one the proof uses): at a table of four the rivals are modelled as the rule-of-thumb player
# (`best_pawn`), and a pawn far along is worth more than its squares (`bend`).
# Measured without gain against these settings (expert against three hard, seed 11):
# - mensch, 400 games each (these settings: 36.5%): a third roll of search, 36.8% at 49 ms a
#   move; lead 1.0 or 0.0; risk 1.5 or 0.7; escape 0.6 or 0.1; yard 10 or 35; a pawn's worth
#   fitted to who won 3,000 games of four hard bots (35.2%); a win-chance (softmax) score;
#   bend 0.0 (30.8%), 1.0 (32.5%), 1.5 (38.2%); the rivals' worth counted 0.5 or 1.5 times
#   (35.0%, 37.5%). Of 1,000 games (these settings: 35.8%): bend 1.5 (35.3%); bend 1.5 with
#   the rivals' worth 1.5 times (33.5%). A 400-game figure is +-4.7 points: its ups and downs
#   above are mostly noise.
# - family, 600 games each (these settings: 39.1% of 1,000): capture whenever possible (36.3%);
#   a rival's danger priced 0.5 or 1.5 times one's own; bend 0.25 (33.3%), 0.75 (39.7%), 1.0
#   (36.3%). Party with bend 0.75: 40.0% of 600 (these settings: 38.8% of 1,000), within noise.
# - Also measured without gain, 1,000 games at seeds 11 and 7 (these settings, mensch: 35.8%,
#   30.9%): a learned evaluation, a 16-unit network fitted to who won 20,000 games of four
#   hard bots, with one roll of search (35.6%, 32.3%; classic at seed 11: 32.6%; 32 units
#   fitted to 80,000 games: 32.7% at seed 11); truncated rollouts of 12 rolls as hard plays
#   them (27.3% of 400); and yard 10, escape 0.1, lead 0, bend 1, fitted to the best move by
#   160 whole-game rollouts in 253 positions (34.4%, 35.6%).
#   No single price moved the regret against those rollouts by more than a tenth of a point
#   (1.1 to 1.4% of a win a choice; hard's 1.4%).
# - Search far past the clock (mensch, seed 7, these settings but the depth and the node
#   budget, no time limit): two rolls 30.9% of 1,000 (4 ms a choice), 31.2% of the first 400;
#   three rolls, 10 million nodes, 30.5% of 1,000 (26 ms a choice, 445 ms at worst); four
#   rolls, a whole round of the table, 100 million nodes, 32.5% of the same 400 (158 ms a
#   choice, 2.7 s at worst). More search does not lift mensch.
_CROWD = Weights(bend=0.5)
TABLE_SETTINGS: dict[str, Table] = {
    "classic": Table(2, "rule", 5000, _CROWD),
    "family": Table(2, "rule", 5000, _CROWD),
    "quick": Table(2, "rule", 5000, _CROWD),  # as classic, unmeasured on its own
    "mensch": Table(2, "rule", 5000, _CROWD),
    "party": Table(2, "rule", 5000, _CROWD),
    "party+pairs": Table(2, "rule", 5000, _CROWD),
    "party+power": Table(2, "rule", 5000, _CROWD),
    "party+pairs+power": Table(2, "rule", 5000, _CROWD),
}


class BudgetSpent(Exception):
    """The clock or the node budget ran out in the middle of a search level."""


class _Search:
    """One search: its own counters, so that one Expert may serve several threads."""

    def __init__(
        self, weights: Weights, clock: Callable[[], float], deadline: float, model: str = "eval"
    ) -> None:
        self.weights = weights
        self.model = model
        self.clock = clock
        self.deadline = deadline
        self.cap = float("inf")  # the node count at which the level under way gives up
        self.nodes = 0

    def leaf(self, state: State, me: int) -> float:
        self.nodes += 1
        if state.phase == "over":
            return score(state, [], me, self.weights)
        return score(state, values(state, self.weights), me, self.weights)

    def tick(self) -> None:
        if self.nodes > self.cap or self.clock() > self.deadline:
            raise BudgetSpent

    def after(self, state: State, me: int, depth: int) -> float:
        """The value for `me` of `state` (after a move or a roll without one), looking `depth`
        rolls ahead."""
        if depth <= 0 or state.phase != "roll":
            return self.leaf(state, me)
        self.tick()
        weights = self.weights
        actor = state.to_play
        team = _tables(state.rules, weights).team[me]
        total = 0.0
        for face in range(1, 7):
            rolled, _ = roll(state, face)
            if rolled.phase != "move":
                total += self.after(rolled, me, depth - 1)
                continue
            moves = rolled.legal
            if actor in team:
                total += max(self.after(move(rolled, m)[0], me, depth - 1) for m in moves)
            elif len(moves) == 1:
                total += self.after(move(rolled, moves[0])[0], me, depth - 1)
            elif self.model == "rule":
                total += self.after(move(rolled, best_pawn(rolled)[0])[0], me, depth - 1)
            else:
                # A rival answers with its best move by the same evaluation, one ply deep.
                best = rolled
                best_value = -WIN * 2
                for m in moves:
                    after, _ = move(rolled, m)
                    worth = values(after, weights) if after.phase != "over" else []
                    self.nodes += 1
                    v = score(after, worth, actor, weights)
                    if v > best_value:
                        best, best_value = after, v
                total += self.after(best, me, depth - 1)
        return total / 6.0


class Expert(Bot):
    """Expectimax over the dice, deepening while `max_nodes` evaluations and `budget_ms` allow.

    `clock` (seconds) is this thread's CPU time by default, so that a busy machine does not
    change the play; it is a parameter so that tests can drive the time budget.
    """

    name = "expert"
    label = "Expert BOT"
    about = "looks ahead over the dice, weighing each pawn's progress against its risk"

    def __init__(
        self,
        *,
        depth: int = 2,
        max_nodes: int = 5000,
        budget_ms: float = 150.0,
        weights: Weights = DEFAULT,
        clock: Callable[[], float] = time.thread_time,
        model: str = "eval",
        capture_first: bool = False,
        tables: Mapping[str, Table] | None = None,
    ) -> None:
        self.model = model
        self.capture_first = capture_first
        # At a table of three or four of a rule set named here (`rules_name`, options
        # included): its own settings instead of the ones above.
        self.tables = dict(tables or {})
        self.depth = depth
        self.max_nodes = max_nodes
        self.budget_ms = budget_ms
        self.weights = weights
        self.clock = clock
        # What the last search did (for tests and tuning): evaluations, deepest level done.
        self.nodes = 0
        self.reached = 0

    def _search(self, table: Table) -> _Search:
        return _Search(
            table.weights, self.clock, self.clock() + self.budget_ms / 1000.0, table.model
        )

    def _settings(self, state: State) -> Table:
        """How to play this table: (depth, rival model, max_nodes, weights)."""
        if len(state.seats) > 2:
            found = self.tables.get(rules_name(state.rules))
            if found is not None:
                return found
        return Table(self.depth, self.model, self.max_nodes, self.weights)

    def rank(self, state: State) -> list[tuple[float, Move]]:
        """Every legal move with its value for the player to act, by the deepest level the
        budgets allowed; best first."""
        moves = legal_moves(state)
        if self.capture_first and any(m.captures for m in moves):
            moves = tuple(m for m in moves if m.captures)
        me = state.to_play
        table = self._settings(state)
        max_depth, max_nodes = table.depth, table.max_nodes
        search = self._search(table)
        results = [move(state, m)[0] for m in moves]
        ranked = [(search.leaf(s, me), m) for s, m in zip(results, moves, strict=True)]
        ranked.sort(key=lambda vm: -vm[0])
        after = dict(zip(moves, results, strict=True))
        reached = 0
        for depth in range(1, max_depth + 1):
            # A level costs some 10 times the one before: skip one that cannot fit.
            if depth > 1 and search.nodes * 10 > max_nodes:
                break
            # The first level always completes (unless the clock runs out): it is cheap.
            search.cap = max_nodes if depth > 1 else float("inf")
            try:
                deeper = [(search.after(after[m], me, depth), m) for _, m in ranked]
            except BudgetSpent:
                break
            deeper.sort(key=lambda vm: -vm[0])
            ranked = deeper
            reached = depth
        self.nodes, self.reached = search.nodes, reached
        return ranked

    def choose(self, state: State, rng: random.Random) -> tuple[Move, str]:
        moves = legal_moves(state)
        if state.phase != "move" or not moves:
            raise ValueError("A bot chooses a move only with a roll in hand and a legal move")
        if len(moves) == 1:
            return moves[0], describe(state, moves[0])
        ranked = self.rank(state)
        return ranked[0][1], self._reason(state, ranked[0][1])

    def _reason(self, state: State, m: Move) -> Reason:
        if m.home or m.captures or m.frm == YARD or m.bonus:
            return describe(state, m)
        before = threat(state, m.corner, m.frm)
        pawns = list(state.pawns)
        row = list(pawns[m.corner])
        row[m.pawn] = m.to
        pawns[m.corner] = tuple(row)
        after = threat(state, m.corner, m.to, tuple(pawns))
        if before > after:
            return say(state, m, "away_all" if after else "reach")
        if state.bonus == "shield" and m.to <= state.rules.last_track:
            return say(state, m, "shield")
        return describe(state, m)

    # -------------------------------------------------------------------- Power

    def _bonus_values(self, state: State) -> dict[str, tuple[float, int]]:
        """For each bonus usable now ("" for none), the value of this roll and the best face."""
        rules = state.rules
        me = state.to_play
        options = [""]
        if rules.power and state.phase == "roll" and state.bonus == "":
            mine = state.stock[me]
            options += [b for k, b in enumerate(STORED_BONUSES) if mine[k] > 0]
        found: dict[str, tuple[float, int]] = {}
        if len(options) == 1:
            return found
        search = self._search(self._settings(state))
        for bonus in options:
            faces = []
            for face in range(1, 7):
                try:
                    rolled, _ = roll(state, face, bonus=bonus)
                except IllegalAction:
                    break
                if rolled.phase == "move":
                    v = max(search.leaf(move(rolled, m)[0], me) for m in rolled.legal)
                else:
                    v = search.leaf(rolled, me)
                faces.append((v, face))
            if len(faces) < 6:
                continue
            if bonus == "control":
                found[bonus] = max(faces)
            else:
                found[bonus] = (sum(v for v, _ in faces) / 6.0, 0)
        return found

    def choose_bonus(self, state: State, rng: random.Random) -> str:
        found = self._bonus_values(state)
        if not found:
            return ""
        # A bonus must beat rolling plain by more than it is worth kept in stock (the
        # evaluation already prices the stock, so the comparison is direct).
        return max(found, key=lambda b: (found[b][0], b == ""))

    def choose_face(self, state: State, rng: random.Random) -> int:
        found = self._bonus_values(state)
        return found["control"][1] if "control" in found else 6
