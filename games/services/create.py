"""Opening a match: the options checked, the seats dealt (the host's, the bots'), the room
code drawn, and the first turn dealt once every seat is filled (`deal_first_turn`, which
`games.services.join` uses too)."""

from __future__ import annotations

import secrets
from collections.abc import Iterable, Mapping
from datetime import datetime, timedelta
from functools import partial
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models.functions import Now

from audit import actions
from audit import services as audit
from audit.clock import db_now
from games.engine import new_game, rules_name
from games.match import dice
from games.match.devices import seat_agent
from games.match.errors import ServiceError
from games.models import CODE_ALPHABET, CODE_LENGTH, Match, Mode, Seat, Status, Turn
from games.services.change import Change
from games.services.kernel import save, seats_of
from games.services.options import (
    HOUSE_RULES,
    check_bot_levels,
    check_client_seed,
    check_corners,
    check_pace,
    check_seat_names,
    rules_of,
)
from games.services.ranked_seats import ranked_may_sit


def new_code() -> str:
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
    rules, chosen = rules_of(ruleset, mode, house_rules, options)
    try:
        corners = rules.seats_for(int(players))
    except (ValueError, TypeError) as exc:
        raise ServiceError("bad_request", str(exc)) from exc
    bot_levels = check_bot_levels(bots)
    paired_ids = sorted({int(u.pk) for u in paired or ()})
    check_corners(mode, corners, bot_levels, first, server_seed, host, paired_ids)
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
                    code=new_code(),
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
    for entry in created_entries(change.match, host, host_corners, bot_levels, ip):
        audit.record(**entry)


def created_entries(
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
