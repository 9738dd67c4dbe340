"""One change to a match, as the services make it: lock the match, read its cached state, let
the `Change` (`games.services.change`) append the engine's events and the rows they imply, then
save the match, its seats, the audit entries and the broadcast after commit. `games.services`
is built on this; nothing else writes.

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
from dataclasses import dataclass
from datetime import timedelta
from functools import partial
from typing import Any

from django.db import connection, models, router, transaction
from django.db.models.functions import Now
from django.db.models.signals import post_save

from audit import actions
from audit import services as audit
from audit.clock import db_now
from games.clocks import timing
from games.match import rooms
from games.match.errors import ServiceError
from games.match.replay import snapshot_of
from games.match.selectors import snapshot_for, snapshot_parts, view_of
from games.models import ENDED, Match, MatchEvent, Seat, Status
from games.services import broadcast
from games.services.change import Change
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
