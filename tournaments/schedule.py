"""The site's own events, opened ahead by Celery beat (`tournaments.schedule`): every hour
a 30-minute arena of each queue, and every day at 18:00 UTC a Swiss duel event and a Swiss
classic-4 event. Opening twice is harmless (one event per schedule, start, queue and kind:
a unique constraint)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db import IntegrityError, transaction
from django.utils.translation import gettext as _

from audit.clock import db_now

from . import services
from .models import Kind, Tournament


@dataclass(frozen=True)
class Slot:
    schedule: str  # hourly / daily
    kind: str
    queue: str
    minutes: int | None  # None: a Swiss round's length for the queue (`round_minutes`)
    rounds: int = 0


HOURLY = (
    Slot("hourly", Kind.ARENA, "duel", 30),
    Slot("hourly", Kind.ARENA, "classic-2", 30),
    Slot("hourly", Kind.ARENA, "classic-4", 30),
)
DAILY = (
    Slot("daily", Kind.SWISS, "duel", None, rounds=5),
    Slot("daily", Kind.SWISS, "classic-4", None, rounds=4),
)
DAILY_HOUR = 18
AHEAD = timedelta(hours=6)


def name_of(slot: Slot) -> str:
    queue = {"duel": _("Duel"), "classic-2": _("Classic for 2"), "classic-4": _("Classic for 4")}[
        slot.queue
    ]
    if slot.schedule == "hourly":
        return _("Hourly %(queue)s arena") % {"queue": queue}
    return _("Daily %(queue)s Swiss") % {"queue": queue}


def starts(now: datetime, ahead: timedelta = AHEAD) -> list[tuple[Slot, datetime]]:
    """Every slot that starts after `now` and within `ahead`."""
    out: list[tuple[Slot, datetime]] = []
    hour = now.replace(minute=0, second=0, microsecond=0) + timedelta(hours=1)
    while hour <= now + ahead:
        out.extend((slot, hour) for slot in HOURLY)
        if hour.hour == DAILY_HOUR:
            out.extend((slot, hour) for slot in DAILY)
        hour += timedelta(hours=1)
    return out


def make(now: datetime | None = None) -> list[Tournament]:
    """Open the events of the slots ahead that are not open yet."""
    now = now or db_now()
    made = []
    for slot, at in starts(now):
        exists = Tournament.objects.filter(
            schedule=slot.schedule, starts_at=at, queue=slot.queue, kind=slot.kind
        ).exists()
        if exists:
            continue
        try:
            with transaction.atomic():
                made.append(
                    services.create(
                        name=name_of(slot),
                        kind=slot.kind,
                        queue=slot.queue,
                        starts_at=at,
                        minutes=slot.minutes,
                        rounds=slot.rounds,
                        schedule=slot.schedule,
                    )
                )
        except IntegrityError:
            continue  # another beat opened it at the same moment
    return made
