"""The clock's due queries, read from the narrow ``games_matchdeadline`` table (kept by a
trigger on ``games_match``, migration 0005) instead of an index on ``games_match``, so the
match's own UPDATE, made on every action, stays HOT (issue 27).

`due_match_ids` replaces ``Match.objects.filter(status=ACTIVE, turn_deadline__lte=Now())``
in the sweep, `seconds_to_next_deadline` the in-process clock's earliest-deadline read. Both
read the database clock; the services re-check the match under its lock, as before.
"""

from __future__ import annotations

from django.db.models.functions import Now
from django.utils import timezone

from games.models import MatchDeadline


def due_match_ids(*, batch: int = 200) -> list[int]:
    """The ids of active matches whose deadline has passed, the most overdue first."""
    return list(
        MatchDeadline.objects.filter(due__lte=Now())
        .order_by("due")
        .values_list("match_id", flat=True)[:batch]
    )


def seconds_to_next_deadline() -> float | None:
    """Seconds until the earliest deadline of an active match (negative when one is past),
    or None when no match has one."""
    first = MatchDeadline.objects.order_by("due").values_list("due", flat=True).first()
    return None if first is None else (first - timezone.now()).total_seconds()
