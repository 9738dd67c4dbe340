"""Celery tasks: each finds due work and hands it to one service call, nothing more."""

from __future__ import annotations

import logging

from celery import shared_task

from games.clocks import sweeps
from games.live import presence

log = logging.getLogger(__name__)


@shared_task(name="games.sweep_clocks", ignore_result=True)
def sweep_clocks() -> int:
    """Act on every due deadline (beat runs this every second); returns how many acted.
    First the seats a killed server process left connected (shared socket counts, Redis):
    marked disconnected, so their grace starts (`games.live.presence.sweep_orphans`)."""
    try:
        presence.sweep_orphans(batch=sweeps.BATCH)
    except Exception:  # noqa: BLE001 - Redis down: the turns and the graces go on
        log.exception("the orphaned seats' sweep failed")
    return sweeps.sweep()
