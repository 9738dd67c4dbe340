"""Winning chances: each seat's probability to place first from any position, pure and fast.

    chances(state)   # (p0, p1, p2, p3): corner c's chance to place first (0.0 if unseated)

A race model. Each side (a seat, or a pair in Pairs, whose two players both move its eight
pawns) needs some squares to bring its pawns home: the squares left to each pawn's home, a
price for each pawn still in the yard, and the squares it is expected to lose to captures (the
expert's danger, `expert.values`). Its finishing time, in rounds of the table, is normal with
its mean at those squares over a speed and its variance growing with them; the side to act
first in the round starts that much earlier. A side's chance is the probability that its time
is the shortest of all (integrated numerically over a grid; two sides in closed form).

The speed, the variance, the yard price and the weight of the danger are fitted per table
(rule set with its options, and the number of players) to who won games of bots
(`FITTED`, made by `manage.py evaluator_check --fit`); a table not fitted uses the nearest
fitted one of its rule set. With a roll in hand (phase "move"), the chances are those after
the move that is best for the player to move by this evaluation.

In Pairs both partners get the pair's chance; everywhere else the chances sum to 1.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import NamedTuple

from games.engine import YARD, Move, State, move, roll, rules_name

from .expert import DEFAULT, _tables, values


class Params(NamedTuple):
    """One table's fitted prices."""

    speed: float  # squares a side covers in one round, on average (stuck turns included)
    spread: float  # variance of its finishing time, in rounds squared, per square left
    yard: float  # squares a pawn in the yard costs besides its whole way home
    danger: float  # how many times the expert's expected capture loss counts
    sharp: float = 1.0  # the race's shares raised to this power (and summed to 1 again)


# Fitted per table to who won games of hard, medium and greedy bots at random seats (seed 1;
# the checks use seed 2): the spread, yard and danger by `evaluator_check --fit --fit-games
# 60` (one position in 15), then the sharpness alone by `evaluator_check --fit --fit-games 150
# --jobs 2` (one position in 8; classic for 2 is kept at 1: refitting it whole made its check
# worse). Quick's tables were fitted whole by the second command. Key: rules_name and players.
# Params(speed, spread, yard, danger, sharpness). The check: games/bots/EVALUATOR.md.
FITTED: dict[tuple[str, int], Params] = {
    ("classic", 2): Params(3.000, 2.826, 21.926, 0.001),
    # Refitted whole on 1,500 games (4 Dec): its check from 1.9 and 8.0 points to 1.2 and 7.1.
    ("classic", 3): Params(3.000, 1.185, 12.042, 1.035, 0.636),
    ("classic", 4): Params(3.000, 2.982, 6.206, 0.679, 1.028),
    ("family", 2): Params(3.000, 3.879, 22.063, 0.053, 1.277),
    ("family", 3): Params(3.000, 1.963, 3.673, 1.322, 0.945),
    ("family", 4): Params(3.000, 1.673, 3.544, 1.162, 0.838),
    ("duel", 2): Params(3.000, 2.595, 2.619, 0.569, 1.193),
    ("mensch", 2): Params(3.000, 2.161, 7.193, 1.532, 1.032),
    ("mensch", 3): Params(3.000, 2.682, 8.881, 0.797, 1.100),
    ("mensch", 4): Params(3.000, 2.086, 4.195, 0.674, 0.975),
    ("party", 2): Params(3.000, 3.011, 12.466, 1.223, 1.093),
    ("party", 3): Params(3.000, 1.532, 1.714, 0.327, 0.943),
    ("party", 4): Params(3.000, 2.405, 12.237, 1.557, 1.041),
    ("party+power", 2): Params(3.000, 5.172, 17.449, 0.137, 1.270),
    ("party+power", 3): Params(3.000, 1.902, 7.584, 0.631, 0.852),
    ("party+power", 4): Params(3.000, 2.489, 0.004, 0.849, 1.023),
    # Pairs refitted whole on 1,500 games (`--fit --fit-games 1500`, 4 Dec): the first fit's
    # 60 games left it 6 points off on average, 10.6 at the worst bin; now 1.9 and 2.8.
    ("party+pairs", 4): Params(3.000, 0.548, 8.297, 1.355, 0.594),
    ("party+pairs+power", 4): Params(3.000, 1.048, 0.430, 1.591, 0.923),
    ("quick", 2): Params(3.000, 0.111, 279.501, 1.001, 0.257),
    ("quick", 3): Params(3.000, 0.545, 13.942, 2.452, 0.596),
    ("quick", 4): Params(3.000, 0.283, 131.013, 1.741, 0.383),
}
FALLBACK = Params(speed=3.0, spread=2.0, yard=8.0, danger=0.6)
GRID = 40  # points of the numerical integration


class Side(NamedTuple):
    """What the race model reads of one side: the squares it has left (pawns on the way), its
    pawns in the yard, its expected capture loss, when it acts in the round (0 = first; in
    rounds), and how many players move its pawns."""

    corners: tuple[int, ...]
    squares: float
    yard: int
    danger: float
    offset: float
    movers: int


def sides(state: State) -> list[Side]:
    """The sides still racing in `state` (phase "roll" or "over"), with what the model reads."""
    rules = state.rules
    seats = state.seats
    out = state.out
    placings = state.placings
    worth = values(state, DEFAULT)
    t = _tables(rules, DEFAULT)
    finish = rules.finish_from
    win = rules.win_pawns
    acting = [c for c in seats if c not in out]
    n = len(acting) or 1
    k0 = acting.index(state.to_play) if state.to_play in acting else 0
    order = {c: ((i - k0) % n) / n for i, c in enumerate(acting)}
    groups: list[tuple[int, ...]] = [(0, 2), (1, 3)] if rules.pairs else [(c,) for c in seats]
    found = []
    for group in groups:
        members = [c for c in group if c in seats and c not in out]
        if not members:
            continue
        squares = 0.0
        yard = 0
        danger = 0.0
        for c in members:
            row = state.pawns[c]
            # The pawns that must come home (quick: the `win_pawns` furthest along).
            needed = sorted(row, reverse=True)[:win] if win < len(row) else row
            for p in needed:
                if p == YARD:
                    yard += 1
                    squares += finish
                elif p < finish:
                    squares += finish - p
            if c not in placings:
                danger += (sum(t.value[p + 1] for p in row) - worth[c]) * len(needed) / len(row)
        movers = len(members)  # Pairs: a partner home moves the other's pawns
        found.append(
            Side(group, squares, yard, max(0.0, danger), min(order[c] for c in members), movers)
        )
    return found


def params_for(state: State) -> Params:
    key = (rules_name(state.rules), len(state.seats))
    found = FITTED.get(key)
    if found is not None:
        return found
    name = key[0]
    near = [k for k in FITTED if k[0] == name]
    if near:
        return FITTED[min(near, key=lambda k: abs(k[1] - key[1]))]
    return FALLBACK


def race(found: Sequence[Side], p: Params) -> list[float]:
    """Each side's chance to finish first (same order as `found`)."""
    if not found:
        return []
    if len(found) == 1:
        return [1.0]
    means = []
    sds = []
    for s in found:
        need = s.squares + p.yard * s.yard + p.danger * s.danger
        rate = p.speed * s.movers
        means.append(s.offset + need / rate)
        sds.append(math.sqrt(p.spread * need / s.movers + 0.05))
    if len(found) == 2:
        z = (means[1] - means[0]) / math.sqrt(sds[0] ** 2 + sds[1] ** 2)
        first = 0.5 * (1.0 + math.erf(z / math.sqrt(2.0)))
        return _sharpened([first, 1.0 - first], p.sharp)
    lo = min(m - 4.5 * s for m, s in zip(means, sds, strict=True))
    hi = min(m + 4.5 * s for m, s in zip(means, sds, strict=True))
    step = (hi - lo) / GRID
    root2 = math.sqrt(2.0)
    erf = math.erf
    cdfs = []
    for m, s in zip(means, sds, strict=True):
        scale = 1.0 / (s * root2)
        cdfs.append([0.5 * (1.0 + erf((lo + k * step - m) * scale)) for k in range(GRID + 1)])
    n = len(found)
    out = [0.0] * n
    for k in range(GRID):
        alive = [1.0 - 0.5 * (c[k] + c[k + 1]) for c in cdfs]
        for i in range(n):
            gained = cdfs[i][k + 1] - cdfs[i][k]
            if gained <= 0.0:
                continue
            rest = 1.0
            for j in range(n):
                if j != i:
                    rest *= alive[j]
            out[i] += gained * rest
    total = sum(out)
    if total <= 0.0:
        return [1.0 / n] * n
    return _sharpened([x / total for x in out], p.sharp)


def _sharpened(shares: list[float], sharp: float) -> list[float]:
    """The shares raised to `sharp` and summed to 1 again: the race model's confidence
    corrected to what the games showed (below 1: less sure, above: surer)."""
    if sharp == 1.0:
        return shares
    raised = [max(0.0, x) ** sharp for x in shares]
    total = sum(raised)
    if total <= 0.0:
        return [1.0 / len(shares)] * len(shares)
    return [x / total for x in raised]


def _settled(state: State) -> tuple[float, ...] | None:
    """The chances when the winner is already known (the game is over, or a seat has placed
    first where play goes on for the places)."""
    rules = state.rules
    if state.phase == "over" or (state.placings and not rules.pairs):
        first = state.placings[0] if state.placings else None
        if first is None:
            return tuple(0.0 for _ in range(4))
        team = {first, (first + 2) % 4} if rules.pairs else {first}
        return tuple(1.0 if c in team and c in state.seats else 0.0 for c in range(4))
    return None


def _spread(state: State, found: Sequence[Side], shares: Iterable[float]) -> tuple[float, ...]:
    result = [0.0, 0.0, 0.0, 0.0]
    for s, share in zip(found, shares, strict=True):
        for c in s.corners:
            if c in state.seats:
                result[c] = share
    return tuple(result)


def resting(state: State) -> tuple[float, ...]:
    """The chances of a state without a roll in hand (phase "roll" or "over")."""
    settled = _settled(state)
    if settled is not None:
        return settled
    found = sides(state)
    return _spread(state, found, race(found, params_for(state)))


def after_moves(state: State) -> list[tuple[Move, tuple[float, ...]]]:
    """Each legal move of a state in phase "move" with the chances after it, best first for
    the player to move (ties keep the engine's order)."""
    me = state.to_play
    ranked = [(m, resting(move(state, m)[0])) for m in state.legal]
    ranked.sort(key=lambda mc: -mc[1][me])
    return ranked


def _position(state: State) -> State:
    """`state` as a position: pawns of one corner on the same squares are interchangeable
    (two pawns in the yard, two on one square), unless a shield names one of them."""
    if state.shields:
        return state._replace(legal=())
    return state._replace(pawns=tuple(tuple(sorted(row)) for row in state.pawns), legal=())


def after_choices(state: State) -> list[tuple[Move, tuple[float, ...], tuple[Move, ...]]]:
    """The real choices of a state in phase "move": one per distinct position the legal moves
    lead to (bringing out one pawn of the yard or another is one choice), each as its first
    move in the engine's order, the chances after it and every move that leads there; best
    first for the player to move."""
    me = state.to_play
    found: dict[State, tuple[Move, tuple[float, ...], list[Move]]] = {}
    for m in state.legal:
        after = move(state, m)[0]
        key = _position(after)
        if key in found:
            found[key][2].append(m)
        else:
            found[key] = (m, resting(after), [m])
    ranked = [(m, c, tuple(same)) for m, c, same in found.values()]
    ranked.sort(key=lambda mcs: -mcs[1][me])
    return ranked


def chances(state: State) -> tuple[float, ...]:
    """Each corner's chance to place first (in Pairs, its pair's). With a roll in hand, the
    chances after the best move by this evaluation."""
    if state.phase == "move" and state.legal:
        return after_moves(state)[0][1]
    return resting(state)


def faces(state: State) -> list[tuple[float, ...]]:
    """For a state in phase "roll": the chances after each face 1..6, each played best."""
    return [chances(roll(state, f)[0]) for f in range(1, 7)]
