"""Celery as the operator sees it (connected in `ludo_site.celery`): each task run counted by
name and outcome with its duration (`ops.metrics`, written to the same multi-process
directory as the servers'), and the times the worker last ran a task and beat last sent one,
in the cache, which `/readyz` and `/metrics` read (`ops.health`)."""

from __future__ import annotations

import logging
import time
from typing import Any

from ops import metrics

log = logging.getLogger("ludo.ops")

_started: dict[str, float] = {}
# Beat sends these every second (ludo_site.celery.app.conf.beat_schedule).
BEAT_TASKS = frozenset({"games.sweep_clocks", "ranked.sweep_queues"})
_last_write: dict[str, float] = {}


def _mark(key: str) -> None:
    """The time into the cache, at most once a second per process."""
    now = time.time()
    if now - _last_write.get(key, 0.0) < 1.0:
        return
    _last_write[key] = now
    from django.core.cache import cache

    try:
        cache.set(key, now, timeout=3600)
    except Exception:  # noqa: BLE001 - Redis down: readyz will say the worker is not seen
        log.debug("could not mark %s", key, exc_info=True)


def task_prerun(task_id: str | None = None, **_: Any) -> None:
    if task_id:
        _started[task_id] = time.perf_counter()


def task_postrun(
    task_id: str | None = None, task: Any = None, state: str | None = None, **_: Any
) -> None:
    from ops import health

    began = _started.pop(task_id, None) if task_id else None
    seconds = time.perf_counter() - began if began is not None else None
    metrics.task_done(getattr(task, "name", "unknown"), (state or "unknown").lower(), seconds)
    _mark(health.WORKER_SEEN_KEY)


def after_task_publish(sender: str | None = None, **_: Any) -> None:
    from ops import health

    if sender in BEAT_TASKS:
        _mark(health.BEAT_SEEN_KEY)


def worker_process_init(**_: Any) -> None:
    from ops import scrape

    scrape.start_pool_sampler()


def connect() -> None:
    from celery import signals

    signals.task_prerun.connect(task_prerun, weak=False)
    signals.task_postrun.connect(task_postrun, weak=False)
    signals.after_task_publish.connect(after_task_publish, weak=False)
    signals.worker_process_init.connect(worker_process_init, weak=False)
