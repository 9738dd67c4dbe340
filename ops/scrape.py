"""What ``/metrics`` reads when it is scraped: every process's values (prometheus-client's
multi-process files, or this process's registry), and what is counted from the database and
Redis at that moment: live and waiting rooms, the clock sweep's due deadlines and its lag,
the quick-match queues and their longest waits, when the Celery worker and beat were last
seen. Also the database pool's sampler, which each server and worker process runs."""

from __future__ import annotations

import contextlib
import logging
import os
import re
import threading
import time
from collections.abc import Iterator
from pathlib import Path

from django.conf import settings
from django.db.models import Count, Min
from django.utils import timezone
from prometheus_client import REGISTRY, CollectorRegistry, generate_latest
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.multiprocess import MultiProcessCollector, mark_process_dead

from ops import health, metrics

log = logging.getLogger("ludo.ops")

POOL_SAMPLE_SECONDS = 2.0
_LIVE_FILE = re.compile(r"^gauge_live\w*_(\d+)\.db$")


def multiprocess_dir() -> str:
    return os.environ.get("PROMETHEUS_MULTIPROC_DIR", "")


def forget_dead_processes(folder: str) -> None:
    """A process killed (uvicorn starts another) leaves its gauges' file: its open sockets
    would count on. Those of processes no longer running are dropped (this host's pids: the
    directory is one host's)."""
    for entry in os.listdir(folder):
        found = _LIVE_FILE.match(entry)
        if not found:
            continue
        pid = int(found.group(1))
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            mark_process_dead(pid, folder)
        except PermissionError:
            pass  # alive, another user's


class SiteCollector:
    """The figures read from the database and the cache at scrape time."""

    def collect(self) -> Iterator[Metric]:
        from games.models import Match, Status
        from ranked.models import Entry

        now = timezone.now()
        rooms = GaugeMetricFamily(
            "ludo_rooms", "Rooms by status (live: being played)", labels=["status"]
        )
        counts = dict(
            Match.objects.filter(status__in=(Status.WAITING, Status.ACTIVE))
            .values_list("status")
            .annotate(n=Count("id"))
        )
        rooms.add_metric(["live"], counts.get(Status.ACTIVE, 0))
        rooms.add_metric(["waiting"], counts.get(Status.WAITING, 0))
        yield rooms

        due = Match.objects.filter(status=Status.ACTIVE, turn_deadline__lte=now).aggregate(
            n=Count("id"), oldest=Min("turn_deadline")
        )
        yield GaugeMetricFamily(
            "ludo_clock_due_deadlines",
            "Live rooms whose turn deadline has passed and that the sweep has not played yet",
            value=due["n"],
        )
        oldest = due["oldest"]
        yield GaugeMetricFamily(
            "ludo_clock_lag_seconds",
            "How long the oldest due deadline has waited for the sweep (0 when none is due)",
            value=(now - oldest).total_seconds() if oldest else 0.0,
        )

        length = GaugeMetricFamily(
            "ludo_queue_waiting",
            "Players waiting in a quick-match queue",
            labels=["queue", "ranked"],
        )
        wait = GaugeMetricFamily(
            "ludo_queue_longest_wait_seconds",
            "How long the longest-waiting player of a queue has waited",
            labels=["queue", "ranked"],
        )
        rows = (
            Entry.objects.filter(state=Entry.State.WAITING)
            .values("queue", "ranked")
            .annotate(n=Count("id"), oldest=Min("joined_at"))
        )
        for row in rows:
            labels = [row["queue"], "true" if row["ranked"] else "false"]
            length.add_metric(labels, row["n"])
            wait.add_metric(labels, (now - row["oldest"]).total_seconds())
        yield length
        yield wait

        if settings.REDIS_URL:
            seen = GaugeMetricFamily(
                "ludo_celery_seen_seconds",
                "Seconds since the Celery worker ran a task / beat sent one",
                labels=["process"],
            )
            from django.core.cache import cache

            keys = (("worker", health.WORKER_SEEN_KEY), ("beat", health.BEAT_SEEN_KEY))
            with contextlib.suppress(Exception):  # Redis down: readyz says so
                for name, key in keys:
                    at = cache.get(key)
                    if at is not None:
                        seen.add_metric([name], max(0.0, time.time() - float(at)))
            yield seen


def exposition() -> bytes:
    """The text ``/metrics`` answers."""
    folder = multiprocess_dir()
    if folder:
        forget_dead_processes(folder)
        registry = CollectorRegistry()
        MultiProcessCollector(registry, path=folder)
        processes = generate_latest(registry)
    else:
        processes = generate_latest(REGISTRY)
    site = CollectorRegistry()
    site.register(SiteCollector())  # type: ignore[arg-type]
    return processes + generate_latest(site)


# ---------------------------------------------------------------------- the pool's sampler

_sampler: threading.Thread | None = None
_sampler_lock = threading.Lock()


def _pool() -> object | None:
    """This process's psycopg pool, if it has opened one (never opens it)."""
    try:
        from django.db.backends.postgresql.base import DatabaseWrapper
    except ImportError:  # pragma: no cover - psycopg is a requirement
        return None
    return DatabaseWrapper._connection_pools.get("default")


def sample_pool(last: dict[str, int]) -> None:
    pool = _pool()
    if pool is None:
        return
    stats = pool.get_stats()  # type: ignore[attr-defined]
    size, idle = stats.get("pool_size", 0), stats.get("pool_available", 0)
    waiting = stats.get("requests_waiting", 0)
    metrics.pool_sampled(in_use=max(size - idle, 0), idle=idle, waiting=waiting)
    queued, wait_ms = stats.get("requests_queued", 0), stats.get("requests_wait_ms", 0)
    metrics.pool_waited(queued - last.get("queued", 0), (wait_ms - last.get("wait_ms", 0)) / 1000)
    last.update(queued=queued, wait_ms=wait_ms)


def _sample_forever() -> None:
    last: dict[str, int] = {}
    while True:
        try:
            sample_pool(last)
        except Exception:  # noqa: BLE001 - a metric is never worth the process
            log.debug("pool sample failed", exc_info=True)
        time.sleep(POOL_SAMPLE_SECONDS)


def start_pool_sampler() -> None:
    """Sample this process's pool every `POOL_SAMPLE_SECONDS` (once per process)."""
    global _sampler
    with _sampler_lock:
        if _sampler is not None and _sampler.is_alive():
            return
        _sampler = threading.Thread(target=_sample_forever, name="ludo-pool-metrics", daemon=True)
        _sampler.start()


def clean_start(folder: str | Path) -> None:
    """Empty the metrics directory (before the processes start, as the README says)."""
    path = Path(folder)
    path.mkdir(parents=True, exist_ok=True)
    for entry in path.glob("*.db"):
        entry.unlink()
