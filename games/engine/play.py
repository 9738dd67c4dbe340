"""The rules in motion: start a game, roll, list the legal moves, move, resign.

Every function takes a `State` and returns a new one with the events of the change; nothing
here reads a clock, draws a random number or does I/O. The die value comes from outside.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from .events import (
    BonusPicked,
    Captured,
    Event,
    ExtraRoll,
    Finished,
    Home,
    NoMove,
    Resigned,
    Rolled,
    Shielded,
    SixForfeited,
    TurnPassed,
    Won,
)
from .legal import OTHERS, captures_of, legal_for, mover_of, roll_code
from .pawns import YARD, IllegalAction, Move
from .rules import MAX_STOCK, STORED_BONUSES, Ruleset
from .state import NO_STOCK, State

_NO_SHIELDS: frozenset[tuple[int, int, int]] = frozenset()
_NO_PICKED: frozenset[int] = frozenset()
_new = tuple.__new__  # builds a NamedTuple without its Python-level __new__: the hot path
# Events are immutable values: the commonest are built once.
_ROLLED = tuple(tuple(Rolled(c, f, f, "") for f in range(7)) for c in range(6))
_ROLLED_ONLY = tuple(tuple((e,) for e in row) for row in _ROLLED)  # a roll's events, most often
_PASSED = tuple(tuple(TurnPassed(a, b) for b in range(6)) for a in range(6))
_AGAIN_SIX = tuple(ExtraRoll(c, ("six",)) for c in range(6))  # the commonest extra roll


# ---------------------------------------------------------------------------- starting a game


def new_game(rules: Ruleset, players: int, first: int = 0) -> State:
    """A new game: every seated pawn in its yard (quick: `rules.start_out` of them on the start
    square already), `first` (a corner) to roll."""
    seats = rules.seats_for(players)
    if first not in seats:
        raise IllegalAction(f"Corner {first} has no player; the seated corners are {seats}")
    start = (0,) * rules.start_out + (YARD,) * (4 - rules.start_out)
    pawns = tuple(start if c in seats else () for c in range(rules.arms))
    if rules.arms == 4:
        return State(rules, seats, first, "roll", pawns)
    return State(rules, seats, first, "roll", pawns, stock=(NO_STOCK,) * rules.arms)


def setup(
    rules: Ruleset,
    pawns: Mapping[int, Sequence[int]],
    to_play: int = 0,
    *,
    placings: Sequence[int] = (),
    stock: Mapping[int, Sequence[int]] | None = None,
) -> State:
    """A position placed by hand, for tests and tools; `to_play` starts a fresh turn.

    `pawns` maps corner -> four progress values (YARD .. rules.goal); an absent or empty
    corner has no player. Corners whose pawns are all home are placed in `placings` order
    (or corner order when not given).
    """
    arms = rules.arms
    rows: list[tuple[int, ...]] = [()] * arms
    for corner, values in pawns.items():
        if corner not in range(arms):
            raise IllegalAction(f"There is no corner {corner}; corners are 0 to {arms - 1}")
        row = tuple(values)
        if row and len(row) != 4:
            raise IllegalAction(f"Corner {corner} needs 4 pawns, not {len(row)}")
        for p in row:
            if not (isinstance(p, int) and YARD <= p <= rules.goal):
                raise IllegalAction(f"Pawn progress {p!r} is outside {YARD}..{rules.goal}")
            if not rules.land_on_own and p >= 0 and row.count(p) > 1:
                raise IllegalAction(f"In {rules.name} two pawns of one corner never share a square")
        rows[corner] = row
    seats = tuple(c for c in range(arms) if rows[c])
    if len(seats) < rules.min_players or len(seats) > rules.max_players:
        raise IllegalAction(
            f"{rules.name} is played by {rules.min_players} to "
            f"{rules.max_players} players, not {len(seats)}"
        )
    if rules.pairs and len(seats) != 4:
        raise IllegalAction("Pairs is played by four players")
    if rules.teams and len(seats) != arms:
        raise IllegalAction(f"Team-Up is played by {arms} players")
    if to_play not in seats:
        raise IllegalAction(f"Corner {to_play} has no player")
    grid = tuple(rows)
    done = [c for c in seats if rules.done(grid[c])]
    order = tuple(placings) if placings else tuple(done)
    if sorted(order) != sorted(done):
        raise IllegalAction("placings must list exactly the corners whose pawns are all home")
    stocks = [NO_STOCK] * arms
    for c, kinds in (stock or {}).items():
        if len(kinds) != 3 or not all(0 <= n <= MAX_STOCK for n in kinds):
            raise IllegalAction(
                f"A stock is 3 counts (double, control, shield) of 0 to {MAX_STOCK}"
            )
        stocks[c] = (kinds[0], kinds[1], kinds[2])
    state = State(rules, seats, to_play, "roll", grid, placings=order, stock=tuple(stocks))
    over = _game_over(state, grid, order, ())
    if over is not None:
        return state._replace(phase="over", placings=over)
    if to_play in done and not _team_plays(rules, to_play, done):
        raise IllegalAction(f"Corner {to_play} has every pawn home and no longer plays")
    return state


# ---------------------------------------------------------------------------- reading a state


def legal_moves(state: State) -> tuple[Move, ...]:
    """The moves the player to act may make with the roll in hand (empty unless phase "move")."""
    return state[11]  # state.legal, read by its place: every move of every game asks


def timeout_move(state: State) -> Move:
    """The move the server plays when the clock runs out: the most advanced legal pawn,
    ties to the lowest pawn number."""
    if not state.legal:
        raise IllegalAction("There is no move to play: roll first")
    best = state.legal[0]
    for m in state.legal:
        if m.frm > best.frm or (m.frm == best.frm and m.pawn < best.pawn):
            best = m
    return best


def standings(state: State) -> tuple[int, ...]:
    """Every seated corner, best first: finishers in order, then the others by pawns home and
    total progress, then those out (the last to leave above the first)."""
    return _rank(state, state.pawns, state.placings, state.out)


# ---------------------------------------------------------------------------- rolling


def roll(state: State, value: int, *, bonus: str = "") -> tuple[State, tuple[Event, ...]]:
    """Roll the die: `value` is the face (from the server's dice, a test, or Dice control).

    Power: ``bonus`` may be "double", "control" (then `value` is the chosen face) or "shield".
    """
    # One unpacking instead of a dozen attribute reads: this is the hot path of every game.
    (rules, seats, player, phase, pawns, _, _, sixes, tries, placings, out, _, stock, picked,
     shields, held) = state  # fmt: skip
    if phase != "roll":
        if phase == "over":
            raise IllegalAction("The game is over")
        raise IllegalAction("Move a pawn first: the roll in hand has not been used")
    if type(value) is not int or not 1 <= value <= 6:
        raise IllegalAction(f"A die shows 1 to 6, not {value!r}")
    if bonus:
        stock = _spend(state, player, bonus)
    else:
        bonus = held  # a Shield switched on before an earlier try stays on
    if bonus == "double":
        die, code, six = value * 2, value + 6, False
    else:
        die, code, six = value, value, value == 6
    if six:
        sixes += 1
        if rules.max_sixes and sixes >= rules.max_sixes:
            rolled = _ROLLED[player][value] if not bonus else Rolled(player, value, die, bonus)
            return _pass_turn(state, stock, (rolled, SixForfeited(player, sixes)))
    else:
        sixes = 0
    mover = mover_of(state, player) if rules.teamed else player
    board = rules.board
    if board.probed:
        # The tables say it all (`Board.plain`): each pawn's row, with the captures its
        # landing square makes, one probe of the other corners' rows. `legal_for` without
        # its call, spelled out here: the hot path of every game.
        steps = board.steps[mover][code]
        c1, c2, c3 = OTHERS[mover]
        r1, r2, r3 = pawns[c1], pawns[c2], pawns[c3]
        found: list[Move] = []
        for i, p in enumerate(pawns[mover]):
            row = steps[p + 1]
            if row is not None:
                m, rivals, _, probe = row[i]
                if probe is not None:
                    q1, q2, q3 = probe
                    if q1 in r1 or q2 in r2 or q3 in r3:
                        captures = captures_of(state, mover, i, m[5], rivals)
                        if captures:
                            m = _new(Move, (m[0], m[1], m[2], m[3], captures, *m[5:]))
                found.append(m)
        legal = tuple(found)
    else:
        legal = legal_for(state, mover, code)
    if legal:
        after = (rules, seats, player, "move", pawns, die, value, sixes, tries, placings, out,
                 legal, stock, picked, shields, bonus)  # fmt: skip
        if not bonus:
            return _new(State, after), _ROLLED_ONLY[player][value]
        return _new(State, after), (Rolled(player, value, die, bonus),)
    rolled = _ROLLED[player][value] if not bonus else Rolled(player, value, die, bonus)
    own = pawns[mover]
    no_move = _no_move(rules, player, code, die, own)
    if six and rules.unusable_six_rolls_again:
        again: tuple[str, ...] = ("unusable_six",)
    elif rules.tries_without_pawn_out > 1 and not _any_out(rules, own):
        tries += 1
        if tries >= rules.tries_without_pawn_out:
            return _pass_turn(state, stock, (rolled, no_move))
        again = ("try",)
    else:
        return _pass_turn(state, stock, (rolled, no_move))
    events = (rolled, no_move, ExtraRoll(player, again))
    keep = "shield" if bonus == "shield" else ""
    after = (rules, seats, player, "roll", pawns, 0, 0, sixes, tries, placings, out, (), stock,
             picked, shields, keep)  # fmt: skip
    return _new(State, after), events


# (release faces, player, die, whether no pawn is out) -> the NoMove event: built once each.
_NO_MOVES: dict[tuple[frozenset[int], int, int, bool], NoMove] = {}


def _no_move(rules: Ruleset, player: int, code: int, die: int, own: tuple[int, ...]) -> NoMove:
    """Why `player`'s roll moves no pawn, as its NoMove event."""
    faces = rules.release_faces
    yard = code not in faces
    if yard:
        finish = rules.finish_from
        for p in own:
            if p != YARD and p < finish:
                yard = False
                break
    key = (faces, player, die, yard)
    event = _NO_MOVES.get(key)
    if event is None:
        if yard:
            said = " or ".join(str(f) for f in sorted(faces))
            reason = f"no pawn is out, and only a {said} brings one out of the yard"
        else:
            reason = f"no pawn can move {die}"
        event = _NO_MOVES[key] = NoMove(player, die, reason)
    return event


def _spend(state: State, player: int, bonus: str) -> tuple[tuple[int, int, int], ...]:
    """Check a bonus may be used on this roll; take Double roll and Dice control from stock."""
    if not state.rules.power:
        raise IllegalAction("Bonuses belong to Power, which this game does not play")
    if bonus not in STORED_BONUSES:
        raise IllegalAction(f"There is no bonus {bonus!r}; the bonuses are double, control, shield")
    k = STORED_BONUSES.index(bonus)
    mine = state.stock[player]
    if mine[k] < 1:
        raise IllegalAction(f"There is no {bonus} bonus in your stock")
    if state.bonus == "shield" and bonus != "shield":
        raise IllegalAction("Only one bonus per roll: a Shield is already switched on")
    if bonus == "shield":
        return state.stock
    return _stock_add(state.stock, player, k, -1)


def _stock_add(
    stock: tuple[tuple[int, int, int], ...], player: int, k: int, n: int
) -> tuple[tuple[int, int, int], ...]:
    row = list(stock[player])
    row[k] = min(MAX_STOCK, row[k] + n)
    changed = list(stock)
    changed[player] = (row[0], row[1], row[2])
    return tuple(changed)


def _any_out(rules: Ruleset, own: tuple[int, ...]) -> bool:
    """Whether any pawn is in play: off the yard and able to move with some roll."""
    for p in own:
        if p == YARD:
            continue
        for d in range(1, 7):
            t = p + d
            if t > rules.goal:
                break
            if not rules.land_on_own and t in own:
                continue
            if rules.no_jump_home_column and any(p < q < t and q > rules.last_track for q in own):
                continue
            return True
    return False


# ---------------------------------------------------------------------------- moving


def move(state: State, chosen: Move, *, shield: bool = False) -> tuple[State, tuple[Event, ...]]:
    """Play one of `legal_moves(state)`. Power: ``shield=True`` gives the pawn a Shield."""
    (rules, seats, player, phase, pawns, _, face, sixes, _, placings, out, legal, stock, picked,
     shields, held) = state  # fmt: skip
    if phase != "move":
        if phase == "over":
            raise IllegalAction("The game is over")
        raise IllegalAction("Roll the die first")
    if chosen not in legal:
        # A move named by corner, pawn, from and to (without the derived fields) is enough.
        same = [m for m in legal if m[:4] == chosen[:4]]
        if not same:
            raise IllegalAction(_why_not(state, chosen))
        chosen = same[0]
    c, i, frm, to, captures, square, _, home, bonus = chosen
    # The pawns after the move, spelled out (the fastest way to copy four rows of four).
    a, b, x, d = pawns[c]
    row: tuple[int, ...] = (
        (to, b, x, d)
        if i == 0
        else (a, to, x, d)
        if i == 1
        else (a, b, to, d)
        if i == 2
        else (a, b, x, to)
    )
    if len(pawns) == 4:
        p0, p1, p2, p3 = pawns
        if c == 0:
            pawns = (row, p1, p2, p3)
        elif c == 1:
            pawns = (p0, row, p2, p3)
        elif c == 2:
            pawns = (p0, p1, row, p3)
        else:
            pawns = (p0, p1, p2, row)
    else:
        pawns = pawns[:c] + (row,) + pawns[c + 1 :]  # six arms
    # The Moved/Released event of this step, built once with the move tables.
    if held == "double":
        steps = rules.board.steps[c][face + 6][frm + 1]
        six = False
    else:
        steps = rules.board.steps[c][face][frm + 1]
        six = face == 6
    assert steps is not None  # a legal move has its row in the tables
    first: Event = steps[i][2]
    if not (captures or home or bonus or six or shield or held):
        # The plain move, most of any game: the turn passes.
        if placings or out:
            nxt = _next_player(state, player, placings, out)
        else:
            nxt = seats[(seats.index(player) + 1) % len(seats)]
        if shields:
            shields = _shields_expire(shields, nxt)
        passed = (rules, seats, nxt, "roll", pawns, 0, 0, 0, 0, placings, out, (), stock,
                  _NO_PICKED, shields, "")  # fmt: skip
        return _new(State, passed), (first, _PASSED[player][nxt])
    events: list[Event] = [first]
    if captures:
        rows = list(pawns)
        for cc, j in captures:
            rows[cc] = _place(rows[cc], j, YARD)
            events.append(_new(Captured, (cc, j, c, square)))
        pawns = tuple(rows)
    if shields and captures:
        shields = frozenset(x for x in shields if (x[1], x[2]) not in captures)
    if shield or held == "shield":
        stock, shields = _shield(state, chosen, shield, stock, shields, events)
    reasons: list[str] = ["six"] if six else []
    if captures and rules.extra_roll_on_capture:
        reasons.append("capture")
    if home:
        events.append(Home(c, i))
        if rules.extra_roll_on_home:
            reasons.append("home")
    if bonus:
        picked = picked | {square}
        stock = _pick_bonus(player, bonus, square, stock, reasons, events)
    if rules.sixes_reset_on_capture_or_home and (captures or home):
        sixes = 0
    phase = "roll"
    if home and rules.done(pawns[c]) and c not in placings:
        placings = placings + (c,)
        events.append(Finished(c, len(placings)))
        final = _game_over(state, pawns, placings, out)
        if final is not None:
            events.append(Won(final[0], final))
            placings, phase, reasons = final, "over", []
    if reasons and (player not in placings or _team_plays(rules, player, placings)):
        again = (
            _AGAIN_SIX[player] if reasons == ["six"] else _new(ExtraRoll, (player, tuple(reasons)))
        )
        events.append(again)
    elif phase != "over":
        nxt = _next_player(state, player, placings, out)
        events.append(_PASSED[player][nxt])
        player, sixes, picked = nxt, 0, _NO_PICKED
        if shields:
            shields = _shields_expire(shields, nxt)
    else:
        sixes = 0
    after = (rules, seats, player, phase, pawns, 0, 0, sixes, 0, placings, out, (), stock, picked,
             shields, "")  # fmt: skip
    return _new(State, after), tuple(events)


def _shield(
    state: State,
    chosen: Move,
    shield: bool,
    stock: tuple[tuple[int, int, int], ...],
    shields: frozenset[tuple[int, int, int]],
    events: list[Event],
) -> tuple[tuple[tuple[int, int, int], ...], frozenset[tuple[int, int, int]]]:
    """Power: a Shield on the moved pawn (asked with the move, or with the roll), paid from
    the stock; the new stock and shields, the Shielded event appended to `events`."""
    rules, player, held = state.rules, state.to_play, state.bonus
    if held in ("double", "control"):
        raise IllegalAction("Only one bonus per roll: this roll already used one")
    if not rules.power:
        raise IllegalAction("Shields belong to Power, which this game does not play")
    if chosen.to > rules.last_track:
        if shield:
            raise IllegalAction("A Shield goes only on a pawn that ends its move on the track")
        return stock, shields
    if stock[player][2] < 1:
        raise IllegalAction("There is no shield bonus in your stock")
    events.append(Shielded(player, chosen.corner, chosen.pawn))
    return _stock_add(stock, player, 2, -1), shields | {(player, chosen.corner, chosen.pawn)}


def _pick_bonus(
    player: int,
    bonus: str,
    square: int,
    stock: tuple[tuple[int, int, int], ...],
    reasons: list[str],
    events: list[Event],
) -> tuple[tuple[int, int, int], ...]:
    """Power: the pawn ended on a bonus square: Plus is an extra roll (added to `reasons`),
    the others go into the stock; the BonusPicked event appended to `events`."""
    if bonus == "plus":
        reasons.append("plus")
    else:
        stock = _stock_add(stock, player, STORED_BONUSES.index(bonus), 1)
    events.append(BonusPicked(player, bonus, square))
    return stock


def _place(row: tuple[int, ...], i: int, to: int) -> tuple[int, ...]:
    """`row` with pawn `i` at progress `to` (spelled out: the fastest way to copy four)."""
    a, b, c, d = row
    if i == 0:
        return (to, b, c, d)
    if i == 1:
        return (a, to, c, d)
    if i == 2:
        return (a, b, to, d)
    return (a, b, c, to)


def _why_not(state: State, chosen: Move) -> str:
    same = [m for m in state.legal if m.corner == chosen.corner and m.pawn == chosen.pawn]
    if same:
        return f"Pawn {chosen.pawn} can move, but to {same[0].to}, not {chosen.to}"
    mover = state.legal[0].corner if state.legal else state.to_play
    if chosen.corner != mover:
        return f"Corner {state.to_play} moves corner {mover}'s pawns, not corner {chosen.corner}'s"
    if not 0 <= chosen.pawn < 4:
        return f"There is no pawn {chosen.pawn}; pawns are 0 to 3"
    p = state.pawns[mover][chosen.pawn]
    rules = state.rules
    if p == YARD:
        if state.die != 6 or state.face != 6:
            return f"Pawn {chosen.pawn} is in the yard, and only a 6 brings a pawn out"
    elif p == rules.goal:
        return f"Pawn {chosen.pawn} is already home"
    elif p + state.die > rules.goal:
        return f"Pawn {chosen.pawn} cannot move {state.die}: it would pass home (exact finish)"
    elif not rules.land_on_own and p + state.die in state.pawns[mover]:
        return f"Pawn {chosen.pawn} cannot land on your own pawn"
    if rules.brings_out_by_force and YARD in state.pawns[mover]:
        return "A waiting pawn must come out on a 6, and your start square must be cleared first"
    if rules.compulsory_capture and any(m.captures for m in state.legal):
        return "Capturing is compulsory: choose a move that captures"
    return f"Pawn {chosen.pawn} cannot move {state.die}"


# ---------------------------------------------------------------------------- turns and the end


def _shields_expire(
    shields: frozenset[tuple[int, int, int]], player: int
) -> frozenset[tuple[int, int, int]]:
    """A Shield lasts until the next turn of the player who gave it: drop `player`'s."""
    return frozenset(x for x in shields if x[0] != player)


def _pass_turn(
    state: State, stock: tuple[tuple[int, int, int], ...], events: tuple[Event, ...]
) -> tuple[State, tuple[Event, ...]]:
    """End the turn: the next corner clockwise that still plays starts a fresh turn, and
    picked bonuses lie on the board again."""
    (rules, seats, player, _, pawns, _, _, _, _, placings, out, _, _, _, shields,
     _) = state  # fmt: skip
    if placings or out:
        nxt = _next_player(state, player, placings, out)
    else:
        nxt = seats[(seats.index(player) + 1) % len(seats)]
    if shields:
        shields = _shields_expire(shields, nxt)
    after = (rules, seats, nxt, "roll", pawns, 0, 0, 0, 0, placings, out, (), stock, _NO_PICKED,
             shields, "")  # fmt: skip
    return _new(State, after), events + (_PASSED[player][nxt],)


def _next_player(state: State, player: int, placings: tuple[int, ...], out: tuple[int, ...]) -> int:
    seats = state.seats
    n = len(seats)
    k = seats.index(player) if player in seats else 0
    rules = state.rules
    for step in range(1, n + 1):
        c = seats[(k + step) % n]
        if c in out:
            continue
        if c in placings and not _team_plays(rules, c, placings):
            continue
        return c
    return player


def _team_plays(rules: Ruleset, corner: int, placings: Sequence[int]) -> bool:
    """Whether finished `corner` still plays: a partner of theirs (Pairs, Team-Up) has not
    finished, and they move that partner's pawns."""
    return rules.teamed and any(c not in placings for c in rules.team_of(corner)[1:])


def _game_over(
    state: State,
    pawns: tuple[tuple[int, ...], ...],
    placings: tuple[int, ...],
    out: tuple[int, ...],
) -> tuple[int, ...] | None:
    """The final placings if the game has ended, else None."""
    rules = state.rules
    playing = [c for c in state.seats if c not in out and c not in placings]
    if rules.teams:
        return _teams_over(state, pawns, placings, out)
    if rules.pairs:
        for c in (0, 1):
            pair_done = c in placings and c + 2 in placings
            pair_out = c in out
            other_out = 1 - c in out
            if pair_done or (other_out and not pair_out):
                winners = [x for x in placings if x % 2 == c] + [
                    x for x in (c, c + 2) if x not in placings
                ]
                losers = (
                    [x for x in placings if x % 2 != c]
                    + [x for x in (1 - c, 3 - c) if x not in placings and x not in out]
                    + [x for x in reversed(out) if x not in placings]
                )
                return tuple(winners + losers)
        return None
    if rules.ending == "first":
        if placings or len(playing) <= 1:
            return _rank(state, pawns, placings, out)
        return None
    if len(playing) <= 1:
        return _rank(state, pawns, placings, out)
    return None


def _teams_over(
    state: State,
    pawns: tuple[tuple[int, ...], ...],
    placings: tuple[int, ...],
    out: tuple[int, ...],
) -> tuple[int, ...] | None:
    """Team-Up's end: the first team with every member finished wins (or the last team with
    anyone still playing); its members first in the order they finished, then the others as
    `_rank` places them, those out last."""
    rules = state.rules
    teams = {rules.team_of(c)[0] % rules.teams: rules.team_of(c) for c in state.seats}
    winner = next(
        (t for t in teams.values() if all(c in placings for c in t)),
        None,
    )
    left = [t for t in teams.values() if any(c not in out for c in t)]
    if winner is None and len(left) == 1:
        winner = left[0]
    if winner is None:
        return None
    first = [c for c in placings if c in winner] + [c for c in winner if c not in placings]
    rest = [c for c in _rank(state, pawns, placings, out) if c not in winner]
    return tuple(first + rest)


def _rank(
    state: State,
    pawns: tuple[tuple[int, ...], ...],
    placings: tuple[int, ...],
    out: tuple[int, ...],
) -> tuple[int, ...]:
    rules = state.rules
    finish = rules.finish_from
    done = [c for c in placings if c not in out]
    lead = done[0] if done else state.to_play
    seats = state.seats
    k = seats.index(lead) if lead in seats else 0
    rest = [c for c in seats if c not in out and c not in done]
    rest.sort(
        key=lambda c: (
            -sum(1 for p in pawns[c] if p >= finish),
            -sum(pawns[c]),
            (seats.index(c) - k) % len(seats),
        )
    )
    return tuple(done + rest + [c for c in reversed(out)])


def resign(state: State, corner: int, reason: str = "resigned") -> tuple[State, tuple[Event, ...]]:
    """`corner` leaves the game (resigned, or forfeited by the clock): placed below everyone
    still playing, pawns removed. In Pairs the partner leaves with them."""
    if state.phase == "over":
        raise IllegalAction("The game is over")
    if corner not in state.seats:
        raise IllegalAction(f"Corner {corner} has no player")
    if corner in state.out:
        raise IllegalAction(f"Corner {corner} has already left the game")
    rules = state.rules
    if corner in state.placings and not _team_plays(rules, corner, state.placings):
        raise IllegalAction(f"Corner {corner} has already finished")
    leaving = rules.team_of(corner) if rules.teamed else (corner,)
    out = state.out + tuple(c for c in leaving if c not in state.out)
    rows = list(state.pawns)
    for c in leaving:
        rows[c] = ()
    pawns = tuple(rows)
    events: list[Event] = [Resigned(c, reason) for c in leaving]
    placings = tuple(c for c in state.placings if c not in leaving)
    shields = frozenset(s for s in state.shields if s[1] not in leaving and s[0] not in leaving)
    final = _game_over(state, pawns, placings, out)
    if final is not None:
        events.append(Won(final[0], final))
        over = State(
            rules,
            state.seats,
            state.to_play,
            "over",
            pawns,
            0,
            0,
            0,
            0,
            final,
            out,
            (),
            state.stock,
            state.picked,
            shields,
            "",
        )
        return over, tuple(events)
    after = State(
        rules,
        state.seats,
        state.to_play,
        state.phase,
        pawns,
        state.die,
        state.face,
        state.sixes,
        state.tries,
        placings,
        out,
        state.legal,
        state.stock,
        state.picked,
        shields,
        state.bonus,
    )
    if state.to_play in leaving:
        return _pass_turn(after, state.stock, tuple(events))
    if state.phase == "move":
        # The roll in hand may have captured pawns that are now gone.
        mover = mover_of(after, state.to_play)
        after = after._replace(legal=legal_for(after, mover, roll_code(state.face, state.bonus)))
        if not after.legal:
            return _pass_turn(after, state.stock, tuple(events))
    return after, tuple(events)
