"""A compact text form of a position, like chess's FEN, that round-trips.

    classic to=0 phase=move die=6 face=6 sixes=1 pawns=y,0,12,h/-/y,y,y,y/-

Tokens are separated by spaces; the first names the preset with its house rules and party
options joined by ``+`` (``mensch+compulsory_capture``, ``party+pairs+power``). Pawns are
listed per corner 0..3, ``y`` for the yard, ``h`` for home (rules.goal), ``-`` for an empty
corner. Tokens that hold their starting value are left out. The legal moves are not written:
they follow from the rest.
"""

from __future__ import annotations

import functools

from .rules import MAX_STOCK, RULESETS, Ruleset
from .state import NO_STOCK, YARD, IllegalAction, State

OPTIONS = ("compulsory_capture", "optional_bring_out", "no_jump_home_column", "pairs", "power")


def rules_name(rules: Ruleset) -> str:
    """The preset name with the options switched on: ``mensch+compulsory_capture``."""
    return "+".join([rules.name] + [o for o in OPTIONS if getattr(rules, o)])


@functools.lru_cache(maxsize=64)
def rules_from_name(text: str) -> Ruleset:
    """The Ruleset a `rules_name` names (the same object each time)."""
    name, *options = text.split("+")
    if name not in RULESETS:
        raise IllegalAction(f"There is no rule set {name!r}; there are {', '.join(RULESETS)}")
    unknown = [o for o in options if o not in OPTIONS]
    if unknown:
        raise IllegalAction(f"Unknown option {unknown[0]!r}")
    rules = RULESETS[name]
    if options:
        try:
            rules = rules.with_options(**{o: True for o in options})
        except ValueError as exc:
            raise IllegalAction(str(exc)) from exc
    return rules


def _pawn(p: int, goal: int) -> str:
    return "y" if p == YARD else "h" if p == goal else str(p)


def dumps(state: State) -> str:
    """The notation of `state`."""
    rules = state.rules
    goal = rules.goal
    corners = "/".join(",".join(_pawn(p, goal) for p in row) if row else "-" for row in state.pawns)
    tokens = [rules_name(rules), f"to={state.to_play}", f"phase={state.phase}"]
    if state.phase == "move":
        tokens += [f"die={state.die}", f"face={state.face}"]
    for key in ("sixes", "tries"):
        if getattr(state, key):
            tokens.append(f"{key}={getattr(state, key)}")
    if set(state.seats) != {c for c in range(4) if state.pawns[c]}:
        tokens.append("seats=" + "".join(map(str, state.seats)))
    if state.placings:
        tokens.append("placings=" + "".join(map(str, state.placings)))
    if state.out:
        tokens.append("out=" + "".join(map(str, state.out)))
    if any(s != NO_STOCK for s in state.stock):
        tokens.append("stock=" + "/".join("".join(map(str, s)) for s in state.stock))
    if state.picked:
        tokens.append("picked=" + ",".join(map(str, sorted(state.picked))))
    if state.shields:
        tokens.append("shields=" + ",".join(f"{g}{c}{p}" for g, c, p in sorted(state.shields)))
    if state.bonus:
        tokens.append(f"bonus={state.bonus}")
    tokens.append(f"pawns={corners}")
    return " ".join(tokens)


def loads(text: str) -> State:
    """The state `text` describes; raises IllegalAction naming what is wrong."""
    from .play import _code, _moves

    if not text.split():
        raise IllegalAction("An empty position: expected a rule set name and key=value fields")
    head, *tokens = text.split()
    rules = rules_from_name(head)
    fields: dict[str, str] = {}
    for token in tokens:
        key, eq, value = token.partition("=")
        if not eq or key in fields:
            raise IllegalAction(f"Cannot read {token!r}: expected one key=value per field")
        fields[key] = value
    known = {
        "to",
        "phase",
        "die",
        "face",
        "sixes",
        "tries",
        "seats",
        "placings",
        "out",
        "stock",
        "picked",
        "shields",
        "bonus",
        "pawns",
    }
    if set(fields) - known:
        raise IllegalAction(f"Unknown field {sorted(set(fields) - known)[0]!r}")
    try:
        groups = fields["pawns"].split("/")
        if len(groups) != 4:
            raise IllegalAction("pawns needs four corners separated by /")
        pawns = tuple(
            ()
            if g == "-"
            else tuple(
                YARD if v == "y" else rules.goal if v == "h" else int(v) for v in g.split(",")
            )
            for g in groups
        )
        seats = (
            tuple(int(c) for c in fields["seats"])
            if "seats" in fields
            else tuple(c for c in range(4) if pawns[c])
        )
        stock: tuple[tuple[int, int, int], ...] = (NO_STOCK,) * 4
        if "stock" in fields:
            rows = fields["stock"].split("/")
            stock = tuple((int(r[0]), int(r[1]), int(r[2])) for r in rows)
        shields = frozenset(
            (int(s[0]), int(s[1]), int(s[2])) for s in fields.get("shields", "").split(",") if s
        )
        state = State(
            rules,
            seats,
            int(fields["to"]),
            fields.get("phase", "roll"),
            pawns,
            int(fields.get("die", 0)),
            int(fields.get("face", 0)),
            int(fields.get("sixes", 0)),
            int(fields.get("tries", 0)),
            tuple(int(c) for c in fields.get("placings", "")),
            tuple(int(c) for c in fields.get("out", "")),
            (),
            stock,
            frozenset(int(s) for s in fields.get("picked", "").split(",") if s),
            shields,
            fields.get("bonus", ""),
        )
    except (KeyError, ValueError, IndexError) as exc:
        if isinstance(exc, IllegalAction):
            raise
        raise IllegalAction(f"Cannot read the position {text!r}: {exc}") from exc
    _check(state)
    if state.phase == "move":
        from .play import mover_of

        legal = _moves(state, mover_of(state, state.to_play), _code(state.face, state.bonus))
        if not legal:
            raise IllegalAction("phase=move but no pawn can move the die")
        state = state._replace(legal=legal)
    return state


def _check(state: State) -> None:
    """Refuse a position that no game can reach, naming the first thing wrong."""
    rules = state.rules
    pawns = state.pawns
    if state.phase not in ("roll", "move", "over"):
        raise IllegalAction(f"phase is roll, move or over, not {state.phase!r}")
    if not set(state.seats) <= {0, 1, 2, 3} or len(set(state.seats)) != len(state.seats):
        raise IllegalAction(f"seats are distinct corners 0 to 3, not {state.seats}")
    if not rules.min_players <= len(state.seats) <= rules.max_players:
        raise IllegalAction(
            f"{rules.name} is played by {rules.min_players} to {rules.max_players} players"
        )
    for c in range(4):
        row = pawns[c]
        if c in state.seats and c not in state.out and len(row) != 4:
            raise IllegalAction(f"corner {c} is seated and needs four pawns")
        if (c not in state.seats or c in state.out) and row:
            raise IllegalAction(f"corner {c} has no player, so no pawns")
        if any(not YARD <= p <= rules.goal for p in row):
            raise IllegalAction(
                f"each pawn stands within the board ({YARD}..{rules.goal}); corner {c}'s does not"
            )
        if not rules.land_on_own and any(p >= 0 and row.count(p) > 1 for p in row):
            raise IllegalAction(f"in {rules.name} two pawns of corner {c} never share a square")
    if state.to_play not in state.seats:
        raise IllegalAction(f"corner {state.to_play} has no player")
    if state.phase != "over":
        done = state.to_play in state.placings and not rules.pairs
        if state.to_play in state.out or done:
            raise IllegalAction(f"corner {state.to_play} is no longer playing")
    if not set(state.placings) | set(state.out) <= set(state.seats):
        raise IllegalAction("placings and out name only seated corners")
    if state.phase == "move":
        if not 1 <= state.face <= 6:
            raise IllegalAction(f"a die shows 1 to 6, not {state.face}")
        want = state.face * 2 if state.bonus == "double" else state.face
        if state.die != want:
            raise IllegalAction(f"die={state.die} does not follow from face={state.face}")
    elif state.die or state.face:
        raise IllegalAction("die and face are set only in phase move")
    if state.sixes < 0 or (rules.max_sixes and state.sixes >= rules.max_sixes):
        raise IllegalAction(f"sixes in a row cannot be {state.sixes} in {rules.name}")
    if not 0 <= state.tries < max(1, rules.tries_without_pawn_out):
        raise IllegalAction(f"tries cannot be {state.tries} in {rules.name}")
    if state.bonus not in ("", "double", "control", "shield"):
        raise IllegalAction(f"bonus is double, control or shield, not {state.bonus!r}")
    power = state.stock != (NO_STOCK,) * 4 or state.picked or state.shields or state.bonus
    if power and not rules.power:
        raise IllegalAction("stock, picked squares, shields and bonuses belong to Power")
    if len(state.stock) != 4 or any(not 0 <= n <= MAX_STOCK for s in state.stock for n in s):
        raise IllegalAction(f"a stock holds 0 to {MAX_STOCK} of each bonus")
    if not state.picked <= set(rules.board.bonus):
        raise IllegalAction("picked names only bonus squares")
