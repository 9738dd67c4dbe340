"""The README's production server carries plain HTTP traffic without running out of database
connections (issue 12: every request kept one; after ~100 PostgreSQL refused everyone).

Starts uvicorn exactly as the README's "Production" section gives it (two worker processes,
``DEBUG=0``, the database settings left at their defaults) on a database of its own and a
Redis server of its own, sends a few hundred page and API requests from 16 threads while
counting the database's connections in ``pg_stat_activity``, and holds both to the README:
no answer is a 500, and the connections never pass what it says two processes hold at most.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest

from ludo_site import env as site_env
from tests.servers import free_port, own_redis
from tests.stack import uvicorn_command

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
WORKERS = 2
REQUESTS = 400


def _admin(database_url: str) -> str:
    return urlunsplit(urlsplit(database_url)._replace(path="/postgres"))


@contextmanager
def production_server(workers: int = WORKERS) -> Iterator[tuple[str, str, Path, str]]:
    """The README's uvicorn on a fresh database: (base URL, database name, log, a room code)."""
    database = os.environ.get("DATABASE_URL", "")
    if not database.startswith(("postgres://", "postgresql://")):
        pytest.skip("needs DATABASE_URL on PostgreSQL (bash .ci/run sets it)")
    import psycopg

    name = f"{urlsplit(database).path.lstrip('/')}_http_{os.getpid()}"
    db_url = urlunsplit(urlsplit(database)._replace(path=f"/{name}"))
    with own_redis() as redis_url, tempfile.TemporaryDirectory(prefix="ludo-prod-") as tmp:
        # The README's production variables; every database setting left at its default.
        environ = {k: v for k, v in os.environ.items() if not k.startswith(("DB_", "LUDO_"))}
        environ.update(
            DATABASE_URL=db_url,
            REDIS_URL=redis_url,
            DEBUG="0",
            SECRET_KEY="production-test-" + "x" * 40,
            ALLOWED_HOSTS="127.0.0.1",
            PYTHONUNBUFFERED="1",
        )
        with psycopg.connect(_admin(database), autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}"')  # type: ignore[arg-type]
            admin.execute(f'CREATE DATABASE "{name}"')  # type: ignore[arg-type]
        log_path = Path(tmp) / "uvicorn.log"
        proc: subprocess.Popen[bytes] | None = None
        try:
            manage = [sys.executable, "manage.py"]
            for args in (
                ["migrate", "--noinput"],
                [
                    "shell",
                    "-c",
                    "from accounts.models import User\n"
                    "from games import services\n"
                    "ann = User.objects.create_user('ann', password='prod-password-1')\n"
                    "m = services.match_create(ruleset='classic', players=2, mode='friendly',"
                    " host=ann)\n"
                    "print('CODE', m.code)",
                ],
            ):
                done = subprocess.run(
                    manage + args, cwd=ROOT, env=environ, capture_output=True, text=True
                )
                assert done.returncode == 0, done.stdout + done.stderr
            code = done.stdout.split("CODE", 1)[1].strip()
            port = free_port()
            with open(log_path, "wb") as log:
                proc = subprocess.Popen(
                    uvicorn_command(BIN, port, workers, environ),
                    cwd=ROOT,
                    env=environ,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    start_new_session=True,
                )
            base = f"http://127.0.0.1:{port}"
            end = time.monotonic() + 60
            while not _answers(base):
                assert proc.poll() is None, log_path.read_text()
                assert time.monotonic() < end, "uvicorn did not start\n" + log_path.read_text()
                time.sleep(0.2)
            yield base, name, log_path, code
        finally:
            if proc is not None and proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)
                try:
                    proc.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    os.killpg(proc.pid, signal.SIGKILL)
                    proc.wait(timeout=10)
            with psycopg.connect(_admin(database), autocommit=True) as admin:
                admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')  # type: ignore[arg-type]


def _answers(base: str) -> bool:
    try:
        with urllib.request.urlopen(base + "/", timeout=2) as response:
            return bool(response.status == 200)
    except (OSError, urllib.error.URLError):
        return False


class ConnectionCounter:
    """Counts the connections to one database every 20 ms, on a connection to another."""

    def __init__(self, database_url: str, name: str) -> None:
        self.admin = _admin(database_url)
        self.name = name
        self.most = 0
        self.samples: list[int] = []
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)

    def run(self) -> None:
        import psycopg

        with psycopg.connect(self.admin, autocommit=True) as conn:
            while not self.stopped.is_set():
                row = conn.execute(
                    "SELECT count(*) FROM pg_stat_activity WHERE datname = %s", (self.name,)
                ).fetchone()
                count = int(row[0]) if row else 0
                self.samples.append(count)
                self.most = max(self.most, count)
                time.sleep(0.02)

    def __enter__(self) -> ConnectionCounter:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stopped.set()
        self.thread.join(timeout=5)


def _get(base: str, path: str) -> int:
    request = urllib.request.Request(base + path, headers={"Accept": "text/html,application/json"})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            response.read()
            return int(response.status)
    except urllib.error.HTTPError as e:
        e.read()
        return int(e.code)


def test_production_server_holds_connections_under_the_readme_bound() -> None:
    with production_server() as (base, name, log_path, code):
        paths = [
            "/",
            "/leaderboards/",
            "/rules/",
            "/leaderboards/classic-2/",
            f"/r/{code}/replay/",
            "/join/",
            "/accounts/login/",
            "/players/ann/",
            f"/r/{code}/",
            "/api/session",
            f"/api/matches/{code}",
            f"/api/matches/{code}/replay",
            "/api/matches/NOSUCH",  # a 404, also read from the database
        ]
        counter = ConnectionCounter(os.environ["DATABASE_URL"], name)
        started = time.monotonic()
        with counter, ThreadPoolExecutor(16) as pool:
            statuses = list(
                pool.map(
                    lambda i: (paths[i % len(paths)], _get(base, paths[i % len(paths)])),
                    range(REQUESTS),
                )
            )
        took = time.monotonic() - started
        by_status = Counter(status for _, status in statuses)
        bound = WORKERS * site_env.DB_POOL_MAX
        print(
            f"\n{REQUESTS} requests in {took:.1f} s ({REQUESTS / took:.0f}/s), statuses "
            f"{dict(sorted(by_status.items()))}; database connections: at most {counter.most} "
            f"(bound {bound} = {WORKERS} processes x DB_POOL_MAX {site_env.DB_POOL_MAX}), "
            f"{len(counter.samples)} samples"
        )
        failed = [(path, status) for path, status in statuses if status >= 500]
        assert not failed, f"{failed[:10]}\n{log_path.read_text()[-3000:]}"
        assert by_status[200] >= REQUESTS - REQUESTS // len(paths), by_status  # all but NOSUCH
        assert counter.samples and counter.most > 0, "the counter saw no connection"
        assert counter.most <= bound, f"{counter.most} connections, README says {bound} at most"
        # The server answers still: nothing was exhausted on the way.
        assert json.loads(urllib.request.urlopen(base + "/api/session", timeout=10).read())
