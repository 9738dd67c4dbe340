"""The only writer of dispute rows: open, settle, mark a decision read, and log a review.

Services are keyword-only, run in one transaction and raise `DisputeError` (nothing written)
when they refuse. Every opening, review of private data and settlement is audited.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction

from audit import actions
from audit import services as audit
from audit.clock import db_now
from games import services as games
from games.match.errors import ServiceError
from games.models import Match, Mode, Status

from .models import MODERATORS, Dispute, DisputeStatus, Reason

TEXT_MAX = 2000
DECISION_MAX = 2000

CODES = frozenset(
    {
        "not_found",  # no such match or dispute (or not one the user may see)
        "not_a_player",  # the user had no seat in the match
        "not_finished",  # only a finished match can be disputed
        "window_closed",  # the match finished more than DISPUTE_WINDOW_DAYS ago
        "already_open",  # the player has an open dispute on this match already
        "already_settled",  # a dispute is settled once
        "bad_request",  # a reason, text or turn that makes no sense
        "forbidden",  # not a moderator
    }
)


class DisputeError(ServiceError):
    """A refused dispute action. Nothing was written; ``code`` is one of `CODES`."""

    codes = CODES


def window_days() -> int:
    """How many days after its end a match can be disputed (setting DISPUTE_WINDOW_DAYS)."""
    return int(settings.DISPUTE_WINDOW_DAYS)


def is_moderator(user: Any) -> bool:
    """Staff in the moderators group: they see and settle every dispute."""
    if user is None or not getattr(user, "is_authenticated", False) or not user.is_staff:
        return False
    return user.groups.filter(name=MODERATORS).exists()


def disputable(match: Match, user: Any, *, now: Any = None) -> str | None:
    """Why `user` cannot open a dispute on `match` now (a DisputeError code), or None."""
    if user is None or not getattr(user, "is_authenticated", False):
        return "not_a_player"
    if match.mode == Mode.LOCAL or not match.seats.filter(user=user, bot__isnull=True).exists():
        return "not_a_player"
    if match.status != Status.FINISHED or match.finished_at is None:
        return "not_finished"
    now = now or db_now()
    if now > match.finished_at + timedelta(days=window_days()):
        return "window_closed"
    if Dispute.objects.filter(match=match, player=user, status=DisputeStatus.OPEN).exists():
        return "already_open"
    return None


MESSAGES = {
    "not_a_player": "Only a player of this match can open a dispute about it.",
    "not_finished": "A dispute can be opened once the match has finished.",
    "window_closed": "Disputes close {days} days after the match ends; this one is closed.",
    "already_open": "You already have an open dispute about this match.",
}


def dispute_open(
    *,
    match_id: int,
    user: Any,
    reason: str,
    text: str,
    turn: int | None = None,
    ip: str | None = None,
) -> Dispute:
    """Open a dispute on a finished match `user` played, within the window."""
    if reason not in Reason.values:
        raise DisputeError("bad_request", f"Pick a reason from the list (not {reason!r}).")
    text = str(text or "").strip()
    if not text:
        raise DisputeError("bad_request", "Say what went wrong.")
    if len(text) > TEXT_MAX:
        raise DisputeError("bad_request", f"Keep it under {TEXT_MAX} characters.")
    with transaction.atomic():
        match = Match.objects.select_for_update().filter(pk=match_id).first()
        if match is None:
            raise DisputeError("not_found", "There is no such match.")
        if turn is not None and not 1 <= int(turn) <= max(match.turn_seq, 1):
            raise DisputeError(
                "bad_request", f"The match has turns 1 to {match.turn_seq}; pick one of them."
            )
        now = db_now()
        why = disputable(match, user, now=now)
        if why is not None:
            raise DisputeError(why, MESSAGES[why].format(days=window_days()))
        try:
            with transaction.atomic():
                dispute = Dispute.objects.create(
                    match=match,
                    player=user,
                    reason=reason,
                    text=text,
                    turn=None if turn is None else int(turn),
                    opened_at=now,
                )
        except IntegrityError:  # a second request raced this one
            raise DisputeError("already_open", MESSAGES["already_open"]) from None
        audit.record(
            action=actions.DISPUTE_OPENED,
            actor=user,
            ip=ip,
            obj=dispute,
            extra={"match": match.pk, "code": match.code, "reason": reason, "turn": dispute.turn},
        )
    return dispute


def dispute_settle(
    *, dispute_id: int, moderator: Any, uphold: bool, reason: str, ip: str | None = None
) -> Dispute:
    """Uphold (void the match, re-rating its queue) or reject a dispute, with a written reason.
    A dispute is settled once: the row is locked, and a settled one is refused."""
    if not is_moderator(moderator):
        raise DisputeError("forbidden", "Only moderators settle disputes.")
    reason = str(reason or "").strip()
    if not reason:
        raise DisputeError("bad_request", "Write the reason for the decision.")
    if len(reason) > DECISION_MAX:
        raise DisputeError("bad_request", f"Keep the reason under {DECISION_MAX} characters.")
    with transaction.atomic():
        dispute = (
            Dispute.objects.select_for_update().select_related("match").filter(pk=dispute_id)
        ).first()
        if dispute is None:
            raise DisputeError("not_found", "There is no such dispute.")
        if not dispute.is_open:
            raise DisputeError(
                "already_settled", f"This dispute was settled already ({dispute.status})."
            )
        match = dispute.match
        voided = False
        if uphold:
            try:
                games.match_void(
                    match_id=match.pk,
                    reason=f"Dispute {dispute.pk} upheld: {reason}",
                    actor=moderator,
                    ip=ip,
                )
                voided = True
            except ServiceError as e:
                if e.code != "already_void":  # another dispute on it was upheld first
                    raise DisputeError("not_finished", e.message) from e
        now = db_now()
        dispute.status = DisputeStatus.UPHELD if uphold else DisputeStatus.REJECTED
        dispute.settled_at = now
        dispute.settled_by = moderator
        dispute.decision = reason
        dispute.seen = False
        dispute.save(update_fields=["status", "settled_at", "settled_by", "decision", "seen"])
        audit.record(
            action=actions.DISPUTE_SETTLED,
            actor=moderator,
            ip=ip,
            obj=dispute,
            extra={
                "match": match.pk,
                "code": match.code,
                "outcome": dispute.status,
                "reason": reason,
                "voided": voided,
            },
        )
    return dispute


def dispute_seen(*, dispute: Dispute, user: Any) -> None:
    """The player read the decision: it is no longer news."""
    if dispute.player_id == getattr(user, "pk", None) and not dispute.seen:
        Dispute.objects.filter(pk=dispute.pk).update(seen=True)
        dispute.seen = True


def disputes_seen(*, user: Any) -> int:
    """The player read the list of their disputes: every decision in it is no longer news."""
    return Dispute.objects.filter(player=user, seen=False).update(seen=True)


def dispute_viewed(*, dispute: Dispute, moderator: Any, ip: str | None = None) -> None:
    """Log that a moderator opened the review page (seat and audit addresses, the dice)."""
    audit.record(
        action=actions.DISPUTE_VIEWED,
        actor=moderator,
        ip=ip,
        obj=dispute,
        extra={"match": dispute.match_id, "code": dispute.match.code},
    )
