"""One change to a match, as the services make it: lock the match, read its cached state, append
the engine's events and the rows they imply, then save the match, its seats, the audit entries
and the broadcast after commit. `games.services` is built on this; nothing else writes.

Times: every stored time and every deadline comes from the database clock. A human's clock
(modes ranked and friendly, presets with a turn timer) is ``rules.turn_seconds *
settings.LUDO_TIME_SCALE`` for one turn: it starts when the turn (or an extra roll) starts
and the roll does not restart it, so one deadline covers the roll and the move (seeds 000,
002: "30 seconds to roll and move", "20 seconds for each turn"). A bot's next step, and the
auto-move of a lone legal move, are due after ``settings.LUDO_BOT_DELAY`` seconds, in the same
``turn_deadline`` field. After a roll no pawn can use, the die passes on only after
``settings.LUDO_PASS_PAUSE`` seconds (``Match.pause_until``); the next deadline counts from
there.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from functools import partial
from typing import Any

from django.db import connection, models, router, transaction
from django.db.models import Q
from django.db.models.functions import Now
from django.db.models.signals import post_save

from audit import actions
from audit import services as audit
from audit.clock import db_now
from games.clocks import timing
from games.engine import Event, IllegalAction, State, as_dict, loads
from games.engine import Move as EngineMove
from games.engine import move as engine_move
from games.engine import resign as engine_resign
from games.engine import roll as engine_roll
from games.engine.events import TurnPassed
from games.match import dice, rooms
from games.match.errors import ServiceError
from games.match.replay import snapshot_of
from games.match.selectors import snapshot_for, snapshot_parts, view_of
from games.models import ENDED, Match, MatchEvent, Seat, Status, Turn
from games.models import Move as MoveRow
from games.models import Roll as RollRow
from games.services import broadcast
from games.services.deadlines import deadline_of, pass_pause, room_clocks
from ranked import ratings


@dataclass
class ActionResult:
    """What a change did: the events it appended (engine and service events, each with its
    ``seq`` and ``kind``), the match's ``seq`` after it, and the spectator's snapshot.

    ``repeated`` is True when the action id had been seen: the events are the earlier ones and
    nothing changed.
    """

    match_id: int
    seq: int
    events: list[dict[str, Any]]
    snapshot: dict[str, Any]
    repeated: bool = False


# ---------------------------------------------------------------------------- the change


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
        the same place in the game rolls the same face again (undo is for mistakes;
        `games.match.verify` checks it)."""
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


def _locking() -> models.QuerySet[Match]:
    """Matches locked until the transaction ends, with the database clock as ``db_now`` and
    the time of their last event as ``acted_at`` (in the same statement: think times)."""
    last = MatchEvent.objects.filter(match=models.OuterRef("pk")).order_by("-seq").values("at")
    return Match.objects.select_for_update().annotate(
        db_now=Now(), acted_at=models.Subquery(last[:1], output_field=models.DateTimeField())
    )


def lock_match(match_id: int) -> Match:
    """The match, locked until the transaction ends (see `_locking`)."""
    try:
        if connection.vendor == "postgresql":
            # Every action starts here: the same statement written once, not compiled by the
            # ORM each time (a third of a service call's CPU went to compiling its queries).
            found = list(Match.objects.raw(_lock_sql(), [int(match_id)]))
            if not found:
                raise Match.DoesNotExist
            return found[0]
        return _locking().get(pk=match_id)
    except (Match.DoesNotExist, ValueError, TypeError):
        raise ServiceError("not_found", "There is no such match") from None


@functools.cache
def _lock_sql() -> str:
    """`_locking` by primary key in PostgreSQL's words (its ``Now()`` is STATEMENT_TIMESTAMP())."""
    match, event = Match._meta.db_table, MatchEvent._meta.db_table
    return (
        f'SELECT m.*, STATEMENT_TIMESTAMP() AS db_now, (SELECT e."at" FROM "{event}" e'
        f' WHERE e."match_id" = m."id" ORDER BY e."seq" DESC LIMIT 1) AS acted_at'
        f' FROM "{match}" m WHERE m."id" = %s FOR UPDATE OF m'
    )


def lock_match_code(code: str) -> Match:
    """`lock_match` by room code, as someone typed it (`rooms.normalise`)."""
    cleaned = rooms.normalise(str(code))
    locked = _locking()
    match = None if cleaned is None else locked.filter(code=cleaned).first()
    if match is None:
        raise ServiceError("not_found", f"There is no match with room code {code!r}")
    return match


def seats_of(match: Match) -> list[Seat]:
    """The match's seats by corner, each with its user (one query)."""
    if connection.vendor != "postgresql":
        return list(Seat.objects.filter(match=match).select_related("user").order_by("corner"))
    # As `lock_match`: one written statement, the users' columns alongside (a user's fields
    # are text, flags and times, which need no conversion; the seat's own are converted).
    sql, names = _seats_sql()
    user_model = Seat._meta.get_field("user").related_model
    seats = list(Seat.objects.raw(sql, [match.pk]))
    for seat in seats:
        if seat.user_id is not None:
            values = [getattr(seat, f"u_{name}") for name in names]
            seat.user = user_model.from_db(connection.alias, names, values)
        seat.match = match
    return seats


@functools.cache
def _seats_sql() -> tuple[str, list[str]]:
    """`seats_of`'s statement and the user fields it reads (as ``u_<name>``)."""
    user_model = Seat._meta.get_field("user").related_model
    fields = user_model._meta.concrete_fields
    columns = ", ".join(f'u."{f.column}" AS "u_{f.attname}"' for f in fields)
    sql = (
        f'SELECT s.*, {columns} FROM "{Seat._meta.db_table}" s'
        f' LEFT JOIN "{user_model._meta.db_table}" u ON u."id" = s."user_id"'
        f' WHERE s."match_id" = %s ORDER BY s."corner"'
    )
    return sql, [f.attname for f in fields]


def begin(match: Match) -> Change:
    now = getattr(match, "db_now", None) or db_now()
    return Change(match=match, now=now, seats=seats_of(match))


def _finish_if_over(change: Change) -> None:
    match, state = change.match, change.state
    if state is None or state.phase != "over" or match.status != Status.ACTIVE:
        return
    match.status = Status.FINISHED
    match.finished_at = change.now
    change.match_fields.add("finished_at")
    for place, corner in enumerate(state.placings, start=1):
        seat = change.seat_at(corner)
        if seat is not None:
            change.seat_update(seat, place=place)
    placings = list(state.placings)
    results = ratings.rate_finished(match, change.seats)
    for result in results:
        seat = next(s for s in change.seats if s.user_id == result.user_id)
        change.seat_update(
            seat,
            rating_before=result.before,
            rating_after=result.after,
            rating_change=result.change,
        )
    change.event(
        "ended",
        {
            "status": "finished",
            "placings": placings,
            "server_seed": match.server_seed,
            "commitment": match.commitment,
            "client_seed": match.client_seed,
        },
    )
    change.audits.append(
        partial(
            audit.record,
            action=actions.MATCH_FINISHED,
            obj=match,
            extra={
                "code": match.code,
                "placings": placings,
                "server_seed": match.server_seed,
                "rolls": change.rolls,
                "seq": match.seq,
            },
        )
    )
    if results:
        change.audits.append(partial(ratings.record_changes, match, results))


def prepare(change: Change, *, keep_deadline: bool = False) -> None:
    """Settle the match's new fields from the change: the end (if the game is over), the
    cached snapshot, the pause after a lost roll, and the deadline (dealt again from the new
    state, unless `keep_deadline`)."""
    match = change.match
    _finish_if_over(change)
    if change.state is not None:
        match.snapshot = snapshot_of(change.state, rolls=change.rolls, turn=change.turn)
        match.turn_seq = change.turn
    if change.passed_on_roll:
        match.pause_until = change.now + timedelta(seconds=pass_pause())
        change.match_fields.add("pause_until")
    if not keep_deadline:
        match.turn_deadline = deadline_of(change)


def save(change: Change, *, keep_deadline: bool = False) -> None:
    """Write everything the change appended and the match's updated fields. The deadline is
    dealt again from the new state, unless `keep_deadline` (a change that does not touch
    whoever is playing leaves their clock alone). The match row is written only at the
    revision it was read at (the fence: see `Match.revision`)."""
    match = change.match
    prepare(change, keep_deadline=keep_deadline)
    by_model: dict[type, list[Any]] = {}
    for row in change.rows:
        by_model.setdefault(type(row), []).append(row)
    for model, rows in by_model.items():
        model.objects.bulk_create(rows)
    if change.events:
        MatchEvent.objects.bulk_create(change.events)
    updated = {"snapshot", "seq", "status", "turn_seq", "turn_deadline", *change.match_fields}
    write_fenced(match, sorted(updated))
    save_seats(change)
    for write in change.audits:
        write()
    if match.status in ENDED and change.status_before not in ENDED:
        # The match's own audit chain is anchored into the global chain as it ends.
        audit.anchor_chain(match.pk, reason="ended")
    announce(change)


def write_fenced(match: Match, fields: list[str]) -> None:
    """``UPDATE`` the match's `fields` where its revision is still the one read, moving the
    revision on. Under the match's lock it always is; a writer that did not take the lock and
    wrote in between makes this fail (nothing of the change is kept)."""
    values = {name: getattr(match, name) for name in fields if name != "revision"}
    done = Match.objects.filter(pk=match.pk, revision=match.revision).update(
        **values, revision=models.F("revision") + 1
    )
    if done != 1:
        raise ServiceError(
            "stale", "The match has moved on while this change was made: try it again"
        )
    match.revision += 1
    # A fenced UPDATE is no Model.save(): say the match was saved, as save(update_fields=...)
    # did before, so receivers of its saves (tournaments count an ended match) hear of it.
    post_save.send(
        sender=Match,
        instance=match,
        created=False,
        update_fields=frozenset(fields),
        raw=False,
        using=router.db_for_write(Match),
    )


def announce(change: Change) -> None:
    """The saved change's snapshot for every viewer, and its broadcast after commit (and the
    in-process clock woken for a new deadline)."""
    match = change.match
    public, private = snapshot_parts(match, seats=change.seats, state=change.state)
    public.update(room_clocks(match))
    change.view = (public, private)
    if change.events:
        events = [e.as_wire() for e in change.events]
        transaction.on_commit(
            partial(
                broadcast.match_changed,
                match.pk,
                match.seq,
                events,
                view=change.view,
                at=change.now.isoformat(timespec="microseconds"),
            )
        )
    if match.turn_deadline is not None and timing.running():
        transaction.on_commit(timing.poke)  # the in-process clock, if any: a new deadline


def save_seats(change: Change) -> None:
    """Write the fields the change set on each seat (only those)."""
    for seat in change.seats:
        names = change.seats_changed.get(seat.pk)
        if names:
            seat.save(update_fields=sorted(names))


def result_of(change: Change) -> ActionResult:
    if change.view is not None:
        snapshot = view_of(*change.view, None)
    else:
        snapshot = snapshot_for(change.match, seats=change.seats, state=change.state)
    return ActionResult(
        match_id=change.match.pk,
        seq=change.match.seq,
        events=[e.as_wire() for e in change.events],
        snapshot=snapshot,
    )
