"""The time helpers below the services: a rules duration on this site's clock (``scaled``),
whether this process sweeps the clocks itself, and the wake-up a change gives the in-process
clock when it sets a deadline (``poke``). The sweeps themselves are `games.clocks.sweeps`.
"""

from __future__ import annotations

import threading
from datetime import timedelta

from django.conf import settings


def time_scale() -> float:
    """How much faster than real time the clocks run: 1 in production, e.g. 0.05 in tests."""
    return float(settings.LUDO_TIME_SCALE)


def scaled(seconds: float) -> timedelta:
    """A rules duration on this site's clock."""
    return timedelta(seconds=seconds * time_scale())


def inprocess_enabled() -> bool:
    """Whether the web process sweeps the clocks itself (``LUDO_INPROCESS_CLOCK``: by default
    exactly when there is no Redis, and so no Celery worker and beat)."""
    chosen = settings.LUDO_INPROCESS_CLOCK
    return not settings.REDIS_URL if chosen is None else bool(chosen)


# The wake-up events of the in-process clocks ticking in this process (`sweeps.InProcessClock`
# adds its own while it runs), so that a change can wake them without importing the sweeps.
_listening: set[threading.Event] = set()


def listen(wake: threading.Event) -> None:
    """An in-process clock started: `poke` wakes it from now on."""
    _listening.add(wake)


def stop_listening(wake: threading.Event) -> None:
    _listening.discard(wake)


def poke() -> None:
    """A change in this process set a deadline: the in-process clock (if it runs here)
    looks again now instead of at its next tick."""
    for wake in list(_listening):
        wake.set()


def running() -> bool:
    """Whether an in-process clock ticks in this process."""
    return bool(_listening)
