"""Celery tasks: each finds due work and hands it to one service call, nothing more."""

from __future__ import annotations

from celery import shared_task

from games.clocks import sweeps


@shared_task(name="games.sweep_clocks", ignore_result=True)
def sweep_clocks() -> int:
    """Act on every due deadline (beat runs this every second); returns how many acted."""
    return sweeps.sweep()
