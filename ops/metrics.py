"""The site's Prometheus metrics, defined once, with one small function per thing counted.

Every process (each uvicorn worker, each Celery worker child) writes its own values; with
``PROMETHEUS_MULTIPROC_DIR`` set (before the process starts: prometheus-client reads it at
import) they are files in that directory, which ``/metrics`` adds up (`ops.scrape`). Without
it (development, the tests) they are this process's alone.

Low in the layers (`.importlinter`, "ops-low"): the services and the sockets call these; this
module imports nothing of the site. What is read at scrape time from the database and Redis
(live rooms, due deadlines, queues, the pool) is in `ops.scrape`.
"""

from __future__ import annotations

import os

# The folder must exist before the first metric is made (each writes a file there at once).
if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
    os.makedirs(os.environ["PROMETHEUS_MULTIPROC_DIR"], exist_ok=True)

from prometheus_client import Counter, Gauge, Histogram  # noqa: E402

# The time from a client's action to the update leaving the server: most are milliseconds.
LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)

HTTP_RESPONSES = Counter("ludo_http_responses", "HTTP responses sent, by status code", ["code"])
SOCKETS_OPEN = Gauge(
    "ludo_sockets_open",
    "WebSockets open now (match rooms and the lobby), every server process together",
    multiprocess_mode="livesum",
)
SOCKETS_OPENED = Counter("ludo_sockets_opened", "WebSockets accepted", ["route"])
FRAMES_IN = Counter("ludo_socket_frames", "Frames received from clients, by type", ["t"])
ERROR_FRAMES = Counter("ludo_error_frames", "Error frames sent to clients, by code", ["code"])
ACTIONS = Counter(
    "ludo_actions", "Player actions handed to the services (socket and API), by kind", ["kind"]
)
UPDATE_LATENCY = Histogram(
    "ludo_update_latency_seconds",
    "From a client's action frame to the next update sent on that socket",
    buckets=LATENCY_BUCKETS,
)
BROADCASTS_FAILED = Counter(
    "ludo_broadcasts_failed", "Match updates the channel layer could not send (owed a resync)"
)
BROADCASTS_REPAIRED = Counter(
    "ludo_broadcasts_repaired", "Owed resyncs sent once the channel layer was back"
)
DB_POOL = Gauge(
    "ludo_db_pool_connections",
    "Database pool connections, by state (in_use, idle), every process together",
    ["state"],
    multiprocess_mode="livesum",
)
DB_POOL_WAITING = Gauge(
    "ludo_db_pool_waiting",
    "Requests waiting for a pool connection now, every process together",
    multiprocess_mode="livesum",
)
DB_POOL_WAITS = Counter(
    "ludo_db_pool_waits", "Requests that had to wait for a pool connection (none was free)"
)
DB_POOL_WAIT_SECONDS = Counter(
    "ludo_db_pool_wait_seconds", "Time requests spent waiting for a pool connection"
)
TASKS = Counter("ludo_celery_tasks", "Celery tasks run, by task and outcome", ["task", "state"])
TASK_SECONDS = Histogram(
    "ludo_celery_task_seconds",
    "Time a Celery task ran, by task",
    ["task"],
    buckets=LATENCY_BUCKETS,
)


def http_response(code: int) -> None:
    HTTP_RESPONSES.labels(code=str(code)).inc()


def socket_opened(route: str) -> None:
    SOCKETS_OPEN.inc()
    SOCKETS_OPENED.labels(route=route).inc()


def socket_closed() -> None:
    SOCKETS_OPEN.dec()


def frame_received(t: str) -> None:
    FRAMES_IN.labels(t=t).inc()


def error_frame(code: str) -> None:
    ERROR_FRAMES.labels(code=code).inc()


def action(kind: str) -> None:
    """A player's action (roll, move, undo, resign, react) handed to the services."""
    ACTIONS.labels(kind=kind).inc()


def update_sent(seconds: float) -> None:
    UPDATE_LATENCY.observe(seconds)


def broadcast_failed() -> None:
    BROADCASTS_FAILED.inc()


def broadcast_repaired() -> None:
    BROADCASTS_REPAIRED.inc()


def pool_sampled(*, in_use: int, idle: int, waiting: int) -> None:
    DB_POOL.labels(state="in_use").set(in_use)
    DB_POOL.labels(state="idle").set(idle)
    DB_POOL_WAITING.set(waiting)


def pool_waited(count: int, seconds: float) -> None:
    if count > 0:
        DB_POOL_WAITS.inc(count)
    if seconds > 0:
        DB_POOL_WAIT_SECONDS.inc(seconds)


def task_done(task: str, state: str, seconds: float | None) -> None:
    TASKS.labels(task=task, state=state).inc()
    if seconds is not None:
        TASK_SECONDS.labels(task=task).observe(seconds)
