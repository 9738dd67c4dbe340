"""Opening a match: the options checked, the seats dealt (the host's, the bots'), the room
code drawn, and the first turn dealt once every seat is filled (`deal_first_turn`, which
`games.services.join` uses too)."""

from __future__ import annotations

import json
import secrets
from collections.abc import Iterable, Mapping, Sequence
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
from games.engine import (
    RULESETS,
    Ruleset,
    new_game,
    rules_from_name,
    rules_name,
)
from games.match import dice
from games.match.devices import seat_agent
from games.match.errors import ServiceError
from games.models import (
    CODE_ALPHABET,
    CODE_LENGTH,
    Match,
    MatchEvent,
    Mode,
    Seat,
    Status,
    Turn,
)
from games.services.bots import BOT_LEVELS, DEFAULT_BOT_LEVEL
from games.services.deadlines import PACES
from games.services.kernel import (
    Change,
    announce,
    prepare,
    save,
    seats_of,
)
from games.services.ranked_seats import ranked_may_sit, ranked_refusals

HOUSE_RULES = ("compulsory_capture", "optional_bring_out", "no_jump_home_column", "play_on")
PARTY_OPTIONS = ("pairs", "power")
# A seat's name in a one-device game.
SEAT_NAME_LENGTH = 20


def check_pace(pace: str | None) -> str | None:
    if pace in (None, "", "normal"):
        return None
    if pace not in PACES:
        raise ServiceError(
            "bad_request", f"There is no pace {pace!r}; there are {', '.join(PACES)}"
        )
    return pace


def check_seat_names(names: Mapping[Any, Any] | None, corners: Sequence[int]) -> dict[str, str]:
    """Names for the people of a one-device game, by corner: printable, trimmed, short."""
    out: dict[str, str] = {}
    for key, value in (names or {}).items():
        try:
            corner = int(key)
        except (TypeError, ValueError) as exc:
            raise ServiceError("bad_request", f"No corner {key!r}") from exc
        if corner not in corners:
            raise ServiceError("bad_request", f"Corner {corner} has no seat in this match")
        text = " ".join("".join(ch for ch in str(value) if ch.isprintable()).split())
        if len(text) > SEAT_NAME_LENGTH:
            raise ServiceError(
                "bad_request", f"A seat's name is at most {SEAT_NAME_LENGTH} characters"
            )
        if text:
            out[str(corner)] = text
    return out


def _option_names(value: Mapping[str, Any] | Iterable[str] | None, known: tuple[str, ...]) -> list:
    if value is None:
        return []
    names = (
        [name for name, on in value.items() if on] if isinstance(value, Mapping) else list(value)
    )
    unknown = sorted(set(names) - set(known))
    if unknown:
        raise ServiceError("bad_request", f"Unknown option {unknown[0]!r}")
    return [name for name in known if name in names]


def check_bot_levels(value: Mapping[int, str] | Iterable[int] | None) -> dict[int, str]:
    if value is None:
        return {}
    if isinstance(value, Mapping):
        bots = {int(c): (level or DEFAULT_BOT_LEVEL) for c, level in value.items()}
    else:
        bots = {int(c): DEFAULT_BOT_LEVEL for c in value}
    for level in bots.values():
        if level not in BOT_LEVELS:
            raise ServiceError("bad_request", f"There is no bot level {level!r}")
    return bots


def _new_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def bot_seat(match: Match, corner: int, level: str, now: datetime) -> Seat:
    return Seat(
        match=match,
        corner=corner,
        bot=level,
        # A bot is the server's own seat: a fixed client seed keeps a simulation with a chosen
        # server seed reproducible, and the secret server seed keeps the dice fair.
        client_seed=f"bot{corner}",
        joined_at=now,
        connected=True,
    )


def joined_event(change: Change, seat: Seat) -> None:
    change.event(
        "joined",
        {
            "corner": seat.corner,
            "user": seat.user_id,
            "bot": seat.bot,
        },
    )


def check_client_seed(seed: str | None) -> str:
    if seed is None:
        return dice.new_client_seed()
    if not dice.CLIENT_SEED.fullmatch(seed):
        raise ServiceError(
            "bad_request", "A client seed is 1 to 64 letters, digits, '_' or '-' characters"
        )
    return seed


def match_create(
    *,
    ruleset: str,
    players: int,
    mode: str,
    house_rules: Mapping[str, Any] | Iterable[str] | None = None,
    options: Mapping[str, Any] | Iterable[str] | None = None,
    host: Any = None,
    bots: Mapping[int, str] | Iterable[int] | None = None,
    first: int | None = None,
    client_seed: str | None = None,
    server_seed: str | None = None,
    ip: str | None = None,
    paired: Iterable[Any] | None = None,
    user_agent: str = "",
    pace: str | None = None,
    seat_names: Mapping[Any, Any] | None = None,
) -> Match:
    """Open a match. The host takes the lowest free seat (in local play every seat that is not
    a bot); bots take the corners given. It starts at once when every seat is filled.

    A ranked match is made by matchmaking only (`ranked.matchmaking`): it passes ``paired``,
    the accounts it paired (the host among them), and nobody else may take a seat
    (``ranked_by_matchmaking``). A rated match anyone with the code could join would be a
    match its players chose, not one the queue paired.

    ``first`` fixes the starting corner (else the preset's rule: red, or drawn with the dice).
    ``server_seed`` is for reproducible practice simulations only. ``ip`` (the host's address)
    goes into the audit log; ``user_agent`` (the host's browser) is stored on their seats.
    ``pace`` (`PACES`) sets how long bots pause before each step; ``seat_names`` names the
    people of a one-device game by corner.
    """
    rules, chosen = _rules_of(ruleset, mode, house_rules, options)
    try:
        corners = rules.seats_for(int(players))
    except (ValueError, TypeError) as exc:
        raise ServiceError("bad_request", str(exc)) from exc
    bot_levels = check_bot_levels(bots)
    paired_ids = sorted({int(u.pk) for u in paired or ()})
    _check_corners(mode, corners, bot_levels, first, server_seed, host, paired_ids)
    host_corners = _host_corners(mode, host, [c for c in corners if c not in bot_levels])
    seed = server_seed if server_seed is not None else dice.new_server_seed()
    host_seed = check_client_seed(client_seed)
    chosen_pace = check_pace(pace)
    if seat_names and mode != Mode.LOCAL:
        raise ServiceError("bad_request", "Seats are named in one-device games only")
    named = check_seat_names(seat_names, [c for c in corners if c not in bot_levels])
    options_stored = {
        **({"paired": paired_ids} if mode == Mode.RANKED else {}),
        "rules": rules_name(rules),
        "house_rules": [n for n in chosen if n in HOUSE_RULES],
        "pairs": rules.pairs,
        "power": rules.power,
        "first": first,
        **({"pace": chosen_pace} if chosen_pace else {}),
        **({"names": named} if named else {}),
    }
    with transaction.atomic():
        if mode == Mode.RANKED and host is not None:
            ranked_may_sit(host)
        if host is not None:
            _may_open_room(host, waits=mode in (Mode.FRIENDLY, Mode.RANKED))
        now = db_now()
        match = _open_room(
            ruleset=ruleset,
            options=options_stored,
            players=len(corners),
            mode=mode,
            host=host,
            server_seed=seed,
        )
        change = Change(match=match, now=now, seats=[])
        change.event(
            "created",
            {
                "rules": rules_name(rules),
                "mode": mode,
                "players": len(corners),
                "commitment": match.commitment,
            },
        )
        _seat_host_and_bots(change, host, host_corners, host_seed, bot_levels, ip, user_agent)
        _audit_created(change, host, host_corners, bot_levels, ip)
        if len(change.seats) == len(corners):
            deal_first_turn(change)
        save(change)
    return match


def _rules_of(
    ruleset: str,
    mode: str,
    house_rules: Mapping[str, Any] | Iterable[str] | None,
    options: Mapping[str, Any] | Iterable[str] | None,
) -> tuple[Ruleset, list[str]]:
    """The Ruleset a new match plays, and the option names chosen for it."""
    if ruleset not in RULESETS:
        raise ServiceError("bad_request", f"There is no rule set {ruleset!r}")
    if mode not in Mode.values:
        raise ServiceError("bad_request", f"There is no mode {mode!r}")
    chosen = _option_names(house_rules, HOUSE_RULES) + _option_names(options, PARTY_OPTIONS)
    try:
        return rules_from_name("+".join([ruleset, *chosen])), chosen  # cached: one Board a name
    except (ValueError, TypeError) as exc:
        raise ServiceError("bad_request", str(exc)) from exc


def _check_corners(
    mode: str,
    corners: tuple[int, ...],
    bot_levels: dict[int, str],
    first: int | None,
    server_seed: str | None,
    host: Any,
    paired_ids: list[int],
) -> None:
    """Refuse bots in ranked, a ranked match not made by matchmaking, a bot or a first player
    on a corner with no seat, and a chosen server seed outside practice."""
    if bot_levels and mode == Mode.RANKED:
        raise ServiceError("ranked_no_bots", "Ranked matches never seat a bot")
    if mode == Mode.RANKED and (host is None or host.pk not in paired_ids):
        raise ServiceError(
            "ranked_by_matchmaking", "Ranked matches are made by quick match: join a ranked queue"
        )
    if set(bot_levels) - set(corners):
        bad = sorted(set(bot_levels) - set(corners))[0]
        raise ServiceError("bad_request", f"Corner {bad} has no seat in this match")
    if first is not None and first not in corners:
        raise ServiceError("bad_request", f"Corner {first} has no seat in this match")
    if server_seed is not None and mode != Mode.PRACTICE:
        raise ServiceError("bad_request", "A chosen server seed is for practice simulations only")


def _host_corners(mode: str, host: Any, free: list[int]) -> list[int]:
    """The host's corners: every free one in local play, else the first free one (none when
    there is no host, or in practice when bots fill every seat)."""
    if mode == Mode.LOCAL:
        if host is None:
            raise ServiceError("bad_request", "Local play needs the host whose device it is")
        if not free:
            raise ServiceError("bad_request", "At least one seat is a person")
        return free
    if host is not None and free:
        return free[:1]
    if host is not None and mode != Mode.PRACTICE:
        raise ServiceError("bad_request", "The host needs a seat, but bots fill every seat")
    return []


def _open_room(*, server_seed: str, **fields: Any) -> Match:
    """The new match row under a fresh room code (drawn again if one is taken)."""
    for _ in range(20):
        try:
            with transaction.atomic():
                return Match.objects.create(
                    code=_new_code(),
                    server_seed=server_seed,
                    commitment=dice.commitment(server_seed),
                    **fields,
                )
        except IntegrityError:
            continue  # a room code taken already: draw another
    raise RuntimeError("no free room code after 20 draws")


def _seat_host_and_bots(
    change: Change,
    host: Any,
    host_corners: list[int],
    host_seed: str,
    bot_levels: dict[int, str],
    ip: str | None,
    user_agent: str | None,
) -> None:
    match, now = change.match, change.now
    seats = [
        Seat(
            match=match,
            corner=c,
            user=host,
            client_seed=host_seed if i == 0 else dice.new_client_seed(),
            joined_at=now,
            ip=ip,
            **seat_agent(user_agent),
        )
        for i, c in enumerate(host_corners)
    ]
    seats += [bot_seat(match, c, level, now) for c, level in sorted(bot_levels.items())]
    seats.sort(key=lambda s: s.corner)
    Seat.objects.bulk_create(seats)
    change.seats = seats_of(match)
    for seat in change.seats:
        joined_event(change, seat)


def _audit_created(
    change: Change, host: Any, host_corners: list[int], bot_levels: dict[int, str], ip: str | None
) -> None:
    for entry in _created_entries(change.match, host, host_corners, bot_levels, ip):
        audit.record(**entry)


def _created_entries(
    match: Match, host: Any, host_corners: list[int], bot_levels: dict[int, str], ip: str | None
) -> list[dict[str, Any]]:
    """The audit entries of a match opened (and its host seated), as `audit.record`'s
    arguments: the single and the bulk way write the same."""
    entries: list[dict[str, Any]] = [
        {
            "action": actions.MATCH_CREATED,
            "actor": host,
            "ip": ip,
            "obj": match,
            "extra": {
                "code": match.code,
                "rules": match.options["rules"],
                "mode": match.mode,
                "players": match.players,
                "commitment": match.commitment,
                "bots": {str(c): level for c, level in sorted(bot_levels.items())},
            },
        }
    ]
    if host_corners:
        entries.append(
            {
                "action": actions.MATCH_JOINED,
                "actor": host,
                "ip": ip,
                "obj": match,
                "extra": {"corners": host_corners},
            }
        )
    return entries


def deal_first_turn(change: Change) -> None:
    """Freeze the client seeds, choose the first player, deal the first turn."""
    match = change.match
    rules = match.rules
    corners = rules.seats_for(match.players)
    client_seed = dice.match_client_seed(s.client_seed for s in change.seats)
    fixed = match.options.get("first")
    if fixed is not None:
        first = int(fixed)
    elif not match.draws_first:
        first = corners[0]
    else:
        first = dice.draw_first(match.server_seed, client_seed, corners)
    match.status = Status.ACTIVE
    match.started_at = change.now
    match.first = first
    match.client_seed = client_seed
    change.match_fields.update({"started_at", "first", "client_seed"})
    change.state = new_game(rules, match.players, first=first)
    change.rolls, change.turn = 0, 1
    seq = change.event(
        "started", {"first": first, "client_seed": client_seed, "commitment": match.commitment}
    )
    change.rows.append(Turn(match=match, n=1, corner=first, seq=seq, started_at=change.now))
    change.audits.append(
        partial(
            audit.record,
            action=actions.MATCH_STARTED,
            obj=match,
            extra={"code": match.code, "first": first, "client_seed": client_seed},
        )
    )


def _may_open_room(host: Any, *, waits: bool) -> None:
    """Refuse a room that `waits` for players to a host with ``ROOMS_WAITING_PER_PLAYER`` (10)
    rooms waiting already, and any room to a host who made ``ROOMS_PER_PLAYER_HOUR`` (60) in
    the last hour: one account (or a script) cannot fill the tables with rooms nobody plays."""
    waiting = settings.ROOMS_WAITING_PER_PLAYER
    hourly = settings.ROOMS_PER_PLAYER_HOUR
    hosted = Match.objects.filter(host_id=host.pk)
    if waits and hosted.filter(status=Status.WAITING).count() >= waiting:
        raise ServiceError(
            "too_many_rooms",
            f"You have {waiting} rooms waiting for players: start or leave one first",
        )
    if hosted.filter(created_at__gte=Now() - timedelta(hours=1)).count() >= hourly:
        raise ServiceError(
            "too_many_rooms", f"You opened {hourly} rooms in the last hour: try again later"
        )


# ---------------------------------------------------------------------------- many at once


def ranked_matches_create(
    *, ruleset: str, tables: Sequence[Sequence[Any]], grace: float = 0
) -> list[Match | ServiceError]:
    """Open many ranked matches at once, every seat taken: for each table (the accounts a
    pairing chose, the first its host) what `match_create` with ``paired`` and then
    `match_join` for each other player make, the same rows (the match and its dice
    commitment, seats with their own client seeds, events, the first turn), the same
    checks (`_check_corners`, `ranked_refusals`, the host's room limits) and the same audit
    entries in the same order, written in a few set-based statements under one lock of the
    audit chain instead of some fifty round trips a match. One result per table, in order:
    its match, or the `ServiceError` refusing it (a player busy, a guest, in two tables),
    which leaves that table's players for the next pairing. For server-side pairing (no
    address or browser); a bulk insert sends no ``post_save`` (a new match has no ending to
    count). `grace`: seconds a player who has not opened the room yet has before their
    clock starts (players paired while away, a tournament's; `deadlines.deadline_of`)."""
    rules, _chosen = _rules_of(ruleset, Mode.RANKED, None, None)
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
    _check_corners(Mode.RANKED, corners, {}, None, None, host, paired_ids)
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
    entries = _created_entries(match, host, [corners[0]], {}, None)
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
            code = _new_code()
            while code in codes:
                code = _new_code()
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
    """`_may_open_room` (a room that waits for players) for many hosts in one query."""
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
