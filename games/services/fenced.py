"""A player's roll or move in two round trips on PostgreSQL instead of the locked path's many,
and one for a writer that already holds the match: optimistic writes checked by the database,
fenced by the match's ``revision``.

- `load` reads the match, its seats with their users, the database clock, the time of its
  last event and whether it ever had an undo, in one statement, without a lock.
- The service then checks and applies the action in memory on the change kernel (`Change`),
  exactly as on the locked path.
- `write` stores it in one statement (`games.services.fenced_statement`): ``UPDATE
  games_match ... WHERE id = %s AND revision = %s RETURNING id`` with the INSERTs of the
  events, the roll or move and the turn, and the UPDATE of the seats' `SEAT_FIELDS` (a missed
  turn counted, a seat taken back), selecting from it (CTEs), so when the fence is lost
  nothing at all is written. In autocommit that
  statement is its own transaction; inside a caller's transaction it runs in a savepoint.
- `commit_batch` commits the changes of many rooms in one transaction (one pipelined round
  trip for the lot); when one of them fails, the batch is rolled back and each change is
  written again on its own; each change's result says whether it was written.

A change that does more than append rows, move the match on and set those seat fields (the
match ends, a seat's presence or place changes, an audit entry, a local match with an undo)
raises `Fallback` before anything is written, and the service runs it on the locked path
(`kernel.save`). Either way the same guarantees hold: the change is committed before its
broadcast, every write of the match row checks and moves its revision, and the rows are those
the locked path writes, so `verify_match` reads them alike.

SQLite (``make run``) always takes the locked path. ``LUDO_FENCED_WRITES=0`` turns this off.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import psycopg
from django.conf import settings
from django.db import DatabaseError, IntegrityError, connection, transaction

from games.match.errors import ServiceError
from games.models import Match, MatchEvent, Seat
from games.services.change import Change
from games.services.fenced_statement import SEAT_FIELDS, Fallback, statement_params, write_sql
from games.services.kernel import announce, prepare


def enabled() -> bool:
    return connection.vendor == "postgresql" and bool(settings.LUDO_FENCED_WRITES)


# ---------------------------------------------------------------------------- reading


@functools.cache
def _load_sql() -> tuple[str, list[Any], list[Any], list[Any]]:
    user_model = Seat._meta.get_field("user").related_model
    m_fields = list(Match._meta.concrete_fields)
    s_fields = list(Seat._meta.concrete_fields)
    u_fields = list(user_model._meta.concrete_fields)
    event = MatchEvent._meta.db_table
    # The match's row with the clock, its last event's time and whether it ever had an undo,
    # worked out once (OFFSET 0 keeps the planner from doing it again for each seat's row).
    # Only a local match can have an undo; for one, the partial index on its "undone" events
    # answers without reading the match's other events.
    inner = [f'm."{f.column}"' for f in m_fields] + [
        'STATEMENT_TIMESTAMP() AS "ludo_now"',
        f'(SELECT e."at" FROM "{event}" e WHERE e."match_id" = m."id"'
        ' ORDER BY e."seq" DESC LIMIT 1) AS "ludo_acted"',
        f'CASE WHEN m."mode" = \'local\' THEN EXISTS (SELECT 1 FROM "{event}" e'
        """ WHERE e."match_id" = m."id" AND e."kind" = 'undone') ELSE false END"""
        ' AS "ludo_undone"',
    ]
    columns = (
        [f'm."{f.column}"' for f in m_fields]
        + ['m."ludo_now"', 'm."ludo_acted"', 'm."ludo_undone"']
        + [f's."{f.column}"' for f in s_fields]
        + [f'u."{f.column}"' for f in u_fields]
    )
    sql = (
        f"SELECT {', '.join(columns)} FROM (SELECT {', '.join(inner)}"
        f' FROM "{Match._meta.db_table}" m WHERE m."id" = %s OFFSET 0) m'
        f' LEFT JOIN "{Seat._meta.db_table}" s ON s."match_id" = m."id"'
        f' LEFT JOIN "{user_model._meta.db_table}" u ON u."id" = s."user_id"'
        ' ORDER BY s."corner"'
    )
    return sql, m_fields, s_fields, u_fields


def prepared_cursor() -> Any:
    """A cursor that binds its parameters on the server, so psycopg prepares its statements
    (``prepare_threshold`` in the database's OPTIONS): PostgreSQL parses and plans the
    match's read and write once per connection, not at every action. Django's own cursors
    bind on the client and never prepare. Wrapped as Django wraps its cursors, so its
    execute wrappers see these statements too. While queries are logged (DEBUG, a test
    counting them) Django's own cursor is used: psycopg keeps no text of a prepared run for
    the log."""
    if connection.queries_logged:
        return connection.cursor()
    connection.ensure_connection()
    return connection.make_cursor(psycopg.Cursor(connection.connection))


def _from_db(model: Any, fields: list[Any], values: Sequence[Any]) -> Any:
    converted = []
    for f, value in zip(fields, values, strict=True):
        for convert in f.get_db_converters(connection):
            value = convert(value, None, connection)
        converted.append(value)
    return model.from_db(connection.alias, [f.attname for f in fields], converted)


def load(match_id: int) -> Match:
    """The match as stored now (no lock), with ``db_now``, ``acted_at``, ``undone_none`` and
    its seats (``fenced_seats``, each with its user) read in the same statement."""
    sql, m_fields, s_fields, u_fields = _load_sql()
    try:
        ident = int(match_id)
    except (TypeError, ValueError):
        raise ServiceError("not_found", "There is no such match") from None
    with prepared_cursor() as cursor:
        cursor.execute(sql, [ident])
        rows = cursor.fetchall()
    if not rows:
        raise ServiceError("not_found", "There is no such match")
    m, s = len(m_fields), len(s_fields)
    first = rows[0]
    match = _from_db(Match, m_fields, first[:m])
    match.db_now, match.acted_at, undone = first[m], first[m + 1], first[m + 2]
    match.undone_none = not undone
    user_model = Seat._meta.get_field("user").related_model
    seats = []
    for row in rows:
        seat_values = row[m + 3 : m + 3 + s]
        if seat_values[0] is None:
            continue  # no seat yet (a LEFT JOIN's empty row)
        seat = _from_db(Seat, s_fields, seat_values)
        if seat.user_id is not None:
            seat.user = _from_db(user_model, u_fields, row[m + 3 + s :])
        seat.match = match
        seats.append(seat)
    match.fenced_seats = seats
    return match


def begin_loaded(match: Match) -> Change:
    """`kernel.begin` for a match read by `load` (its seats came with it)."""
    return Change(match=match, now=match.db_now, seats=match.fenced_seats)


# ---------------------------------------------------------------------------- writing


def _eligible(change: Change) -> None:
    """Raise `Fallback` unless the change only appends rows, moves the match on and sets
    `SEAT_FIELDS` of its seats."""
    match, state = change.match, change.state
    if (
        state is None
        or state.phase == "over"
        or any(set(names) - set(SEAT_FIELDS) for names in change.seats_changed.values())
        or change.audits
        or change.match_fields - {"pause_until"}
        or not getattr(match, "undone_none", False)
        or match.status != change.status_before
    ):
        raise Fallback


def stage(change: Change) -> list[Any]:
    """Settle the change (as `kernel.save` does) and return its statement's parameters;
    `Fallback` when the change needs the locked path."""
    _eligible(change)
    prepare(change)
    _eligible(change)  # the end of the game shows only once prepared
    return statement_params(change)


def _execute(params: list[Any], skip_locked: bool = False) -> bool:
    with prepared_cursor() as cursor:
        cursor.execute(write_sql(skip_locked), params)
        return bool(cursor.fetchone()[0])


def write(change: Change, *, skip_locked: bool = False) -> bool:
    """Store the change in one statement if the match is still at the revision it was read
    at: True, and its broadcast follows the commit. False: another writer moved the match on
    first and nothing was written (with `skip_locked`, also when another transaction holds
    the match's row: no wait). `Fallback`: the change needs the locked path.
    An `IntegrityError` (a repeated action id stored meanwhile) writes nothing too."""
    params = stage(change)
    if connection.in_atomic_block:
        with transaction.atomic():  # a savepoint: a failure leaves the caller's work alone
            won = _execute(params, skip_locked)
    else:
        won = _execute(params, skip_locked)  # autocommit: the statement is its own transaction
    if won:
        _won(change)
    return won


def _won(change: Change) -> None:
    """The change is stored: its match (as the writer holds it) is at the new revision."""
    change.match.revision += 1
    if change.events:
        change.match.acted_at = change.now  # the next change's think time runs from here
    announce(change)  # broadcast after commit (at once, in autocommit)


# ---------------------------------------------------------------------------- group commit


@dataclass
class Outcome:
    """What became of one change of a batch: ``written`` (committed), or not, with why:
    "fenced" (another writer moved the match on first), "fallback" (the change needs the
    locked path) or "error" (it failed on its own too, e.g. a repeated action id)."""

    change: Change
    written: bool
    why: str = ""
    batched: bool = True  # committed with the batch (False: written again on its own)


def commit_batch(changes: Sequence[Change]) -> list[Outcome]:
    """Commit the changes of many rooms in one transaction, their statements sent in one
    pipeline (one round trip for the lot, plus the commit). A change whose fence was lost
    writes nothing and the others still commit. If any statement fails, the whole batch is
    rolled back and each change is written again on its own (`write`). Broadcasts follow
    the commit. The Room of `games.live` can queue its actions and call this every few
    milliseconds; each outcome says whether its change is stored."""
    outcomes: list[Outcome | None] = [None] * len(changes)
    staged: list[tuple[int, list[Any]]] = []
    for i, change in enumerate(changes):
        try:
            staged.append((i, stage(change)))
        except Fallback:
            outcomes[i] = Outcome(change, False, "fallback", batched=False)
    if staged:
        try:
            won = _run_batch([params for _, params in staged])
        except DatabaseError:
            won = None
        if won is not None:
            for (i, _), ok in zip(staged, won, strict=True):
                change = changes[i]
                if ok:
                    _won(change)
                outcomes[i] = Outcome(change, ok, "" if ok else "fenced")
        else:
            for i, params in staged:
                outcomes[i] = _alone(changes[i], params)
    return [o for o in outcomes if o is not None]


def _alone(change: Change, params: list[Any]) -> Outcome:
    try:
        with transaction.atomic():
            ok = _execute(params)
    except IntegrityError:
        return Outcome(change, False, "error", batched=False)
    if ok:
        _won(change)
    return Outcome(change, ok, "" if ok else "fenced", batched=False)


def _run_batch(batch: list[list[Any]]) -> list[bool]:
    """One transaction, every statement pipelined (psycopg's pipeline mode: sent together,
    answered together); whether each one's fence held, in order."""
    sql = write_sql()
    with transaction.atomic():
        connection.ensure_connection()
        raw = connection.connection
        cursors = [psycopg.Cursor(raw) for _ in batch]
        try:
            # psycopg's own errors raised as Django's (DatabaseError, IntegrityError).
            with connection.wrap_database_errors, raw.pipeline():
                for cursor, params in zip(cursors, batch, strict=True):
                    cursor.execute(sql, params)
            return [bool(cursor.fetchone()[0]) for cursor in cursors]
        finally:
            for cursor in cursors:
                cursor.close()
