"""Taking a seat in a waiting match, choosing one's dice seed before the start, and starting
a match by hand (empty seats filled with bots on request)."""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.utils.translation import gettext_lazy

from audit import actions
from audit import services as audit
from games.match.devices import seat_agent
from games.match.errors import ServiceError, said
from games.models import (
    ENDED,
    Mode,
    Seat,
    Status,
)
from games.services.create import bot_seat, deal_first_turn, joined_event
from games.services.kernel import (
    ActionResult,
    begin,
    lock_match,
    lock_match_code,
    result_of,
    save,
    seats_of,
)
from games.services.options import check_bot_levels, check_client_seed
from games.services.ranked_seats import note_same_ip, ranked_may_sit


def match_join(
    *,
    code: str,
    user: Any,
    client_seed: str | None = None,
    ip: str | None = None,
    user_agent: str = "",
) -> Seat:
    """Take the lowest free seat of a waiting match; the match starts when it is full."""
    seed = check_client_seed(client_seed)
    with transaction.atomic():
        match = lock_match_code(code)
        if match.status in ENDED:
            raise ServiceError("over", "This match has ended")
        change = begin(match)
        if any(s.user_id == user.pk for s in change.seats):
            raise ServiceError("already_seated", "You already have a seat in this match")
        corners = match.rules.seats_for(match.players)
        taken = {s.corner for s in change.seats}
        free = [c for c in corners if c not in taken]
        if match.status != Status.WAITING or not free:
            raise ServiceError("full", "Every seat in this match is taken")
        if match.mode == Mode.RANKED:
            if user.pk not in match.options.get("paired", ()):
                raise ServiceError(
                    "ranked_by_matchmaking",
                    "Only the players quick match paired sit in a ranked match",
                )
            ranked_may_sit(user, match=match)
        seat = Seat.objects.create(
            match=match,
            corner=free[0],
            user=user,
            client_seed=seed,
            joined_at=change.now,
            ip=ip,
            **seat_agent(user_agent),
        )
        change.seats = seats_of(match)
        joined_event(change, seat)
        if match.mode == Mode.RANKED:
            note_same_ip(match, seat, change.seats)
        audit.record(
            action=actions.MATCH_JOINED,
            actor=user,
            ip=ip,
            obj=match,
            extra={"corners": [seat.corner]},
        )
        if len(free) == 1:
            deal_first_turn(change)
        save(change)
    return seat


def match_set_client_seed(*, code: str, user: Any, seed: str) -> None:
    """Set the user's client seed for the dice; allowed until the match starts."""
    seed = check_client_seed(seed)
    with transaction.atomic():
        match = lock_match_code(code)
        if match.status in ENDED:
            raise ServiceError("over", "This match has ended")
        if match.status != Status.WAITING:
            raise ServiceError("bad_request", "The dice seeds are fixed once the match starts")
        change = begin(match)
        mine = [s for s in change.seats if s.user_id == user.pk]
        if not mine:
            raise ServiceError("not_seated", "You have no seat in this match")
        change.seat_update(mine[0], client_seed=seed)
        change.event("client_seed", {"corner": mine[0].corner, "seed": seed})
        save(change)


def match_start(*, match_id: int, bots_for_empty: str | None = None) -> ActionResult:
    """Start a waiting match; empty seats are refused, or filled with bots of the given level
    (never in ranked)."""
    with transaction.atomic():
        match = lock_match(match_id)
        if match.status in ENDED:
            raise ServiceError("over", "This match has ended")
        if match.status != Status.WAITING:
            raise ServiceError("bad_request", said(gettext_lazy("This match has already started")))
        change = begin(match)
        corners = match.rules.seats_for(match.players)
        empty = [c for c in corners if change.seat_at(c) is None]
        if empty:
            if bots_for_empty is None:
                raise ServiceError(
                    "bad_request", f"Seats {', '.join(map(str, empty))} are still empty"
                )
            if match.mode == Mode.RANKED:
                raise ServiceError("ranked_no_bots", "Ranked matches never seat a bot")
            level = check_bot_levels({c: bots_for_empty for c in empty})
            Seat.objects.bulk_create(
                [bot_seat(match, c, lv, change.now) for c, lv in level.items()]
            )
            change.seats = seats_of(match)
            for c in empty:
                seat = change.seat_at(c)
                assert seat is not None
                joined_event(change, seat)
        deal_first_turn(change)
        save(change)
        return result_of(change)
