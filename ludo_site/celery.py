"""The Celery app: configured from Django settings (``CELERY_*``), tasks found in each app.

Beat sweeps the match clocks every second (`games.tasks.sweep_clocks`): turn deadlines, bot
turns, lone-move auto-moves and disconnect grace. A sweep that is not picked up within a few
seconds expires instead of piling up behind a busy worker: the next one does the same work.
Every hour it logs the audit chain's head (`audit.log_head`).
"""

import os

from celery import Celery
from celery.signals import worker_init

from ops import celery_signals

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ludo_site.settings")

app = Celery("ludo_site")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()

# Tasks counted, the worker and beat marked as seen for /readyz (ops.celery_signals).
celery_signals.connect()

# LUDO_SWEEP_EVERY shortens the tick for tests that run the real stack (bots step and
# deadlines fire at a tick), as LUDO_TIME_SCALE shortens the durations; production keeps 1 s.
SWEEP_EVERY_SECONDS = float(os.environ.get("LUDO_SWEEP_EVERY") or 1.0)

app.conf.beat_schedule = {
    "sweep-match-clocks": {
        "task": "games.sweep_clocks",
        "schedule": SWEEP_EVERY_SECONDS,
        "options": {"expires": 5 * SWEEP_EVERY_SECONDS},
    },
    "sweep-quick-match-queues": {
        "task": "ranked.sweep_queues",
        "schedule": SWEEP_EVERY_SECONDS,
        "options": {"expires": 5 * SWEEP_EVERY_SECONDS},
    },
    # Tournaments: start, pair, next round, finish (every second, or the shorter tick); and
    # the site's own hourly and daily events, opened six hours ahead (every ten minutes;
    # opening twice is harmless).
    "tick-tournaments": {
        "task": "tournaments.tick",
        "schedule": max(SWEEP_EVERY_SECONDS, 1.0),
        "options": {"expires": 5.0},
    },
    "schedule-tournaments": {"task": "tournaments.schedule", "schedule": 600.0},
    # Issue 31: the report of every match that finished since (games.services.analysis).
    "analyse-finished-matches": {
        "task": "games.analyse_finished",
        "schedule": 5 * SWEEP_EVERY_SECONDS,
        "options": {"expires": 30 * SWEEP_EVERY_SECONDS},
    },
    # The audit chain's head into the logs, kept apart from the database: an anchor that
    # shows later whether the newest entries were cut off (`verify_audit --anchor`).
    "log-audit-anchor": {"task": "audit.log_head", "schedule": 3600.0},
}


@worker_init.connect
def _small_database_pool(**_: object) -> None:
    """A worker process runs one task at a time: its pool keeps one connection and never
    holds more than `env.WORKER_POOL_MAX` (set before the pool opens, and before prefork
    children are forked, so each child gets the same)."""
    # Here, not at the top: ludo_site/__init__ imports this module before the settings load.
    from django.conf import settings

    from . import env

    env.size_pool_for_worker(settings.DATABASES["default"])
