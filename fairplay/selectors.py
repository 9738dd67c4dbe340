"""Reading blocks and sanctions: who is kept apart from whom, who may not play ranked."""

from __future__ import annotations

from collections.abc import Collection, Iterable
from typing import Any

from django.db.models import Q

from audit.clock import db_now

from .models import Block, Sanction


def blocked_pairs(user_ids: Collection[int]) -> set[frozenset[int]]:
    """The pairs among `user_ids` that a block keeps apart (either side's block)."""
    if len(user_ids) < 2:
        return set()
    rows = Block.objects.filter(blocker_id__in=user_ids, blocked_id__in=user_ids)
    return {frozenset(pair) for pair in rows.values_list("blocker_id", "blocked_id")}


def blocked_by(user: Any) -> set[int]:
    """The users `user` blocked (whose reactions they do not see)."""
    if user is None or not getattr(user, "is_authenticated", False):
        return set()
    return set(Block.objects.filter(blocker_id=user.pk).values_list("blocked_id", flat=True))


def blocks(user: Any) -> list[Block]:
    return list(Block.objects.filter(blocker_id=user.pk).select_related("blocked"))


def in_force(now: Any = None) -> Q:
    """Sanctions in force at `now`: not lifted, not expired."""
    now = now or db_now()
    return Q(lifted_at__isnull=True) & (Q(expires_at__isnull=True) | Q(expires_at__gt=now))


def suspended(user_ids: Iterable[int]) -> set[int]:
    """Of `user_ids`, those suspended from ranked play now."""
    ids = list(user_ids)
    if not ids:
        return set()
    rows = Sanction.objects.filter(in_force(), user_id__in=ids, kind=Sanction.Kind.SUSPENSION)
    return set(rows.values_list("user_id", flat=True))


def suspension(user: Any) -> Sanction | None:
    """`user`'s ranked suspension in force, the one ending last."""
    return (
        Sanction.objects.filter(in_force(), user_id=user.pk, kind=Sanction.Kind.SUSPENSION)
        .order_by("-expires_at")
        .first()
    )


def sanctions_of(user: Any) -> list[Sanction]:
    """Every sanction `user` was given, newest first (their own page and the desk)."""
    return list(Sanction.objects.filter(user_id=user.pk).order_by("-created_at", "-pk"))
