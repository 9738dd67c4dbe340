"""The one writer of blocks and sanctions. Each locks the user rows it concerns, the way the
queue's sweep does (`ranked.matchmaking._seat` locks the players' rows, then re-reads blocks
and suspensions): a block or a suspension committed before a match is made is seen by it."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils.translation import gettext as _

from audit import actions
from audit import services as audit
from audit.clock import db_now
from disputes.services import is_moderator
from games.match.errors import ServiceError
from ranked.models import Entry

from .models import Block, Sanction

MAX_SUSPENSION_DAYS = 365


class FairPlayError(ServiceError):
    codes = ServiceError.codes | {"blocked_self"}


def _lock(*user_ids: int) -> None:
    User = get_user_model()
    list(User.objects.select_for_update().filter(pk__in=user_ids).order_by("pk"))


def block(*, user: Any, other: Any, ip: str | None = None) -> Block:
    """`user` blocks `other`: they are not matched together again, and `user` no longer
    sees `other`'s reactions. Blocking twice is one block."""
    if not getattr(user, "is_authenticated", False):
        raise FairPlayError("forbidden", _("Sign in to block a player"))
    if other.pk == user.pk:
        raise FairPlayError("blocked_self", _("You cannot block yourself"))
    with transaction.atomic():
        _lock(user.pk, other.pk)
        made, created = Block.objects.get_or_create(blocker_id=user.pk, blocked_id=other.pk)
        if created:
            audit.record(
                action=actions.PLAYER_BLOCKED,
                actor=user,
                ip=ip,
                obj=made,
                extra={"blocked": other.pk},
            )
    return made


def unblock(*, user: Any, other: Any, ip: str | None = None) -> bool:
    with transaction.atomic():
        _lock(user.pk, other.pk)
        gone, _n = Block.objects.filter(blocker_id=user.pk, blocked_id=other.pk).delete()
        if gone:
            audit.record(
                action=actions.PLAYER_UNBLOCKED, actor=user, ip=ip, extra={"unblocked": other.pk}
            )
    return bool(gone)


def sanction(
    *,
    moderator: Any,
    user: Any,
    kind: str,
    reason: str,
    days: int | None = None,
    ip: str | None = None,
) -> Sanction:
    """A moderator sanctions `user`: a warning, a ranked suspension for `days`, or a
    leaderboard mark. `reason` is what the player reads."""
    if not is_moderator(moderator):
        raise FairPlayError("forbidden", _("Only moderators give sanctions"))
    if moderator.pk == user.pk:
        raise FairPlayError("forbidden", _("A moderator does not sanction themselves"))
    if kind not in Sanction.Kind.values:
        raise FairPlayError("bad_request", _("A sanction is a warning, a suspension or a mark"))
    reason = (reason or "").strip()
    if not reason:
        raise FairPlayError("bad_request", _("Say why, in words the player will read"))
    expires = None
    if kind == Sanction.Kind.SUSPENSION and (days is None or not 1 <= days <= MAX_SUSPENSION_DAYS):
        raise FairPlayError(
            "bad_request",
            _("A suspension lasts from 1 to %(most)d days") % {"most": MAX_SUSPENSION_DAYS},
        )
    with transaction.atomic():
        _lock(user.pk)
        now = db_now()
        if kind == Sanction.Kind.SUSPENSION:
            assert days is not None
            expires = now + timedelta(days=days)
        given = Sanction.objects.create(
            user=user, kind=kind, reason=reason[:2000], moderator=moderator, expires_at=expires
        )
        if kind == Sanction.Kind.SUSPENSION:
            # Out of the ranked queues at once; a sweep re-checks under the user's lock too.
            for entry in Entry.objects.select_for_update().filter(
                user_id=user.pk, ranked=True, state=Entry.State.WAITING
            ):
                entry.state = Entry.State.CANCELLED
                entry.ended_at = now
                entry.save(update_fields=["state", "ended_at"])
        audit.record(
            action=actions.SANCTION_GIVEN,
            actor=moderator,
            ip=ip,
            obj=given,
            extra={
                "user": user.pk,
                "kind": kind,
                "days": days,
                "expires": expires.isoformat() if expires else None,
            },
        )
    return given


def lift(*, moderator: Any, sanction_id: int, ip: str | None = None) -> Sanction:
    """End a sanction early (a moderator's decision)."""
    if not is_moderator(moderator):
        raise FairPlayError("forbidden", _("Only moderators lift sanctions"))
    with transaction.atomic():
        given = Sanction.objects.select_for_update().filter(pk=sanction_id).first()
        if given is None:
            raise FairPlayError("not_found", _("There is no such sanction"))
        if given.lifted_at is None:
            given.lifted_at = db_now()
            given.save(update_fields=["lifted_at"])
            audit.record(
                action=actions.SANCTION_LIFTED,
                actor=moderator,
                ip=ip,
                obj=given,
                extra={"user": given.user_id, "kind": given.kind},
            )
    return given
