"""The site's own hourly and daily events (Celery beat runs `schedule.make`)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from tournaments import schedule
from tournaments.models import Tournament
from tournaments.tasks import make_schedule


def test_hourly_and_daily_events_are_opened_once(db: Any) -> None:
    now = datetime(2026, 12, 3, 15, 20, tzinfo=UTC)
    made = schedule.make(now)
    # Six hours ahead: 16:00 to 21:00, three arenas an hour, and the two Swiss at 18:00.
    assert len(made) == 6 * 3 + 2
    swiss = Tournament.objects.filter(kind="swiss")
    assert {t.starts_at.hour for t in swiss} == {18} and {t.queue for t in swiss} == {
        "duel",
        "classic-4",
    }
    assert all(t.rounds > 0 for t in swiss)
    assert schedule.make(now) == []  # opened already
    assert Tournament.objects.count() == 20


def test_the_beat_task_runs(db: Any) -> None:
    assert make_schedule() >= 18
