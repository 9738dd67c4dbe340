"""A game on one device: each seat is a person or a computer, switched from under
the board during the game, and "Start over" begins a fresh game with the same seats."""

from __future__ import annotations

from functools import partial
from typing import Any

from django.db import transaction

from audit import actions
from audit import services as audit
from games.match.errors import ServiceError
from games.models import ENDED, Match, Mode, Status
from games.services.bots import BOT_LEVELS
from games.services.create import match_create
from games.services.kernel import ActionResult, begin, lock_match, result_of, save
from games.services.options import PARTY_OPTIONS


def _local_host(match: Match, user: Any) -> None:
    if match.mode != Mode.LOCAL:
        raise ServiceError("forbidden", "Only a game on one device does this")
    if user is None or match.host_id != getattr(user, "pk", None):
        raise ServiceError("not_seated", "This game is played on another device")


def match_set_seat(
    *, match_id: int, user: Any, corner: int, bot: str | None = None
) -> ActionResult:
    """Local play: seat `corner` becomes a person (`bot` None) or a computer of level `bot`,
    from its next step on; at least one seat stays a person. A computer put in the seat to
    play takes its step after the bot's pause."""
    with transaction.atomic():
        match = lock_match(match_id)
        _local_host(match, user)
        if match.status in ENDED:
            raise ServiceError("over", "This match has ended")
        if bot is not None and bot not in BOT_LEVELS:
            raise ServiceError("bad_request", f"There is no bot level {bot!r}")
        change = begin(match)
        seat = change.seat_at(int(corner))
        if seat is None:
            raise ServiceError("not_seated", f"Corner {corner} has no seat in this match")
        if seat.left:
            raise ServiceError("over", "That seat is out of this game")
        if (seat.bot or None) == bot:
            return result_of(change)  # already so: nothing changes
        people = [s for s in change.seats if not s.bot and not s.left and s.pk != seat.pk]
        if bot is not None and not people:
            raise ServiceError("bad_request", "At least one seat is a person")
        change.seat_update(seat, bot=bot, user=None if bot is not None else user)
        change.event("seat_changed", {"corner": seat.corner, "bot": bot})
        save(change)
        return result_of(change)


def match_start_over(*, match_id: int, user: Any, ip: str | None = None) -> Match:
    """Local play: a fresh game with the same rules and the same seats (each a person or the
    same computer); the old one, if still on, ends as aborted (its seed revealed)."""
    with transaction.atomic():
        match = lock_match(match_id)
        _local_host(match, user)
        change = begin(match)
        if match.status not in ENDED:
            match.status = Status.ABORTED
            match.finished_at = change.now
            change.match_fields.add("finished_at")
            change.event(
                "aborted",
                {
                    "status": "aborted",
                    "reason": "start_over",
                    "server_seed": match.server_seed,
                    "commitment": match.commitment,
                    "client_seed": match.client_seed,
                },
            )
            change.audits.append(
                partial(
                    audit.record,
                    action=actions.MATCH_ABORTED,
                    actor=user,
                    ip=ip,
                    obj=match,
                    extra={"code": match.code, "reason": "start_over"},
                )
            )
            save(change)
        options = match.options or {}
        return match_create(
            ruleset=match.ruleset,
            players=match.players,
            mode=Mode.LOCAL,
            house_rules=options.get("house_rules") or [],
            options=[name for name in PARTY_OPTIONS if options.get(name)],
            host=user,
            bots={s.corner: s.bot for s in change.seats if s.bot},
            first=options.get("first"),
            ip=ip,
            pace=options.get("pace"),
            seat_names=options.get("names"),
        )
