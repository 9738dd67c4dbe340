"""Celery tasks of ranked play: the quick-match sweep (beat runs it every second)."""

from __future__ import annotations

from celery import shared_task

from . import matchmaking


@shared_task(name="ranked.sweep_queues", ignore_result=True)
def sweep_queues() -> int:
    """Match whoever can be matched in every queue; returns how many matches were made."""
    return matchmaking.sweep_all()
