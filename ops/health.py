"""Readiness: whether this process can serve (`/readyz`). Each check runs in a thread of its
own, all at once, and what has not answered within `READY_TIMEOUT` counts as down, so the
answer comes within a second even while a dependency hangs or is stopped.

Checks: the database (a fresh connection, not the pool: with PostgreSQL stopped the pool
would wait its 10 s for a connection), the migrations applied (once per process), Redis, the
channel layer, and the Celery worker and beat seen within `CELERY_SEEN_SECONDS` (they write
the time into the cache: `ops.celery_signals`). Without Redis (the embedded default) there is
no Redis, Celery or Redis channel layer to check: those say ``off``.
"""

from __future__ import annotations

import concurrent.futures
import logging
import time
from collections.abc import Callable

from django.conf import settings

log = logging.getLogger("ludo.ops")

READY_TIMEOUT = 0.8
CELERY_SEEN_SECONDS = 30.0
WORKER_SEEN_KEY = "ops.celery.worker_seen"
BEAT_SEEN_KEY = "ops.celery.beat_seen"

_pool = concurrent.futures.ThreadPoolExecutor(max_workers=16, thread_name_prefix="ludo-ready")
_migrated = False


class Down(Exception):
    """A check's reason for saying down (short, nothing secret)."""


def _database() -> str:
    from django.db import connections

    conn = connections["default"]
    if conn.vendor != "postgresql":
        with conn.cursor() as cursor:
            cursor.execute("SELECT 1")
        conn.close()
        return "ok"
    import psycopg

    params = conn.get_connection_params()
    for key in ("pool", "cursor_factory", "context", "prepare_threshold", "server_side_binding"):
        params.pop(key, None)
    params["connect_timeout"] = 2
    try:
        with psycopg.connect(**params, autocommit=True) as raw:
            raw.execute("SELECT 1")
    except psycopg.Error as e:
        raise Down(type(e).__name__) from e
    return "ok"


def _migrations() -> str:
    global _migrated
    if _migrated:
        return "ok"
    _database()  # first, so a database that is down is not waited for through the pool
    from django.db import connections
    from django.db.migrations.executor import MigrationExecutor

    conn = connections["default"]
    try:
        executor = MigrationExecutor(conn)
        plan = executor.migration_plan(executor.loader.graph.leaf_nodes())
    finally:
        conn.close()
    if plan:
        raise Down(f"{len(plan)} not applied")
    _migrated = True
    return "ok"


def _redis() -> str:
    if not settings.REDIS_URL:
        return "off"
    import redis

    client = redis.Redis.from_url(
        settings.REDIS_URL, socket_timeout=0.5, socket_connect_timeout=0.5
    )
    try:
        client.ping()
    except redis.RedisError as e:
        raise Down(type(e).__name__) from e
    finally:
        client.close()
    return "ok"


def _channel_layer() -> str:
    from asgiref.sync import async_to_sync
    from channels.layers import get_channel_layer

    layer = get_channel_layer()
    if layer is None:
        raise Down("not configured")
    if not settings.REDIS_URL:
        return "ok"
    try:
        async_to_sync(layer.group_send)("ops.ready", {"type": "ops.ready"})
    except Exception as e:  # noqa: BLE001 - any failure of the layer is it being down
        raise Down(type(e).__name__) from e
    return "ok"


def _seen(key: str) -> str:
    if not settings.REDIS_URL:
        return "off"
    from django.core.cache import cache

    try:
        at = cache.get(key)
    except Exception as e:  # noqa: BLE001 - the cache is Redis: down with it
        raise Down(type(e).__name__) from e
    if at is None:
        raise Down("never seen")
    ago = time.time() - float(at)
    if ago > CELERY_SEEN_SECONDS:
        raise Down(f"last seen {ago:.0f} s ago")
    return "ok"


CHECKS: dict[str, Callable[[], str]] = {
    "database": _database,
    "migrations": _migrations,
    "redis": _redis,
    "channel_layer": _channel_layer,
    "celery_worker": lambda: _seen(WORKER_SEEN_KEY),
    "celery_beat": lambda: _seen(BEAT_SEEN_KEY),
}


def _run(check: Callable[[], str]) -> str:
    try:
        return check()
    finally:
        from django.db import connections

        connections.close_all()  # this thread's: back to the pool


def readiness(timeout: float = READY_TIMEOUT) -> tuple[bool, dict[str, str]]:
    """(ready, {check: "ok" | "off" | "down: reason"}) within about `timeout` seconds."""
    futures = {name: _pool.submit(_run, check) for name, check in CHECKS.items()}
    concurrent.futures.wait(futures.values(), timeout=timeout)
    results: dict[str, str] = {}
    for name, future in futures.items():
        if not future.done():
            results[name] = "down: no answer in time"
            continue
        error = future.exception()
        if error is None:
            results[name] = future.result()
        elif isinstance(error, Down):
            results[name] = f"down: {error}"
        else:
            results[name] = f"down: {type(error).__name__}"
    ready = all(not value.startswith("down") for value in results.values())
    if not ready:
        down = ", ".join(f"{k} ({v[6:]})" for k, v in results.items() if v.startswith("down"))
        log.warning("not ready: %s", down)
    return ready, results
