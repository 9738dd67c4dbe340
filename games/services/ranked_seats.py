"""Who may sit in a ranked match: one active ranked match per account, accounts only (no
guests), and a note for the staff when two sides of a ranked match come from one address.
`ranked.matchmaking` seats players through match_create and match_join, so these checks hold
for the queues and the API alike."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.contrib.auth import get_user_model

from accounts.models import is_guest
from audit import actions
from audit import services as audit
from games.match.errors import ServiceError
from games.match.selectors import ranked_seat_in_play
from games.models import (
    Match,
    Mode,
    Seat,
    Status,
)


def ranked_may_sit(user: Any, match: Match | None = None) -> None:
    """Refuse a guest, or an account already seated in another ranked match that is waiting or
    being played (and that it has not left). Locks the user's row until the transaction ends,
    so two tabs taking two seats at once are one after the other."""
    if is_guest(user) or not getattr(user, "is_authenticated", False):
        raise ServiceError("forbidden", "Ranked play is for accounts: sign up or sign in first")
    # The user model, not type(user): a request's user is a lazy object (a 500, issue 12).
    get_user_model().objects.select_for_update(no_key=True).filter(pk=user.pk).first()
    other = ranked_seat_in_play(user, besides=match)
    if other is not None:
        raise ServiceError(
            "ranked_busy",
            f"You are already in a ranked match (room {other.match.code}): finish it first",
        )


def note_same_ip(match: Match, seat: Seat, seats: list[Seat]) -> None:
    """Record (not block) a seat whose address another player's seat in the match shares."""
    if not seat.ip:
        return
    others = [s for s in seats if s.pk != seat.pk and s.user_id != seat.user_id]
    shared = [s for s in others if s.ip and str(s.ip) == str(seat.ip)]
    if shared:
        audit.record(
            action=actions.MATCH_SAME_IP,
            actor=seat.user,
            ip=seat.ip,
            obj=match,
            extra={
                "code": match.code,
                "corners": sorted([seat.corner, *(s.corner for s in shared)]),
                "users": sorted([seat.user_id, *(s.user_id for s in shared)]),
            },
        )


def ranked_refusals(users: Sequence[Any]) -> dict[int, ServiceError]:
    """`ranked_may_sit` for many accounts at once (a tournament's tables opened together):
    the refusal of each account that may not take a ranked seat now, by user id. Their rows
    are locked until the transaction ends (``FOR NO KEY UPDATE``: `ranked_may_sit` waits
    for it, a row that only points at the account does not); an account whose
    row another transaction holds at this moment (joining a queue, taking a seat) is refused
    as busy rather than waited for: it is paired again next time."""
    refused: dict[int, ServiceError] = {}
    ids = sorted({int(u.pk) for u in users if getattr(u, "pk", None) is not None})
    for user in users:
        if is_guest(user) or not getattr(user, "is_authenticated", False):
            refused[int(user.pk)] = ServiceError(
                "forbidden", "Ranked play is for accounts: sign up or sign in first"
            )
    locked = set(
        get_user_model()
        .objects.select_for_update(skip_locked=True, no_key=True)
        .filter(pk__in=ids)
        .values_list("pk", flat=True)
    )
    for uid in ids:
        if uid not in locked:
            refused.setdefault(
                uid, ServiceError("ranked_busy", "You are taking a seat elsewhere right now")
            )
    in_play = Seat.objects.filter(
        user_id__in=ids,
        left=False,
        match__mode=Mode.RANKED,
        match__status__in=(Status.WAITING, Status.ACTIVE),
    ).values_list("user_id", "match__code")
    for uid, code in in_play:
        refused.setdefault(
            uid,
            ServiceError(
                "ranked_busy",
                f"You are already in a ranked match (room {code}): finish it first",
            ),
        )
    return refused
