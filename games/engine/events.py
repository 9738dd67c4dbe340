"""What happened, in order: the small records that `roll`, `move` and `resign` return."""

from __future__ import annotations

from typing import Any, NamedTuple, get_args


class Rolled(NamedTuple):
    corner: int
    face: int
    value: int  # what the pawn moves: twice the face with Double roll
    bonus: str = ""  # "double", "control" or "shield" when used on this roll

    @property
    def kind(self) -> str:
        return "rolled"


class NoMove(NamedTuple):
    """No pawn can use the roll; `reason` says why in words."""

    corner: int
    value: int
    reason: str

    @property
    def kind(self) -> str:
        return "no_move"


class SixForfeited(NamedTuple):
    corner: int
    sixes: int

    @property
    def kind(self) -> str:
        return "six_forfeited"


class Released(NamedTuple):
    """A pawn leaves the yard for its start square."""

    corner: int
    pawn: int
    square: int

    @property
    def kind(self) -> str:
        return "released"


class Moved(NamedTuple):
    corner: int
    pawn: int
    frm: int
    to: int
    square: int  # absolute track square, -1 off the track

    @property
    def kind(self) -> str:
        return "moved"


class Captured(NamedTuple):
    corner: int
    pawn: int
    by: int
    square: int

    @property
    def kind(self) -> str:
        return "captured"


class Home(NamedTuple):
    """A pawn reaches home (in mensch: the home row)."""

    corner: int
    pawn: int

    @property
    def kind(self) -> str:
        return "home"


class Finished(NamedTuple):
    """Every pawn of `corner` is home; `place` counts from 1."""

    corner: int
    place: int

    @property
    def kind(self) -> str:
        return "finished"


class ExtraRoll(NamedTuple):
    """The same player rolls again; reasons: six, capture, home, plus, try, unusable_six."""

    corner: int
    reasons: tuple[str, ...]

    @property
    def kind(self) -> str:
        return "extra_roll"


class TurnPassed(NamedTuple):
    frm: int
    to: int

    @property
    def kind(self) -> str:
        return "turn_passed"


class Resigned(NamedTuple):
    """A corner is out: it resigned or forfeited; its pawns leave the board."""

    corner: int
    reason: str

    @property
    def kind(self) -> str:
        return "resigned"


class Won(NamedTuple):
    """The game is over; `placings` orders every seated corner, the winner first."""

    corner: int
    placings: tuple[int, ...]

    @property
    def kind(self) -> str:
        return "won"


class BonusPicked(NamedTuple):
    corner: int
    bonus: str
    square: int

    @property
    def kind(self) -> str:
        return "bonus_picked"


class Shielded(NamedTuple):
    corner: int  # the player who gave the shield
    pawn_corner: int
    pawn: int

    @property
    def kind(self) -> str:
        return "shielded"


Event = (
    Rolled
    | NoMove
    | SixForfeited
    | Released
    | Moved
    | Captured
    | Home
    | Finished
    | ExtraRoll
    | TurnPassed
    | Resigned
    | Won
    | BonusPicked
    | Shielded
)


# Every event's kind, read from the classes (a kind is a constant of its class): the replay
# tells engine events from the services' own by it.
KINDS: frozenset[str] = frozenset(cls.kind.fget(None) for cls in get_args(Event))


def as_dict(event: Event) -> dict[str, Any]:
    """The event as JSON-ready data: its fields plus ``"kind"``."""
    data: dict[str, Any] = {"kind": event.kind}
    for name, value in zip(event._fields, event, strict=True):
        data[name] = list(value) if isinstance(value, tuple) else value
    return data
