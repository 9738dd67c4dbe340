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

from .rules import RULESETS, Ruleset
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
    if state.phase not in ("roll", "move", "over"):
        raise IllegalAction(f"phase is roll, move or over, not {state.phase!r}")
    if any(row and len(row) != 4 for row in pawns) or any(
        not YARD <= p <= rules.goal for row in pawns for p in row
    ):
        raise IllegalAction("each seated corner has four pawns within the board")
    if state.phase == "move":
        from .play import mover_of

        legal = _moves(state, mover_of(state, state.to_play), _code(state.face, state.bonus))
        if not legal:
            raise IllegalAction("phase=move but no pawn can move the die")
        state = state._replace(legal=legal)
    return state
