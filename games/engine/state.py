"""The value objects of a game: the state, a pawn move, and the error for an illegal action."""

from __future__ import annotations

from typing import NamedTuple

from .legal import legal_for, mover_of, roll_code
from .notation import rules_from_name, rules_name
from .pawns import YARD, IllegalAction, Move
from .rules import MAX_STOCK, Ruleset

Phase = str  # "roll" | "move" | "over"
NO_STOCK = (0, 0, 0)  # double, control, shield


class State(NamedTuple):
    """An immutable, hashable game position.

    ``pawns[c]`` holds the progress of corner c's four pawns (empty for an empty corner).
    ``legal`` holds the legal moves in phase "move"; it is derived from the rest.
    """

    rules: Ruleset
    seats: tuple[int, ...]
    to_play: int
    phase: Phase
    pawns: tuple[tuple[int, ...], ...]
    die: int = 0  # the value the pawn moves (twice the face with Double roll); 0 before a roll
    face: int = 0  # the face rolled (or chosen with Dice control)
    sixes: int = 0
    tries: int = 0  # rolls this turn that found no pawn out and no six
    placings: tuple[int, ...] = ()
    out: tuple[int, ...] = ()  # corners that resigned or forfeited, in that order
    legal: tuple[Move, ...] = ()
    # Power.
    stock: tuple[tuple[int, int, int], ...] = (NO_STOCK,) * 4
    picked: frozenset[int] = frozenset()
    shields: frozenset[tuple[int, int, int]] = frozenset()  # (given by, pawn's corner, pawn)
    bonus: str = ""  # the bonus used on the roll in hand: "double", "control" or "shield"

    @property
    def winner(self) -> int | None:
        """The corner placed first once the game is over."""
        return self.placings[0] if self.phase == "over" and self.placings else None

    def finished(self, corner: int) -> bool:
        """Whether `corner` has finished: every pawn home (quick: `rules.win_pawns` of them)."""
        return self.rules.done(self.pawns[corner])

    def __repr__(self) -> str:
        return f"State.parse({dumps(self)!r})"

    @staticmethod
    def parse(text: str) -> State:
        """The state a notation string describes (`loads`)."""
        return loads(text)


# ---------------------------------------------------------------------------- the text form
# A position's notation (see `games.engine.notation` for the form) is read and written here,
# beside the State it describes: `State.parse` and the State's repr use it.


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
    if set(state.seats) != {c for c in range(len(state.pawns)) if state.pawns[c]}:
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


# The fields a position's text may hold after the rule set name.
_FIELDS = frozenset(
    {
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
)


def loads(text: str) -> State:
    """The state `text` describes; raises IllegalAction naming what is wrong."""
    if not text.split():
        raise IllegalAction("An empty position: expected a rule set name and key=value fields")
    head, *tokens = text.split()
    rules = rules_from_name(head)
    fields = _fields(tokens)
    try:
        state = _state_of(rules, fields)
    except (KeyError, ValueError, IndexError) as exc:
        if isinstance(exc, IllegalAction):
            raise
        raise IllegalAction(f"Cannot read the position {text!r}: {exc}") from exc
    _check(state)
    if state.phase == "move":
        legal = legal_for(state, mover_of(state, state.to_play), roll_code(state.face, state.bonus))
        if not legal:
            raise IllegalAction("phase=move but no pawn can move the die")
        state = state._replace(legal=legal)
    return state


def _fields(tokens: list[str]) -> dict[str, str]:
    """The key=value tokens of a position, each field once and known."""
    fields: dict[str, str] = {}
    for token in tokens:
        key, eq, value = token.partition("=")
        if not eq or key in fields:
            raise IllegalAction(f"Cannot read {token!r}: expected one key=value per field")
        fields[key] = value
    if set(fields) - _FIELDS:
        raise IllegalAction(f"Unknown field {sorted(set(fields) - _FIELDS)[0]!r}")
    return fields


def _state_of(rules: Ruleset, fields: dict[str, str]) -> State:
    """The State the fields spell (KeyError, ValueError or IndexError where they cannot)."""
    groups = fields["pawns"].split("/")
    if len(groups) != rules.arms:
        count = "four" if rules.arms == 4 else "six"
        raise IllegalAction(f"pawns needs {count} corners separated by /")
    pawns = tuple(
        ()
        if g == "-"
        else tuple(YARD if v == "y" else rules.goal if v == "h" else int(v) for v in g.split(","))
        for g in groups
    )
    seats = (
        tuple(int(c) for c in fields["seats"])
        if "seats" in fields
        else tuple(c for c in range(rules.arms) if pawns[c])
    )
    stock: tuple[tuple[int, int, int], ...] = (NO_STOCK,) * rules.arms
    if "stock" in fields:
        rows = fields["stock"].split("/")
        stock = tuple((int(r[0]), int(r[1]), int(r[2])) for r in rows)
    shields = frozenset(
        (int(s[0]), int(s[1]), int(s[2])) for s in fields.get("shields", "").split(",") if s
    )
    return State(
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


def _check(state: State) -> None:
    """Refuse a position that no game can reach, naming the first thing wrong."""
    rules = state.rules
    pawns = state.pawns
    if state.phase not in ("roll", "move", "over"):
        raise IllegalAction(f"phase is roll, move or over, not {state.phase!r}")
    arms = rules.arms
    if not set(state.seats) <= set(range(arms)) or len(set(state.seats)) != len(state.seats):
        raise IllegalAction(f"seats are distinct corners 0 to {arms - 1}, not {state.seats}")
    if not rules.min_players <= len(state.seats) <= rules.max_players:
        raise IllegalAction(
            f"{rules.name} is played by {rules.min_players} to {rules.max_players} players"
        )
    if rules.teams and len(state.seats) != arms:
        raise IllegalAction(f"Team-Up is played by {arms} players")
    for c in range(arms):
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
        done = state.to_play in state.placings and not (
            rules.teamed and any(c not in state.placings for c in rules.team_of(state.to_play)[1:])
        )
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
    power = state.stock != (NO_STOCK,) * arms or state.picked or state.shields or state.bonus
    if power and not rules.power:
        raise IllegalAction("stock, picked squares, shields and bonuses belong to Power")
    if len(state.stock) != arms or any(not 0 <= n <= MAX_STOCK for s in state.stock for n in s):
        raise IllegalAction(f"a stock holds 0 to {MAX_STOCK} of each bonus")
    if not state.picked <= set(rules.board.bonus):
        raise IllegalAction("picked names only bonus squares")
