"""Voiding a finished match (a moderator upheld a dispute), re-rating its queue; undoing a
void; and a remedy short of a void, protecting one player's rating from a match."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from django.db import transaction

from audit import actions
from audit import services as audit
from games.match.errors import ServiceError
from games.models import (
    Match,
    Seat,
    Status,
)
from games.services.change import Change
from games.services.kernel import begin, lock_match, save
from ranked import ratings


def match_void(*, match_id: int, reason: str, actor: Any, ip: str | None = None) -> Match:
    """Void a finished match (a moderator upheld a dispute): it no longer counts. Its results
    are cleared (places and rating changes; the event stream keeps what happened), and if it
    was rated, its queue is re-rated as if it had never been played, which re-rates the later
    matches of its players in order. Refused unless the match is finished."""
    reason = str(reason).strip()
    if not reason:
        raise ServiceError("bad_request", "Say why the match is voided")
    with transaction.atomic():
        match = lock_match(match_id)
        if match.status == Status.VOID:
            raise ServiceError("already_void", "This match is void already")
        if match.status != Status.FINISHED:
            raise ServiceError("not_finished", "Only a finished match can be voided")
        change = begin(match)
        queue = ratings.queue_of(match)
        _set_void(change, Status.VOID, at=change.now, reason=reason)
        for seat in change.seats:
            change.seat_update(
                seat, place=None, rating_before=None, rating_after=None, rating_change=None
            )
        change.event("voided", {"status": "void", "reason": reason})
        _save_audited_and_rerated(
            change,
            queue,
            action=actions.MATCH_VOIDED,
            actor=actor,
            ip=ip,
            reason=reason,
            rerated="voided",
        )
    return match


def match_unvoid(*, match_id: int, reason: str, actor: Any, ip: str | None = None) -> Match:
    """Undo a void (a moderator found it wrong): the match counts again. Its places come back
    from the replay, and a rated match's queue is re-rated with it in its place. Audited with
    the reason (staff only); the stream says "unvoided"."""
    reason = str(reason).strip()
    if not reason:
        raise ServiceError("bad_request", "Say why the void is undone")
    with transaction.atomic():
        match = lock_match(match_id)
        if match.status != Status.VOID:
            raise ServiceError("not_void", "This match is not void")
        change = begin(match)
        state = change.state
        if state is None or state.phase != "over":
            raise ServiceError("not_finished", "Only a finished match can count again")
        queue = ratings.queue_of(match)
        _set_void(change, Status.FINISHED, at=None, reason="")
        for place, corner in enumerate(state.placings, start=1):
            seat = change.seat_at(corner)
            if seat is not None:
                change.seat_update(seat, place=place)
        change.event("unvoided", {"status": "finished"})
        _save_audited_and_rerated(
            change,
            queue,
            action=actions.MATCH_UNVOIDED,
            actor=actor,
            ip=ip,
            reason=reason,
            rerated="counts again",
        )
    return match


def _set_void(change: Change, status: Status, *, at: datetime | None, reason: str) -> None:
    """A match voided (at `at`, for `reason`) or counting again (None, ""): its status and
    void fields, saved with the change."""
    change.match.status = status
    change.match.voided_at = at
    change.match.void_reason = reason
    change.match_fields.update({"voided_at", "void_reason"})


def _save_audited_and_rerated(
    change: Change,
    queue: str | None,
    *,
    action: str,
    actor: Any,
    ip: str | None,
    reason: str,
    rerated: str,
) -> None:
    """How a void and its undoing end alike: audited with the reason (staff only), the
    change saved, and a rated match's queue re-rated with the match out of it or back in
    ("match CODE voided", "match CODE counts again" in the ratings' history)."""
    match = change.match
    audit.record(
        action=action,
        actor=actor,
        ip=ip,
        obj=match,
        extra={"code": match.code, "reason": reason, "queue": queue},
    )
    save(change)
    if queue is not None:
        _store_rerated(ratings.rerate(queue, reason=f"match {match.code} {rerated}"))


def seat_protect_rating(
    *, match_id: int, user: Any, reason: str, actor: Any, ip: str | None = None
) -> list[int]:
    """A remedy short of a void: the finished ranked match no longer moves `user`'s rating
    (say, after the server dropped their connection); it still counts for the others. The
    queue is re-rated. Returns the corners protected."""
    return _set_protected(
        match_id=match_id, user=user, reason=reason, actor=actor, ip=ip, protected=True
    )


def seat_unprotect_rating(
    *, match_id: int, user: Any, reason: str, actor: Any, ip: str | None = None
) -> list[int]:
    """Undo `seat_protect_rating` (the decision that gave the rating back was lifted): the
    match moves `user`'s rating again, and the queue is re-rated. Returns the corners (none
    when the rating was not protected)."""
    return _set_protected(
        match_id=match_id, user=user, reason=reason, actor=actor, ip=ip, protected=False
    )


def _set_protected(
    *, match_id: int, user: Any, reason: str, actor: Any, ip: str | None, protected: bool
) -> list[int]:
    reason = str(reason).strip()
    if not reason:
        raise ServiceError("bad_request", "Say why the rating is protected")
    with transaction.atomic():
        match = lock_match(match_id)
        if match.status != Status.FINISHED:
            raise ServiceError("not_finished", "Only a finished match that counts can be changed")
        queue = ratings.queue_of(match)
        if queue is None:
            raise ServiceError("not_ranked", "This match moved no rating")
        seats = list(Seat.objects.filter(match=match, user_id=getattr(user, "pk", None)))
        if not seats:
            raise ServiceError("not_seated", "That player has no seat in this match")
        if protected and all(s.rating_protected for s in seats):
            raise ServiceError("already_protected", "That player's rating is protected already")
        if not protected and not any(s.rating_protected for s in seats):
            return []  # nothing to undo: undoing twice is undoing once
        for seat in seats:
            seat.rating_protected = protected
            seat.save(update_fields=["rating_protected"])
        corners = [s.corner for s in seats]
        audit.record(
            action=actions.MATCH_RATING_PROTECTED
            if protected
            else actions.MATCH_RATING_UNPROTECTED,
            actor=actor,
            ip=ip,
            obj=match,
            extra={"code": match.code, "user": user.pk, "corners": corners, "reason": reason},
        )
        what = "a rating protected" if protected else "a rating's protection undone"
        _store_rerated(ratings.rerate(queue, reason=f"match {match.code}: {what}"))
    return corners


def _store_rerated(results: Mapping[int, ratings.Result]) -> None:
    """Write re-rated results onto their seats (only the seats whose numbers changed)."""
    seats = Seat.objects.filter(pk__in=list(results)).only(
        "rating_before", "rating_after", "rating_change"
    )
    changed = []
    for seat in seats:
        result = results[seat.pk]
        if (seat.rating_before, seat.rating_after) != (result.before, result.after):
            seat.rating_before, seat.rating_after = result.before, result.after
            seat.rating_change = result.change
            changed.append(seat)
    Seat.objects.bulk_update(changed, ["rating_before", "rating_after", "rating_change"])
