"""Celery beat's schedule, run inside the server process on the embedded default (no Redis,
so no Celery worker and no beat): the whole site runs with `make run`.

The schedule is beat's own (`ludo_site.celery`, read through Celery's current app), so a job
added there runs here too. The in-process clock (`sweeps.InProcessClock`) already does, at
each of its ticks and deadlines, what beat's every-second entries do (`CLOCK_TASKS`); this
thread runs every other entry: once at the start, then at the entry's interval. Its tasks run
here as a worker would run them, in a thread of their own, so a slow one (a long game's
report) never holds up a bot's move or a turn's deadline.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Callable, Mapping
from datetime import timedelta
from typing import Any

from celery import current_app
from django.db import close_old_connections, connections

log = logging.getLogger(__name__)

# Beat's entries whose work the in-process clock does at each tick: the match clocks' sweep,
# the quick-match queues, and the tournaments' tick (registered with `sweeps.also_sweep`).
CLOCK_TASKS = frozenset({"games.sweep_clocks", "ranked.sweep_queues", "tournaments.tick"})


def beat_schedule() -> dict[str, dict[str, Any]]:
    """Celery beat's schedule, as the site's Celery app has it."""
    return dict(current_app.conf.beat_schedule or {})


def interval(entry: Mapping[str, Any]) -> float:
    """Seconds between two runs of a beat entry (a number, a timedelta or a Celery
    ``schedule``); ValueError for one this clock cannot follow (a crontab)."""
    every = entry["schedule"]
    if isinstance(every, int | float):
        return float(every)
    if isinstance(every, timedelta):
        return every.total_seconds()
    run_every = getattr(every, "run_every", None)
    if isinstance(run_every, timedelta):
        return run_every.total_seconds()
    raise ValueError(f"the in-process beat runs interval schedules only, not {every!r}")


def task(name: str) -> Callable[[], Any]:
    """The Celery task `name`, run in this thread when called."""
    current_app.loader.import_default_modules()  # each app's tasks module, once
    found: Callable[[], Any] = current_app.tasks[name]
    return found


class InProcessBeat:
    """A daemon thread that runs beat's entries the clock does not (see the module)."""

    def __init__(self, schedule: Mapping[str, Mapping[str, Any]] | None = None) -> None:
        entries = beat_schedule() if schedule is None else schedule
        # task name -> seconds between runs; every task beat runs and the clock does not.
        self.every = {
            str(entry["task"]): interval(entry)
            for entry in entries.values()
            if entry["task"] not in CLOCK_TASKS
        }
        self.due = dict.fromkeys(self.every, 0.0)  # monotonic time of each task's next run
        self.asked: set[str] = set()
        self.lock = threading.Lock()
        self.wake = threading.Event()
        self.stopped = threading.Event()
        self.runs: dict[str, int] = dict.fromkeys(self.every, 0)
        self.thread = threading.Thread(target=self.run, name="ludo-beat", daemon=True)

    def start(self) -> InProcessBeat:
        self.thread.start()
        return self

    def stop(self, timeout: float = 10.0) -> None:
        self.stopped.set()
        self.wake.set()
        self.thread.join(timeout)

    def run_soon(self, name: str) -> None:
        """Run task `name` now (it runs again at its interval after)."""
        with self.lock:
            self.asked.add(name)
        self.wake.set()

    def run(self) -> None:
        while not self.stopped.is_set():
            self.wake.clear()  # before looking: a task asked for meanwhile wakes the wait
            now = time.monotonic()
            with self.lock:
                due = sorted({name for name, at in self.due.items() if at <= now} | self.asked)
                self.asked.clear()
            for name in due:
                if self.stopped.is_set():
                    break
                self._run(name)
                if name in self.every:
                    self.due[name] = time.monotonic() + self.every[name]
            soonest = min(self.due.values(), default=None)
            self.wake.wait(None if soonest is None else max(0.05, soonest - time.monotonic()))
        connections.close_all()  # this thread's own

    def _run(self, name: str) -> None:
        close_old_connections()
        try:
            task(name)()
            self.runs[name] = self.runs.get(name, 0) + 1
        except Exception:  # noqa: BLE001 - one failed job must not stop the others
            log.exception("in-process beat: %s failed", name)
            with contextlib.suppress(Exception):
                connections.close_all()  # the connection may be the cause
        finally:
            close_old_connections()


_running: InProcessBeat | None = None
_lock = threading.Lock()


def start_in_process() -> InProcessBeat:
    """Start the in-process beat once per process (later calls return the running one)."""
    global _running
    with _lock:
        if _running is None:
            _running = InProcessBeat().start()
            log.info("beat: in-process, %s", ", ".join(sorted(_running.every)))
        return _running


def run_soon(name: str) -> bool:
    """Have this process's in-process beat run task `name` now; False when none runs here."""
    beat = _running
    if beat is None:
        return False
    beat.run_soon(name)
    return True
