"""Celery tasks of the tournaments: the tick (beat, every sweep interval) and the schedule
of the site's own hourly and daily events."""

from __future__ import annotations

from celery import shared_task

from . import hooks, schedule


@shared_task(name="tournaments.tick", ignore_result=True)
def tick() -> int:
    """Start, pair, run the rounds and finish the events; returns the games opened."""
    return hooks.tick()


@shared_task(name="tournaments.schedule", ignore_result=True)
def make_schedule() -> int:
    """Open the site's hourly and daily events for the day ahead; returns how many."""
    return len(schedule.make())
