"""The clock's due queries, read from the narrow ``games_matchdeadline`` table (kept by a
trigger on ``games_match``, migration 0005) instead of an index on ``games_match``, so the
match's own UPDATE, made on every action, stays HOT (issue 27).

`due_match_ids` replaces ``Match.objects.filter(status=ACTIVE, turn_deadline__lte=Now())``
in the sweep, `seconds_to_next_deadline` the in-process clock's earliest-deadline read. Both
read the database clock; the services re-check the match under its lock, as before.
"""

from __future__ import annotations

from django.db import connection
from django.db.models.functions import Now
from django.utils import timezone

from games.models import Match, MatchDeadline, Status


def _from_the_table() -> bool:
    """PostgreSQL keeps the deadline table by its trigger. On SQLite (`make run`, one process)
    Django rebuilds ``games_match`` for some later migrations, which drops a table's triggers,
    so there the clock reads the match table itself: small, and never HOT-sensitive."""
    return connection.vendor == "postgresql"


def due_match_ids(*, batch: int = 200) -> list[int]:
    """The ids of active matches whose deadline has passed, the most overdue first."""
    if not _from_the_table():
        return list(
            Match.objects.filter(status=Status.ACTIVE, turn_deadline__lte=Now())
            .order_by("turn_deadline")
            .values_list("pk", flat=True)[:batch]
        )
    return list(
        MatchDeadline.objects.filter(due__lte=Now())
        .order_by("due")
        .values_list("match_id", flat=True)[:batch]
    )


def seconds_to_next_deadline() -> float | None:
    """Seconds until the earliest deadline of an active match (negative when one is past),
    or None when no match has one."""
    if _from_the_table():
        first = MatchDeadline.objects.order_by("due").values_list("due", flat=True).first()
    else:
        first = (
            Match.objects.filter(status=Status.ACTIVE, turn_deadline__isnull=False)
            .order_by("turn_deadline")
            .values_list("turn_deadline", flat=True)
            .first()
        )
    return None if first is None else (first - timezone.now()).total_seconds()
