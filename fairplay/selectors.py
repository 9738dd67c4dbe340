"""Reading blocks and sanctions: who is kept apart from whom, who may not play ranked."""

from __future__ import annotations

from collections.abc import Collection, Iterable
from typing import Any

from django.contrib.auth import get_user_model
from django.db.models import Count, Exists, Max, OuterRef, Q
from django.db.models.functions import Now

from .models import Block, Report, Sanction


def blocked_pairs(user_ids: Collection[int]) -> set[frozenset[int]]:
    """The pairs among `user_ids` that a block keeps apart (either side's block)."""
    if len(user_ids) < 2:
        return set()
    rows = Block.objects.filter(blocker_id__in=user_ids, blocked_id__in=user_ids)
    return {frozenset(pair) for pair in rows.values_list("blocker_id", "blocked_id")}


def blocks_among(user_ids: Collection[int]) -> set[tuple[int, int]]:
    """The blocks among `user_ids`, as (blocker, blocked): the pairing needs to know who made
    a block (that one sits out when the two would meet)."""
    if len(user_ids) < 2:
        return set()
    rows = Block.objects.filter(blocker_id__in=user_ids, blocked_id__in=user_ids)
    return set(rows.values_list("blocker_id", "blocked_id"))


def blocked_by(user: Any) -> set[int]:
    """The users `user` blocked (whose reactions they do not see)."""
    if user is None or not getattr(user, "is_authenticated", False):
        return set()
    return set(Block.objects.filter(blocker_id=user.pk).values_list("blocked_id", flat=True))


def blocks(user: Any) -> list[Block]:
    return list(Block.objects.filter(blocker_id=user.pk).select_related("blocked"))


def in_force(now: Any = None) -> Q:
    """Sanctions in force at `now` (the database's clock when None): not lifted, not
    expired."""
    when = now if now is not None else Now()
    return Q(lifted_at__isnull=True) & (Q(expires_at__isnull=True) | Q(expires_at__gt=when))


def is_suspended() -> Exists:
    """For a query of users: whether each is suspended from ranked play now."""
    return Exists(
        Sanction.objects.filter(in_force(), kind=Sanction.Kind.SUSPENSION, user_id=OuterRef("pk"))
    )


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


def report_groups() -> list[dict[str, Any]]:
    """Open reports grouped per reported player, most reported first: how many, by whom,
    for which reasons, and the latest."""
    rows = (
        Report.objects.filter(handled_at__isnull=True)
        .values("reported_id", "reason")
        .annotate(n=Count("pk"), reporters=Count("reporter", distinct=True), last=Max("created_at"))
        .order_by()
    )
    groups: dict[int, dict[str, Any]] = {}
    for row in rows:
        group = groups.setdefault(
            row["reported_id"], {"reasons": {}, "open": 0, "reporters": 0, "last": row["last"]}
        )
        group["reasons"][row["reason"]] = row["n"]
        group["open"] += row["n"]
        group["reporters"] = max(group["reporters"], row["reporters"])
        group["last"] = max(group["last"], row["last"])
    users = get_user_model().objects.in_bulk(list(groups))
    labels = dict(Report.Reason.choices)
    out = []
    for user_id, group in groups.items():
        if user_id not in users:
            continue
        group["player"] = users[user_id]
        group["reason_list"] = [(labels[r], n) for r, n in sorted(group["reasons"].items())]
        out.append(group)
    out.sort(key=lambda g: (-g["open"], g["last"]))
    return out


def reports_of(user: Any) -> list[Report]:
    return list(
        Report.objects.filter(reported_id=user.pk)
        .select_related("reporter", "match", "handled_by")
        .order_by("handled_at", "-created_at")
    )


def appeals_for(moderator: Any) -> list[Sanction]:
    """The appeals routed to `moderator` and not decided yet, oldest first."""
    return list(
        Sanction.objects.filter(
            appeal_moderator_id=moderator.pk,
            appealed_at__isnull=False,
            appeal_decided_at__isnull=True,
        )
        .select_related("user", "moderator")
        .order_by("appealed_at")
    )


def off_leaderboards() -> Any:
    """The ids of players a mark in force takes off the leaderboards (a subquery)."""
    return Sanction.objects.filter(in_force(), kind=Sanction.Kind.MARK).values("user_id")
