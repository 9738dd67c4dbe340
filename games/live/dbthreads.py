"""The server process's database threads (issue 14): a service call waits on PostgreSQL for
milliseconds, so database work runs on a pool of threads of its own, not on channels' one
shared thread (which would queue every room of the process behind it)."""

from __future__ import annotations

import contextlib
import functools
import threading
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from channels.db import DatabaseSyncToAsync
from django.conf import settings
from django.db import connections

T = TypeVar("T")

# Database work runs on a pool of threads, not channels' one shared thread: a service call
# waits on PostgreSQL for tens of milliseconds, and one thread would queue every room of the
# process behind it. Changes to one match stay in order: the services lock its row.
_db_threads = ThreadPoolExecutor(
    max_workers=int(settings.LUDO_DB_THREADS), thread_name_prefix="ludo-db"
)


def on_db_thread(func: Callable[..., T]) -> Callable[..., Awaitable[T]]:
    """`func` run on the database threads, its connection closed or kept as Django says."""

    @functools.wraps(func)
    async def run(*args: Any, **kwargs: Any) -> T:
        call = DatabaseSyncToAsync(func, thread_sensitive=False, executor=_db_threads)
        return await call(*args, **kwargs)

    return run


def finish_db_work() -> None:
    """Wait for the database threads' work in hand, close their database connections (kept
    between calls when CONN_MAX_AGE > 0) and start a fresh pool (tests: no connection
    outlives a test)."""
    global _db_threads
    old = _db_threads
    _db_threads = ThreadPoolExecutor(max_workers=old._max_workers, thread_name_prefix="ludo-db")
    # One closing call on every thread: each waits at the barrier until all have started.
    barrier = threading.Barrier(old._max_workers)

    def close_connections() -> None:
        with contextlib.suppress(threading.BrokenBarrierError):
            barrier.wait(timeout=10)
        connections.close_all()

    for _ in range(old._max_workers):
        old.submit(close_connections)
    old.shutdown(wait=True)
