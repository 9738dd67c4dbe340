"""One change to a match as a service makes it, before it is saved: the match and its seats as
read, the engine's state, and the rows, events, seat fields and audit entries it appends as
the players roll, move and leave (`games.services.kernel` saves it). Which seat acts, and
whether the match is being played, are checked here too.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.db.models import Q

from games.engine import Event, IllegalAction, State, as_dict, loads
from games.engine import Move as EngineMove
from games.engine import move as engine_move
from games.engine import resign as engine_resign
from games.engine import roll as engine_roll
from games.engine.events import TurnPassed
from games.match import dice
from games.match.errors import ServiceError
from games.models import ENDED, Match, MatchEvent, Seat, Status, Turn
from games.models import Move as MoveRow
from games.models import Roll as RollRow


@dataclass
class Change:
    """The rows one service call appends, and the match as it will be saved."""

    match: Match
    now: datetime
    seats: list[Seat]
    state: State | None = None
    rolls: int = 0
    turn: int = 0
    events: list[MatchEvent] = field(default_factory=list)
    rows: list[Any] = field(default_factory=list)
    seats_changed: dict[int, set[str]] = field(default_factory=dict)
    audits: list[Callable[[], Any]] = field(default_factory=list)
    match_fields: set[str] = field(default_factory=set)  # set-once fields to save too
    first_seq: int = 0
    # The player to act rolled and still has to move: their turn's deadline runs on.
    clock_runs_on: bool = False
    # A roll no pawn could use passed the die: the next player starts after a pause.
    passed_on_roll: bool = False
    # The player took their seat back from the computer with this action: a fresh clock.
    reclaimed: bool = False
    # The player to act is back within the wait (mensch) with this many seconds left.
    resume_clock: float | None = None
    # When the seat to play could act: the match's previous change (read with the lock), then
    # each action of this change. A roll's or move's think time runs from it.
    since: datetime | None = None
    # The match's snapshot once saved, in its public and private parts
    # (`selectors.snapshot_parts`), built once for every viewer and sent with the broadcast.
    view: tuple[dict[str, Any], dict[str, Any]] | None = None
    status_before: int = 0  # the match's status when the change began

    def __post_init__(self) -> None:
        self.first_seq = self.match.seq + 1
        self.status_before = self.match.status
        self.since = getattr(self.match, "acted_at", None)
        pause = self.match.pause_until
        if self.since is not None and pause is not None and pause > self.since:
            self.since = pause  # after a lost roll the next player can act when the pause ends
        snap = self.match.snapshot or {}
        if snap.get("notation"):
            self.state = loads(snap["notation"])
            self.rolls = int(snap["rolls"])
            self.turn = int(snap["turn"])

    # -- reading

    def seat_at(self, corner: int) -> Seat | None:
        for seat in self.seats:
            if seat.corner == corner:
                return seat
        return None

    def seat_to_play(self) -> Seat:
        assert self.state is not None
        seat = self.seat_at(self.state.to_play)
        assert seat is not None, "the engine gave the turn to an empty corner"
        return seat

    # -- appending

    def event(self, kind: str, data: dict[str, Any]) -> int:
        self.match.seq += 1
        self.events.append(
            MatchEvent(
                match=self.match,
                seq=self.match.seq,
                change=self.first_seq,
                kind=kind,
                data=data,
                at=self.now,
            )
        )
        return self.match.seq

    def engine_events(self, events: Iterable[Event]) -> int:
        """Append the engine's events; a passed turn starts a Turn row. Returns the first seq."""
        first = self.match.seq + 1
        for e in events:
            data = as_dict(e)
            kind = data.pop("kind")
            seq = self.event(kind, data)
            if isinstance(e, TurnPassed):
                self.turn += 1
                self.rows.append(
                    Turn(match=self.match, n=self.turn, corner=e.to, seq=seq, started_at=self.now)
                )
        return first

    def seat_update(self, seat: Seat, **values: Any) -> None:
        for name, value in values.items():
            setattr(seat, name, value)
        self.seats_changed.setdefault(seat.pk, set()).update(values)

    def think_ms(self) -> int | None:
        """Milliseconds since the seat could act; the next action counts from now."""
        since, self.since = self.since, self.now
        if since is None:
            return None
        return max(0, round((self.now - since).total_seconds() * 1000))

    # -- the actions

    def roll(
        self,
        seat: Seat,
        *,
        face: int,
        bonus: str,
        by: str,
        action_id: str,
        die: int | None = None,
    ) -> None:
        assert self.state is not None
        try:
            state, events = engine_roll(self.state, face, bonus=bonus)
        except IllegalAction as exc:
            raise ServiceError("illegal", str(exc)) from exc
        turn = self.turn
        seq = self.engine_events(events)
        self.rows.append(
            RollRow(
                match=self.match,
                turn=turn,
                corner=seat.corner,
                seq=seq,
                n=self.rolls,
                face=face,
                die=die,
                bonus=bonus,
                by=by,
                action_id=action_id,
                at=self.now,
                think_ms=self.think_ms(),
            )
        )
        self.rolls += 1
        self.state = state
        if any(isinstance(e, TurnPassed) for e in events):
            self.passed_on_roll = True
        elif by == "player" and state.phase == "move" and not self.reclaimed:
            self.clock_runs_on = True

    def dice_roll(self, seat: Seat, *, by: str, action_id: str = "", bonus: str = "") -> None:
        number = self.dice_number()
        face = dice.roll_face(self.match.server_seed, self.match.client_seed, number)
        die = None if number == self.rolls else number
        self.roll(seat, face=face, bonus=bonus, by=by, action_id=action_id, die=die)

    def dice_number(self) -> int:
        """The dice number of the next roll: the count of rolls still in play. Every roll so
        far is, except in local play after an undo: the rolls it withdrew do not count, so
        the same place in the game rolls the same face again (undo is for
        mistakes; `games.match.verify` checks it)."""
        if self.match.mode != "local" or getattr(self.match, "undone_none", False):
            return self.rolls  # (`fenced.load` read that no undo was ever made)
        undone = MatchEvent.objects.filter(match=self.match, kind="undone").values_list(
            "data", flat=True
        )
        spans = [(int(d["from"]), int(d["to"])) for d in undone]
        if not spans:
            return self.rolls
        within = Q()
        for low, high in spans:
            within |= Q(seq__gte=low, seq__lte=high)
        return self.rolls - RollRow.objects.filter(match=self.match).filter(within).count()

    def move(
        self, seat: Seat, chosen: EngineMove, *, shield: bool, by: str, action_id: str
    ) -> None:
        assert self.state is not None
        try:
            state, events = engine_move(self.state, chosen, shield=shield)
        except IllegalAction as exc:
            raise ServiceError("illegal", str(exc)) from exc
        played = next(m for m in self.state.legal if m[:4] == chosen[:4])
        turn = self.turn
        seq = self.engine_events(events)
        self.rows.append(
            MoveRow(
                match=self.match,
                turn=turn,
                corner=seat.corner,
                seq=seq,
                pawn=played.pawn,
                pawn_corner=played.corner,
                frm=played.frm,
                to=played.to,
                captures=[list(c) for c in played.captures],
                shield=shield,
                by=by,
                action_id=action_id,
                at=self.now,
                think_ms=self.think_ms(),
            )
        )
        self.state = state

    def leave(self, seat: Seat, *, reason: str, forfeit: bool) -> None:
        assert self.state is not None
        try:
            state, events = engine_resign(self.state, seat.corner, reason)
        except IllegalAction as exc:
            raise ServiceError("illegal", str(exc)) from exc
        self.event("leave", {"corner": seat.corner, "reason": reason, "forfeit": forfeit})
        self.engine_events(events)
        self.state = state
        for corner in state.out:
            out = self.seat_at(corner)
            if out is not None and not out.left:
                self.seat_update(out, left=True)

    def play_turn_for(self, seat: Seat, *, by: str, policy: Callable[[State], EngineMove]) -> None:
        """The server plays the rest of `seat`'s turn (rolling with the dice)."""
        assert self.state is not None
        while self.state.phase != "over" and self.state.to_play == seat.corner:
            if self.state.phase == "roll":
                self.dice_roll(seat, by=by)
            else:
                self.move(seat, policy(self.state), shield=False, by=by, action_id="")


def check_active(match: Match) -> None:
    if match.status in ENDED:
        raise ServiceError("over", "This match has ended")
    if match.status != Status.ACTIVE:
        raise ServiceError("bad_request", "This match has not started")


def acting_seat(change: Change, user: Any, corner: int | None) -> Seat:
    """The seat acting: the user's (the one to play, if they hold several) or `corner`'s."""
    if user is None and corner is None:
        raise ServiceError("bad_request", "Say who acts: a user or a corner")
    if user is None:
        seat = change.seat_at(int(corner)) if corner is not None else None
        if seat is None:
            raise ServiceError("not_seated", f"Corner {corner} has no seat in this match")
        return seat
    mine = [s for s in change.seats if s.user_id == user.pk]
    if corner is not None:
        mine = [s for s in mine if s.corner == corner]
    if not mine:
        raise ServiceError("not_seated", "You have no seat in this match")
    to_play = change.state.to_play if change.state is not None else None
    return next((s for s in mine if s.corner == to_play), mine[0])
