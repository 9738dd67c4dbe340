"""Many ranked matches opened at once, every seat taken: the tables a pairing chose (a
tournament's round), each made as `match_create` and then `match_join` for each other player
would make it, in a few set-based statements under one lock of the audit chain."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from functools import partial
from typing import Any

from django.conf import settings
from django.db import IntegrityError, connection, models, transaction
from django.db.models import Count, Q
from django.db.models.functions import Now

from audit import actions
from audit import services as audit
from audit.clock import db_now
from games.engine import Ruleset, rules_name
from games.match import dice
from games.match.devices import seat_agent
from games.match.errors import ServiceError
from games.models import Match, MatchEvent, Mode, Seat, Status, Turn
from games.services.change import Change
from games.services.create import created_entries, deal_first_turn, joined_event, new_code
from games.services.kernel import announce, prepare
from games.services.options import check_corners, rules_of
from games.services.ranked_seats import ranked_refusals


def ranked_matches_create(
    *, ruleset: str, tables: Sequence[Sequence[Any]], grace: float = 0
) -> list[Match | ServiceError]:
    """Open many ranked matches at once, every seat taken: for each table (the accounts a
    pairing chose, the first its host) what `match_create` with ``paired`` and then
    `match_join` for each other player make, the same rows (the match and its dice
    commitment, seats with their own client seeds, events, the first turn), the same
    checks (`check_corners`, `ranked_refusals`, the host's room limits) and the same audit
    entries in the same order, written in a few set-based statements under one lock of the
    audit chain instead of some fifty round trips a match. One result per table, in order:
    its match, or the `ServiceError` refusing it (a player busy, a guest, in two tables),
    which leaves that table's players for the next pairing. For server-side pairing (no
    address or browser); a bulk insert sends no ``post_save`` (a new match has no ending to
    count). `grace`: seconds a player who has not opened the room yet has before their
    clock starts (players paired while away, a tournament's; `deadlines.deadline_of`)."""
    rules, _chosen = rules_of(ruleset, Mode.RANKED, None, None)
    results: list[Match | ServiceError | None] = [None] * len(tables)
    everyone = [u for table in tables for u in table]
    with transaction.atomic():
        # The audit chain's lock first, then the players' rows (skipped, never waited for):
        # a writer holding the chain and waiting for a player's row (an audit entry naming
        # them checks their row) cannot be waiting for this batch.
        audit.hold_global_chain()
        refused = ranked_refusals(everyone)
        rooms_refused = _rooms_refused([table[0] for table in tables if table])
        now = db_now()
        planned: list[tuple[int, Match, list[Change], list[dict[str, Any]]]] = []
        seated: set[int] = set()
        for i, table in enumerate(tables):
            try:
                made = _plan_ranked(
                    rules, ruleset, list(table), now, refused, rooms_refused, seated, grace
                )
            except ServiceError as exc:
                results[i] = exc
                continue
            seated.update(int(u.pk) for u in table)
            planned.append((i, *made))
        if planned:
            _insert_matches([match for _i, match, _c, _e in planned])
            insert_rows(Seat, [s for _i, _m, changes, _e in planned for s in changes[-1].seats])
            insert_rows(
                Turn, [row for _i, _m, changes, _e in planned for c in changes for row in c.rows]
            )
            insert_rows(
                MatchEvent,
                [e for _i, _m, changes, _e in planned for c in changes for e in c.events],
            )
            audit.record_many([entry for _i, _m, _c, entries in planned for entry in entries])
            for i, match, changes, _e in planned:
                last = changes[-1]
                last.events = [e for c in changes for e in c.events]
                announce(last)  # one broadcast a match (its room has nobody yet), after commit
                results[i] = match
    return [r for r in results if r is not None]


def _plan_ranked(
    rules: Ruleset,
    ruleset: str,
    table: list[Any],
    now: datetime,
    refused: Mapping[int, ServiceError],
    rooms_refused: Mapping[int, ServiceError],
    seated: set[int],
    grace: float = 0,
) -> tuple[Match, list[Change], list[dict[str, Any]]]:
    """One table's match built in memory, change by change as `match_create` and each
    `match_join` make it (their events, the first turn dealt, the audit entries)."""
    try:
        corners = rules.seats_for(len(table))
    except (ValueError, TypeError) as exc:
        raise ServiceError("bad_request", str(exc)) from exc
    host = table[0]
    paired_ids = sorted({int(u.pk) for u in table})
    if len(paired_ids) != len(table):
        raise ServiceError("already_seated", "A player has one seat at a table")
    check_corners(Mode.RANKED, corners, {}, None, None, host, paired_ids)
    for user in table:
        if int(user.pk) in refused:
            raise refused[int(user.pk)]
        if int(user.pk) in seated:
            raise ServiceError("ranked_busy", "You are already in a ranked match: finish it first")
    if int(host.pk) in rooms_refused:
        raise rooms_refused[int(host.pk)]
    seed = dice.new_server_seed()
    match = Match(
        code="",
        server_seed=seed,
        commitment=dice.commitment(seed),
        ruleset=ruleset,
        options={
            "paired": paired_ids,
            "rules": rules_name(rules),
            "house_rules": [],
            "pairs": rules.pairs,
            "power": rules.power,
            "first": None,
            **({"grace": grace} if grace else {}),
        },
        players=len(corners),
        mode=Mode.RANKED.value,
        host=host,
        created_at=now,
    )
    # match_create: the room, the host's seat.
    change = Change(match=match, now=now, seats=[])
    change.event(
        "created",
        {
            "rules": rules_name(rules),
            "mode": Mode.RANKED.value,
            "players": len(corners),
            "commitment": match.commitment,
        },
    )
    seats = [_ranked_seat(match, corners[0], host, now)]
    change.seats = list(seats)
    joined_event(change, seats[0])
    entries = created_entries(match, host, [corners[0]], {}, None)
    changes = [change]
    prepare(change)
    match.revision += 1
    # match_join, player by player: the seat, its event and audit entry; the last deals.
    for corner, user in zip(corners[1:], table[1:], strict=True):
        change = Change(match=match, now=now, seats=list(seats))
        seat = _ranked_seat(match, corner, user, now)
        seats.append(seat)
        change.seats = list(seats)
        joined_event(change, seat)
        entries.append(
            {
                "action": actions.MATCH_JOINED,
                "actor": user,
                "obj": match,
                "extra": {"corners": [corner]},
            }
        )
        if len(seats) == len(corners):
            deal_first_turn(change)
            for write in change.audits:  # the start's entry, as `save` writes it
                assert isinstance(write, partial) and write.func is audit.record
                entries.append(dict(write.keywords))
            change.audits = []
        prepare(change)
        match.revision += 1
        changes.append(change)
    return match, changes, entries


def _ranked_seat(match: Match, corner: int, user: Any, now: datetime) -> Seat:
    return Seat(
        match=match,
        corner=corner,
        user=user,
        client_seed=dice.new_client_seed(),
        joined_at=now,
        ip=None,
        **_NO_AGENT,
    )


_NO_AGENT = seat_agent("")  # a seat the server took for its player: no browser


def _insert_matches(matches: list[Match]) -> None:
    """The new match rows, each under a fresh room code (those taken drawn again), with
    their ids (the other rows point at them)."""
    for _ in range(20):
        codes: set[str] = set()
        for match in matches:
            code = new_code()
            while code in codes:
                code = new_code()
            codes.add(code)
            match.code = code
        taken = set(Match.objects.filter(code__in=codes).values_list("code", flat=True))
        if taken:
            continue
        try:
            with transaction.atomic():
                insert_rows(Match, matches)
            return
        except IntegrityError:
            for match in matches:
                match.pk = None
            continue  # a room code taken meanwhile: draw them again
    raise RuntimeError("no free room codes after 20 draws")


def insert_rows(model: type[models.Model], objs: list[Any]) -> None:
    """Insert `objs` (new rows of `model`, foreign keys as objects or ids) and give them
    their ids: in PostgreSQL the ids drawn from the table's sequence (in order) and one
    ``COPY``, elsewhere `bulk_create`. Every concrete field is written as the object holds
    it (no database defaults, no ``auto_now``): for rows built whole in Python. No
    signals."""
    if not objs:
        return
    if connection.vendor != "postgresql":
        model._default_manager.bulk_create(objs)
        return
    opts = model._meta
    pk = opts.pk
    fields = list(opts.concrete_fields)
    for obj in objs:
        obj._prepare_related_fields_for_save(operation_name="insert_rows")
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT nextval(pg_get_serial_sequence(%s, %s)) FROM generate_series(1, %s)",
            [opts.db_table, pk.column, len(objs)],
        )
        for obj, (new_id,) in zip(objs, sorted(cursor.fetchall()), strict=True):
            obj.pk = new_id
        columns = ", ".join(f'"{f.column}"' for f in fields)
        encoders = {f.attname: f.encoder for f in fields if isinstance(f, models.JSONField)}
        with cursor.cursor.copy(f'COPY "{opts.db_table}" ({columns}) FROM STDIN') as copy:
            for obj in objs:
                copy.write_row(
                    [
                        json.dumps(getattr(obj, f.attname), cls=encoders[f.attname])
                        if f.attname in encoders
                        else getattr(obj, f.attname)
                        for f in fields
                    ]
                )
    for obj in objs:
        obj._state.adding = False
        obj._state.db = connection.alias


def _rooms_refused(hosts: list[Any]) -> dict[int, ServiceError]:
    """The host's room limits of `match_create` (for a room that waits for players) for many
    hosts in one query."""
    waiting = settings.ROOMS_WAITING_PER_PLAYER
    hourly = settings.ROOMS_PER_PLAYER_HOUR
    ids = sorted({int(h.pk) for h in hosts})
    rows = (
        Match.objects.filter(host_id__in=ids)
        .values("host_id")
        .annotate(
            waiting=Count("pk", filter=Q(status=Status.WAITING)),
            hourly=Count("pk", filter=Q(created_at__gte=Now() - timedelta(hours=1))),
        )
        .order_by()
    )
    refused: dict[int, ServiceError] = {}
    for row in rows:
        if row["waiting"] >= waiting:
            refused[int(row["host_id"])] = ServiceError(
                "too_many_rooms",
                f"You have {waiting} rooms waiting for players: start or leave one first",
            )
        elif row["hourly"] >= hourly:
            refused[int(row["host_id"])] = ServiceError(
                "too_many_rooms", f"You opened {hourly} rooms in the last hour: try again later"
            )
    return refused
