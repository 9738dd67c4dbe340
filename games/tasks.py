"""Celery tasks: each finds due work and hands it to one service call, nothing more."""

from __future__ import annotations

import logging

from celery import shared_task

from games.clocks import sweeps
from games.live import presence
from games.services import analysis

log = logging.getLogger(__name__)
ANALYSE_BATCH = 5  # reports a run of `analyse_finished` makes at most (a few seconds each)


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


@shared_task(name="games.analyse_finished", ignore_result=True)
def analyse_finished() -> int:
    """Store the report of each finished match that has none yet (beat runs this every few
    seconds; `manage.py analyse_match CODE` runs the same service); returns how many."""
    done = 0
    for match_id in analysis.pending(limit=ANALYSE_BATCH):
        try:
            analysis.analyse_match(match_id)
            done += 1
        except Exception:  # noqa: BLE001 - one bad match must not hold up the others
            log.exception("analysing match %s failed", match_id)
    return done
