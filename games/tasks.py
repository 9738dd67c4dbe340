"""Celery tasks: each finds due work and hands it to one service call, nothing more."""

from __future__ import annotations

import logging
from typing import Any

from celery import shared_task
from django.conf import settings
from django.db import transaction

from games.clocks import beat, sweeps
from games.live import presence
from games.models import Status
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


ANALYSE = "games.analyse_finished"


def report_at_end(sender: Any, instance: Any, update_fields: Any = None, **kwargs: Any) -> None:
    """A ``post_save`` receiver on `games.models.Match`: when a match finishes, its report is
    asked for after the commit (`analyse_finished`, the task beat sweeps with), so it is ready
    by the time a player opens the replay the result card links; beat's sweep only catches
    what this missed. Cheap for every other save."""
    if instance.status != Status.FINISHED or not settings.LUDO_REPORT_AT_END:
        return
    if update_fields is not None and "finished_at" not in update_fields:
        return  # a later save of a finished match: asked for when it finished
    transaction.on_commit(ask_for_reports)


def ask_for_reports() -> None:
    """Run `analyse_finished` now: in this process's in-process beat (the embedded default),
    else on a Celery worker. Never raises: the match is saved, and beat's sweep follows."""
    if beat.run_soon(ANALYSE):
        return
    if not settings.REDIS_URL:
        return  # no broker a worker listens on: the server's in-process beat sweeps it up
    try:
        analyse_finished.apply_async(retry=False, expires=60)
    except Exception:  # noqa: BLE001 - the broker is away: beat's sweep makes it later
        log.warning("the report of a finished match was not asked for", exc_info=True)
