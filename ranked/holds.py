"""Sanction evasion: who may play ranked at all, before any queue.

A new account is a free second chance for a suspended player, so ranked play needs an account
that has finished `RANKED_MIN_CASUAL_GAMES` casual games or is `RANKED_MIN_ACCOUNT_DAYS` days
old (`newcomer_refusal`). And an account seen at an address of an account under a ranked
suspension (the desk's own reading of addresses, `disputes.addresses`: audit entries and seats,
the join's address too; the server's loopback never links) is held for a moderator instead of
queued (`check`; tournament entry too): a `Hold` the fair-play desk shows, which a moderator
decides (`decide`): allowed, or kept out while that suspension lasts. Devices are not linked:
the seats' device hint is a browser family, shared by thousands.

The one writer of `ranked.models.Hold`; each write audited.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils.translation import gettext_lazy

from audit import actions
from audit import services as audit
from audit.clock import db_now
from disputes.addresses import addresses_of, is_local
from disputes.services import is_moderator
from fairplay.models import Sanction
from fairplay.selectors import in_force
from games.match.errors import ServiceError, said
from games.models import Mode, Seat, Status

from .models import Hold


class HoldError(ServiceError):
    codes = ServiceError.codes | {"too_new", "held"}


def newcomer_refusal(user: Any) -> HoldError | None:
    """Why a new account may not play ranked yet (None: it may)."""
    days = settings.RANKED_MIN_ACCOUNT_DAYS
    games = settings.RANKED_MIN_CASUAL_GAMES
    if days <= 0 or user.date_joined <= db_now() - timedelta(days=days):
        return None
    played = Seat.objects.filter(
        user_id=user.pk, match__mode=Mode.FRIENDLY, match__status=Status.FINISHED
    ).count()
    if played >= games:
        return None
    return HoldError(
        "too_new",
        said(
            gettext_lazy(
                "Ranked play opens once your account has finished %(games)d casual games "
                "(%(played)d so far) or is %(days)d days old. Casual quick match is open now."
            ),
            games=games,
            played=played,
            days=days,
        ),
    )


HELD = gettext_lazy(
    "Your account was seen at the same address as an account suspended from ranked play, so "
    "a moderator looks at it before you play ranked. Casual play stays open."
)
KEPT = gettext_lazy(
    "A moderator kept your account out of ranked play while a linked account's suspension "
    "lasts. Casual play stays open."
)


def linked_suspension(user_id: int, ip: str | None) -> tuple[int, str] | None:
    """An account under a ranked suspension seen at one of `user_id`'s addresses (or `ip`),
    and that address; None when there is none. Reads the suspended accounts' addresses (few)
    rather than every account at the player's."""
    suspended = set(
        Sanction.objects.filter(in_force(), kind=Sanction.Kind.SUSPENSION)
        .exclude(user_id=user_id)
        .values_list("user_id", flat=True)
    )
    if not suspended:
        return None
    mine = set(addresses_of(user_id))
    if ip and not is_local(ip):
        mine.add(ip)
    if not mine:
        return None
    for other in sorted(suspended):
        shared = mine & set(addresses_of(other))
        if shared:
            return other, min(shared)
    return None


def check(user: Any, ip: str | None = None) -> None:
    """Raise `HoldError` when `user` may not join a ranked queue now: too new, or held for a
    moderator. A new link to a suspended account makes a `Hold` (committed and audited even
    though the join is refused)."""
    refusal = newcomer_refusal(user)
    if refusal is not None:
        raise refusal
    holds = {h.linked_id: h for h in Hold.objects.filter(user_id=user.pk)}
    if any(h.decided_at is None for h in holds.values()):
        raise HoldError("held", said(HELD))
    link = linked_suspension(user.pk, ip)
    if link is None:
        return
    linked, address = link
    held = holds.get(linked)
    if held is not None and held.decision == Hold.Decision.ALLOWED:
        return
    if held is not None:
        raise HoldError("held", said(KEPT))
    with transaction.atomic():
        made, created = Hold.objects.get_or_create(
            user_id=user.pk, linked_id=linked, defaults={"ip": address}
        )
        if created:
            audit.record(
                action=actions.QUEUE_HELD,
                actor=user,
                ip=ip,
                obj=made,
                extra={"linked": linked, "address": address},
            )
    raise HoldError("held", said(HELD))


def refusal(user: Any) -> HoldError | None:
    """What `check` would refuse, read only from what is stored (no new link is looked for):
    for pages that say whether a player may enter ranked play (a tournament's entry)."""
    too_new = newcomer_refusal(user)
    if too_new is not None:
        return too_new
    for hold in Hold.objects.filter(user_id=user.pk):
        if hold.decided_at is None:
            return HoldError("held", said(HELD))
        if hold.decision == Hold.Decision.KEPT and (
            Sanction.objects.filter(
                in_force(), user_id=hold.linked_id, kind=Sanction.Kind.SUSPENSION
            ).exists()
        ):
            return HoldError("held", said(KEPT))
    return None


def open_holds() -> list[Hold]:
    """The holds waiting for a moderator, oldest first (the fair-play desk)."""
    return list(
        Hold.objects.filter(decided_at__isnull=True)
        .select_related("user", "linked")
        .order_by("created_at", "pk")
    )


def decide(*, moderator: Any, hold_id: int, allow: bool, ip: str | None = None) -> Hold:
    """A moderator decides a hold: the account plays ranked (`allow`), or stays out while the
    linked account's suspension lasts. Never a moderator who is either account, or who was
    seen at the address that linked them."""
    if not is_moderator(moderator):
        raise HoldError("forbidden", said(gettext_lazy("Only moderators decide held accounts")))
    with transaction.atomic():
        hold = Hold.objects.select_for_update().filter(pk=hold_id).first()
        if hold is None:
            raise HoldError("not_found", said(gettext_lazy("There is no such hold")))
        if moderator.pk in (hold.user_id, hold.linked_id) or hold.ip in addresses_of(moderator.pk):
            raise HoldError(
                "forbidden", said(gettext_lazy("Another moderator decides this account"))
            )
        if hold.decided_at is not None:
            return hold
        hold.decided_at = db_now()
        hold.decided_by = moderator
        hold.decision = Hold.Decision.ALLOWED if allow else Hold.Decision.KEPT
        hold.save(update_fields=["decided_at", "decided_by", "decision"])
        audit.record(
            action=actions.QUEUE_HOLD_DECIDED,
            actor=moderator,
            ip=ip,
            obj=hold,
            extra={"user": hold.user_id, "linked": hold.linked_id, "decision": hold.decision},
        )
    return hold
