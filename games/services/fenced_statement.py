"""The one statement a fenced change is written in, and its parameters: the match's row
updated where its revision is still the one read, with the INSERTs of the change's events,
roll or move and turn and the UPDATE of its seats' `SEAT_FIELDS`, selecting from it, so that
when the fence is lost nothing at all is written (`games.services.fenced`)."""

from __future__ import annotations

import functools
import json
from typing import Any

from django.core.serializers.json import DjangoJSONEncoder

from games.models import Match, MatchEvent, Seat, Turn
from games.models import Move as MoveRow
from games.models import Roll as RollRow
from games.services.change import Change


class Fallback(Exception):
    """This change needs the locked path: nothing was written."""


# The seat fields a change written here may set (a missed turn counted, a seat taken back
# by its player): the rest of a seat's changes need the locked path.
SEAT_FIELDS = ("missed_turns", "away", "gone")


@functools.cache
def write_sql(skip_locked: bool = False) -> str:
    """The write statement; `skip_locked`: it writes nothing (as a lost fence) instead of
    waiting when another transaction holds the match's row (the clock's sweep)."""
    match = Match._meta.db_table
    where = '"id" = %s AND "revision" = %s'
    if skip_locked:
        where = (
            f'"id" = (SELECT k."id" FROM "{match}" k WHERE k."id" = %s AND k."revision" = %s'
            " FOR UPDATE SKIP LOCKED)"
        )

    def insert(name: str, model: Any, columns: list[tuple[str, str]]) -> str:
        names = ", ".join(f'"{c}"' for c, _ in columns)
        typed = ", ".join(f'"{c}" {t}' for c, t in columns)
        picked = ", ".join(f'x."{c}"' for c, _ in columns)
        return (
            f'{name} AS (INSERT INTO "{model._meta.db_table}" ("match_id", {names})'
            f" SELECT m.id, {picked} FROM m, jsonb_to_recordset(%s::jsonb) AS x({typed}))"
        )

    parts = [
        f'm AS (UPDATE "{match}" SET "snapshot" = %s::jsonb, "seq" = %s, "turn_seq" = %s,'
        ' "turn_deadline" = %s, "pause_until" = %s, "revision" = "revision" + 1'
        f' WHERE {where} RETURNING "id")',
        insert(
            "e",
            MatchEvent,
            [
                ("seq", "integer"),
                ("change", "integer"),
                ("kind", "text"),
                ("data", "jsonb"),
                ("at", "timestamptz"),
            ],
        ),
        insert(
            "r",
            RollRow,
            [
                ("turn", "integer"),
                ("corner", "integer"),
                ("seq", "integer"),
                ("n", "integer"),
                ("face", "integer"),
                ("die", "integer"),
                ("bonus", "text"),
                ("by", "text"),
                ("action_id", "text"),
                ("at", "timestamptz"),
                ("think_ms", "integer"),
            ],
        ),
        insert(
            "v",
            MoveRow,
            [
                ("turn", "integer"),
                ("corner", "integer"),
                ("seq", "integer"),
                ("pawn", "integer"),
                ("pawn_corner", "integer"),
                ("frm", "integer"),
                ("to", "integer"),
                ("captures", "jsonb"),
                ("shield", "boolean"),
                ("by", "text"),
                ("action_id", "text"),
                ("at", "timestamptz"),
                ("think_ms", "integer"),
            ],
        ),
        insert(
            "t",
            Turn,
            [
                ("n", "integer"),
                ("corner", "integer"),
                ("seq", "integer"),
                ("started_at", "timestamptz"),
            ],
        ),
        # The seats' `SEAT_FIELDS` the change set (none: no row), only if the fence held.
        f'u AS (UPDATE "{Seat._meta.db_table}" s SET "missed_turns" = x."missed_turns",'
        ' "away" = x."away", "gone" = x."gone" FROM m, jsonb_to_recordset(%s::jsonb)'
        ' AS x("id" integer, "missed_turns" integer, "away" boolean, "gone" boolean)'
        ' WHERE s."id" = x."id" AND s."match_id" = m."id")',
    ]
    return "WITH " + ", ".join(parts) + " SELECT count(*) FROM m"


def _json(rows: list[dict[str, Any]]) -> str:
    return json.dumps(rows, cls=DjangoJSONEncoder, separators=(",", ":"))


def statement_params(change: Change) -> list[Any]:
    """The write statement's parameters for a prepared change."""
    match = change.match
    rolls: list[dict[str, Any]] = []
    moves: list[dict[str, Any]] = []
    turns: list[dict[str, Any]] = []
    for row in change.rows:
        if isinstance(row, RollRow):
            rolls.append(
                {
                    "turn": row.turn,
                    "corner": row.corner,
                    "seq": row.seq,
                    "n": row.n,
                    "face": row.face,
                    "die": row.die,
                    "bonus": row.bonus,
                    "by": row.by,
                    "action_id": row.action_id,
                    "at": row.at,
                    "think_ms": row.think_ms,
                }
            )
        elif isinstance(row, MoveRow):
            moves.append(
                {
                    "turn": row.turn,
                    "corner": row.corner,
                    "seq": row.seq,
                    "pawn": row.pawn,
                    "pawn_corner": row.pawn_corner,
                    "frm": row.frm,
                    "to": row.to,
                    "captures": row.captures,
                    "shield": row.shield,
                    "by": row.by,
                    "action_id": row.action_id,
                    "at": row.at,
                    "think_ms": row.think_ms,
                }
            )
        elif isinstance(row, Turn):
            turns.append(
                {"n": row.n, "corner": row.corner, "seq": row.seq, "started_at": row.started_at}
            )
        else:
            raise Fallback  # a row this statement does not write
    events = [
        {"seq": e.seq, "change": e.change, "kind": e.kind, "data": e.data, "at": e.at}
        for e in change.events
    ]
    seats = [
        {"id": seat.pk, **{name: getattr(seat, name) for name in SEAT_FIELDS}}
        for seat in change.seats
        if change.seats_changed.get(seat.pk)
    ]
    return [
        _json(match.snapshot),  # type: ignore[arg-type]
        match.seq,
        match.turn_seq,
        match.turn_deadline,
        match.pause_until,
        match.pk,
        match.revision,
        _json(events),
        _json(rolls),
        _json(moves),
        _json(turns),
        _json(seats),
    ]
