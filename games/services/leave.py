"""Leaving a match: a forfeit (the server's doing) or a resignation (the player's); in a
friendly party room a bot plays on in the seat instead."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from django.db import transaction
from django.utils.translation import gettext_lazy

from audit import actions
from audit import services as audit
from games.match.errors import ServiceError, said
from games.models import (
    Match,
    Mode,
    Seat,
)
from games.services.bots import DEFAULT_BOT_LEVEL
from games.services.change import Change, acting_seat, check_active
from games.services.kernel import ActionResult, begin, lock_match, result_of, save


def take_out(
    change: Change,
    seat: Seat,
    *,
    reason: str,
    forfeit: bool,
    actor: Any = None,
    ip: str | None = None,
) -> None:
    """`seat` leaves the match (the engine places it below everyone still playing), audited
    as a forfeit (the server's doing) or a resignation (the player's) once the change saves."""
    change.leave(seat, reason=reason, forfeit=forfeit)
    change.audits.append(
        partial(
            audit.record,
            action=actions.MATCH_FORFEITED if forfeit else actions.MATCH_RESIGNED,
            actor=actor if actor is not None else seat.user,
            ip=ip,
            obj=change.match,
            extra={"corner": seat.corner, "reason": reason},
        )
    )


def _leave(
    match_id: int,
    seat_of: Callable[[Change], Seat],
    reason: str,
    forfeit: bool,
    actor: Any,
    ip: str | None = None,
) -> ActionResult:
    with transaction.atomic():
        match = lock_match(match_id)
        check_active(match)
        change = begin(match)
        seat = seat_of(change)
        take_out(change, seat, reason=reason, forfeit=forfeit, actor=actor, ip=ip)
        save(change)
        return result_of(change)


def match_forfeit(*, match_id: int, corner: int, reason: str) -> ActionResult:
    """The server takes `corner` out of the match (disconnect grace expired, ...)."""

    def seat_of(change: Change) -> Seat:
        seat = change.seat_at(int(corner))
        if seat is None:
            raise ServiceError("not_seated", f"Corner {corner} has no seat in this match")
        return seat

    return _leave(match_id, seat_of, str(reason), True, None)


def match_resign(
    *, match_id: int, user: Any = None, corner: int | None = None, ip: str | None = None
) -> ActionResult:
    """A player gives up: placed below everyone still playing. (In local play the host names
    the seat with `corner`.) In party rooms that may seat bots, a bot plays on in the seat
    instead (`hand_to_bot`)."""
    with transaction.atomic():
        match = lock_match(match_id)
        check_active(match)
        if bot_takes_over(match):
            change = begin(match)
            seat = acting_seat(change, user, corner)
            if seat.left:
                raise ServiceError("over", said(gettext_lazy("You are out of this match")))
            if seat.away:
                raise ServiceError(
                    "bad_request", said(gettext_lazy("A bot is already playing your seat"))
                )
            hand_to_bot(change, seat, user, ip)
            save(change)
            return result_of(change)
    return _leave(
        match_id, lambda change: acting_seat(change, user, corner), "resigned", False, user, ip
    )


def hand_to_bot(change: Change, seat: Seat, actor: Any, ip: str | None) -> None:
    """Party: a leaving player's seat is played on by a labelled bot (docs/rules.md, "Clocks
    and absent players"); the match keeps its number of players. The seat stays the player's: as
    for any away seat, they take it back by opening the room again or by acting in it.
    Until they come back the seat is ``gone``: a leaver who never returns loses,
    so the bot never finishes the seat; where it would, the seat is taken out instead and
    placed below everyone still playing (`games.services.bots.leaver_would_finish`). The
    stream and the audit log say that the player left."""
    level = DEFAULT_BOT_LEVEL
    change.seat_update(seat, away=True, gone=True, missed_turns=0)
    change.event("bot_took_seat", {"corner": seat.corner, "bot": level, "reason": "resigned"})
    change.audits.append(
        partial(
            audit.record,
            action=actions.MATCH_BOT_TOOK_SEAT,
            actor=actor if actor is not None else seat.user,
            ip=ip,
            obj=change.match,
            extra={"corner": seat.corner, "bot": level, "reason": "resigned"},
        )
    )


def bot_takes_over(match: Match) -> bool:
    """Whether leaving hands the seat to a bot: party rules in a friendly room. Ranked rooms
    never seat a bot (leaving is a forfeit there); practice (a person against bots) and local
    play (one device) keep the plain resign, which ends the game for the one who asked."""
    return match.rules.on_disconnect == "bot" and match.mode == Mode.FRIENDLY
