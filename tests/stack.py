"""The README's production setup, started for a test: a fresh PostgreSQL database (a copy of one
that `migrate` made from the same migrations), `collectstatic` (once per state of the static
files, shared), uvicorn (DEBUG off, as many servers as asked, each with its own workers), a
Celery worker and Celery beat, all on one Redis.

    with Stack(database_url, redis_url, folder, servers=2) as stack:
        stack.urls  # ["http://127.0.0.1:PORT", ...]: one per uvicorn server

Each stack claims a Redis database of its own (1-15, by a key with an expiry) and a
REDIS_PREFIX of its own (Redis pub/sub ignores database numbers): two stacks on one Redis, or
a stack and the tests' own use of it, never share a channel group, Celery's queue, the cache
or the socket counts. Everything it starts runs in its
own process group and is stopped, and its database dropped, when the block ends, pass or fail;
its logs are printed when the block fails.

Run by hand (prints the URLs and waits for Ctrl-C):

    DATABASE_URL=postgres://... REDIS_URL=redis://... .venv/bin/python -m tests.stack
"""

from __future__ import annotations

import os
import random
import secrets
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Mapping
from contextlib import suppress
from pathlib import Path
from types import TracebackType
from typing import Any
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
# Redis databases a stack may claim; 0 is the one REDIS_URL names for everything else.
REDIS_DATABASES = range(1, 16)
CLAIM_KEY = "ludo:test-stack:claim"
CLAIM_SECONDS = 3600


def free_port() -> int:
    """A free port on 127.0.0.1: any the system gives, or with LUDO_TEST_PORTS ("18310-18399")
    one of that range (a shared machine where each user keeps to a range), never one this
    process handed out already."""
    spec = os.environ.get("LUDO_TEST_PORTS", "")
    if not spec:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            return int(s.getsockname()[1])
    first, _, last = spec.partition("-")
    ports = list(range(int(first), int(last or first) + 1))
    random.shuffle(ports)  # xdist workers pick apart
    for port in ports:
        if port in _HANDED_OUT:
            continue
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
        _HANDED_OUT.add(port)
        return port
    raise RuntimeError(f"no free port in LUDO_TEST_PORTS={spec}")


_HANDED_OUT: set[int] = set()


def port_open(port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(0.2)
        return s.connect_ex(("127.0.0.1", port)) == 0


def uvicorn_command(bin_dir: Path, port: int, workers: int, env: Mapping[str, str]) -> list[str]:
    """The README's uvicorn command (its "Production" block, read from the README itself) on
    127.0.0.1:`port` with `workers` processes; a ``"$NAME"`` in it is `env`'s value (empty
    when unset, as a shell gives it)."""
    import shlex

    text = (ROOT / "README.md").read_text()
    start = text.index("\nuvicorn ludo_site.asgi:application") + 1
    lines = []
    for line in text[start:].splitlines():
        lines.append(line.rstrip("\\ "))
        if not line.endswith("\\"):
            break
    argv = shlex.split(" ".join(lines))
    given = {"--host": "127.0.0.1", "--port": str(port), "--workers": str(workers)}
    out = [str(bin_dir / "uvicorn")]
    for before, word in zip(argv, argv[1:], strict=False):
        if before in given:
            out.append(given[before])
        elif word.startswith("$"):
            out.append(env.get(word[1:], ""))
        else:
            out.append(word)
    return out


def is_postgres(url: str) -> bool:
    return url.startswith(("postgres://", "postgresql://"))


def with_path(url: str, path: str) -> str:
    return urlunsplit(urlsplit(url)._replace(path=path))


def admin_sql(database_url: str, sql: str) -> None:
    """Run `sql` on the server's maintenance database (CREATE/DROP DATABASE)."""
    import psycopg

    with psycopg.connect(with_path(database_url, "/postgres"), autocommit=True) as conn:
        conn.execute(sql)  # type: ignore[arg-type]


def code_digest(*patterns: str) -> str:
    """A digest of the repository's files matching `patterns` (paths and contents), with
    Django's version: what a migrated database or a collected static folder depends on."""
    import hashlib

    import django

    digest = hashlib.sha256(django.__version__.encode())
    for pattern in patterns:
        for path in sorted(ROOT.glob(pattern)):
            if ".venv" in path.parts or not path.is_file():
                continue
            digest.update(str(path.relative_to(ROOT)).encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def migrated_template(admin_url: str, env: Mapping[str, str]) -> str:
    """A database migrated by ``manage.py migrate`` from the code as it is, made once and kept
    (named by the digest of the migrations, so a changed migration makes a new one; older ones
    of the same base name are dropped). Made under an advisory lock: test workers side by side
    wait for one another instead of migrating twice."""
    import psycopg

    base = urlsplit(admin_url).path.strip("/") or "ludo"
    name = f"{base}_tmpl_{code_digest('*/migrations/*.py', '*/*/migrations/*.py')}"
    with psycopg.connect(with_path(admin_url, "/postgres"), autocommit=True) as conn:
        conn.execute("SELECT pg_advisory_lock(hashtext(%s))", (f"{base}_tmpl",))
        try:
            rows = conn.execute(
                "SELECT datname FROM pg_database WHERE datname LIKE %s",
                (f"{base}\\_tmpl\\_%",),
            ).fetchall()
            names = {row[0] for row in rows}
            for old in names - {name}:
                conn.execute(f'DROP DATABASE IF EXISTS "{old}" WITH (FORCE)')  # type: ignore[arg-type]
            if name not in names:
                building = f"{name}_building"
                conn.execute(f'DROP DATABASE IF EXISTS "{building}" WITH (FORCE)')  # type: ignore[arg-type]
                conn.execute(f'CREATE DATABASE "{building}"')  # type: ignore[arg-type]
                done = subprocess.run(
                    [sys.executable, "manage.py", "migrate", "--noinput"],
                    cwd=ROOT,
                    env={**env, "DATABASE_URL": with_path(admin_url, f"/{building}")},
                    capture_output=True,
                    text=True,
                    timeout=300,
                    check=False,
                )
                assert done.returncode == 0, f"migrate:\n{done.stdout}{done.stderr}"
                conn.execute(f'ALTER DATABASE "{building}" RENAME TO "{name}"')  # type: ignore[arg-type]
        finally:
            conn.execute("SELECT pg_advisory_unlock(hashtext(%s))", (f"{base}_tmpl",))
    return name


def collected_static(env: Mapping[str, str]) -> Path:
    """``manage.py collectstatic`` into a folder named by the digest of the static files and
    settings, made once (under a file lock) and shared: the stacks only read it."""
    import fcntl

    digest = code_digest("static/**/*", "*/static/**/*", "ludo_site/settings*.py")
    folder = Path(tempfile.gettempdir()) / f"ludo-static-{digest}"
    with open(f"{folder}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (folder / ".done").exists():
            done = subprocess.run(
                [sys.executable, "manage.py", "collectstatic", "--noinput", "--clear"],
                cwd=ROOT,
                env={**env, "STATIC_ROOT": str(folder)},
                capture_output=True,
                text=True,
                timeout=300,
                check=False,
            )
            assert done.returncode == 0, f"collectstatic:\n{done.stdout}{done.stderr}"
            (folder / ".done").touch()
    return folder


class Stack:
    """The production shape of the site, on its own database, Redis database and ports."""

    def __init__(
        self,
        database_url: str,
        redis_url: str,
        folder: Path,
        *,
        servers: int = 1,
        workers: int = 2,
        name: str = "stack",
        setup: str = "",
        env: Mapping[str, str] | None = None,
    ) -> None:
        if not is_postgres(database_url) or not redis_url:
            raise ValueError("a stack needs DATABASE_URL on PostgreSQL and REDIS_URL")
        self.admin_url = database_url
        self.folder = folder
        self.servers = servers
        self.workers = workers
        self.setup = setup
        self.db_name = f"{urlsplit(database_url).path.strip('/') or 'ludo'}_{name}_{os.getpid()}"
        self.redis_base = redis_url
        self.redis_db = -1
        self.ports = [free_port() for _ in range(servers)]
        self.urls = [f"http://127.0.0.1:{p}" for p in self.ports]
        self.printed = ""  # what `setup` printed
        self.procs: list[tuple[str, subprocess.Popen[bytes]]] = []
        self.extra = dict(env or {})
        self.env: dict[str, str] = {}

    # ------------------------------------------------------------------ start and stop

    def __enter__(self) -> Stack:
        try:
            self.start()
        except BaseException:
            self.stop(failed=True)
            raise
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop(failed=kind is not None)

    def start(self) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        self.redis_db = self._claim_redis()
        redis_url = with_path(self.redis_base, f"/{self.redis_db}")
        self.env = {
            **os.environ,
            "DATABASE_URL": with_path(self.admin_url, f"/{self.db_name}"),
            "REDIS_URL": redis_url,
            "REDIS_PREFIX": f"stack{self.redis_db}-{secrets.token_hex(4)}",
            "DEBUG": "0",
            "SECRET_KEY": secrets.token_urlsafe(40),
            "ALLOWED_HOSTS": "127.0.0.1,localhost",
            "STATIC_ROOT": str(self.folder / "static"),
            "LUDO_INPROCESS_CLOCK": "0",
            "PYTHONUNBUFFERED": "1",
            "PYTHONPATH": str(ROOT),
            **self.extra,
        }
        for key in ("PYTEST_XDIST_WORKER", "PYTEST_CURRENT_TEST", "DJANGO_SETTINGS_MODULE"):
            if key not in self.extra:  # a test may name settings of its own
                self.env.pop(key, None)
        admin_sql(self.admin_url, f'DROP DATABASE IF EXISTS "{self.db_name}" WITH (FORCE)')
        # `migrate` and `collectstatic` as the README runs them, once per state of the code:
        # the database is a copy of a migrated template, the static files a collected folder
        # shared by every stack of the run (each would otherwise cost 10-15 s of two cores).
        template = migrated_template(self.admin_url, self.env)
        admin_sql(self.admin_url, f'CREATE DATABASE "{self.db_name}" TEMPLATE "{template}"')
        if "STATIC_ROOT" not in self.extra:
            self.env["STATIC_ROOT"] = str(collected_static(self.env))
        else:
            self.manage("collectstatic", "--noinput")
        if self.setup:
            self.printed = self.manage("shell", "-c", self.setup)
        for i, port in enumerate(self.ports):
            self.spawn(f"uvicorn{i}", *uvicorn_command(BIN, port, self.workers, self.env))
        # Gossip, mingle and heartbeats talk over Redis pub/sub, which every database shares:
        # off, so that stacks side by side do not see each other's workers.
        self.spawn(
            "worker",
            str(BIN / "celery"), "-A", "ludo_site", "worker", "-l", "info",
            "--concurrency", "2", "--without-gossip", "--without-mingle", "--without-heartbeat",
        )  # fmt: skip
        self.spawn(
            "beat",
            str(BIN / "celery"), "-A", "ludo_site", "beat", "-l", "info",
            "-s", str(self.folder / "beat-schedule"),
        )  # fmt: skip
        for i, port in enumerate(self.ports):
            self.wait_for(f"uvicorn{i}", lambda p=port: port_open(p))  # type: ignore[misc]
            # uvicorn listens before its worker processes have imported the site.
            self.wait_for(f"uvicorn{i} workers", lambda i=i: self._workers_up(i))  # type: ignore[misc]
        self.wait_for("the Celery worker", lambda: "ready." in self.log("worker"))
        self.wait_for("Celery beat", lambda: "beat: Starting" in self.log("beat"))

    def _workers_up(self, i: int) -> bool:
        return self.log(f"uvicorn{i}").count("Application startup complete") >= self.workers

    def stop(self, *, failed: bool = False) -> None:
        for _, proc in reversed(self.procs):
            if proc.poll() is None:
                with suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGTERM)
        for _, proc in reversed(self.procs):
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                with suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(timeout=10)
        if failed:
            print(self.tails())
        self.procs = []
        if self.redis_db >= 0:
            client = self._redis(self.redis_db)
            client.flushdb()  # drops the claim too
            client.close()
            self.redis_db = -1
        admin_sql(self.admin_url, f'DROP DATABASE IF EXISTS "{self.db_name}" WITH (FORCE)')

    # ------------------------------------------------------------------ the parts

    def manage(self, *args: str) -> str:
        """``manage.py`` with the stack's environment; its output, or an AssertionError."""
        done = subprocess.run(
            [sys.executable, "manage.py", *args],
            cwd=ROOT,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=180,
            check=False,
        )
        assert done.returncode == 0, f"manage.py {' '.join(args)}:\n{done.stdout}{done.stderr}"
        return done.stdout

    def spawn(self, name: str, *argv: str) -> None:
        log = open(self.folder / f"{name}.log", "wb")  # noqa: SIM115 - the process keeps it
        proc = subprocess.Popen(
            argv,
            cwd=ROOT,
            env=self.env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group: stopped with its children
        )
        log.close()
        self.procs.append((name, proc))

    def log(self, name: str) -> str:
        path = self.folder / f"{name}.log"
        return path.read_text(errors="replace") if path.exists() else ""

    def tails(self, size: int = 3000) -> str:
        return "\n".join(f"--- {name}\n{self.log(name)[-size:]}" for name, _ in self.procs)

    def wait_for(self, what: str, ready: Callable[[], bool], timeout: float = 90) -> None:
        """Until `ready()`; fails at once if a process of the stack has exited."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            for name, proc in self.procs:
                if proc.poll() is not None:
                    raise AssertionError(f"{name} exited early:\n{self.log(name)[-3000:]}")
            if ready():
                return
            time.sleep(0.2)
        raise AssertionError(f"{what} not ready in {timeout} s\n{self.tails()}")

    def _redis(self, db: int) -> Any:
        import redis

        return redis.Redis.from_url(with_path(self.redis_base, f"/{db}"))

    def _claim_redis(self) -> int:
        """The first free Redis database: claimed by a key that expires, in case a run is
        killed before it flushes it."""
        for db in REDIS_DATABASES:
            client = self._redis(db)
            try:
                if client.set(CLAIM_KEY, os.getpid(), nx=True, ex=CLAIM_SECONDS):
                    client.flushdb()
                    client.set(CLAIM_KEY, os.getpid(), ex=CLAIM_SECONDS)
                    return db
            finally:
                client.close()
        raise RuntimeError(f"every Redis database {REDIS_DATABASES} is claimed by a stack")


def main() -> None:
    database, redis_url = os.environ.get("DATABASE_URL", ""), os.environ.get("REDIS_URL", "")
    servers = int(os.environ.get("STACK_SERVERS") or 1)
    with (
        tempfile.TemporaryDirectory(prefix="ludo-stack-") as tmp,
        Stack(database, redis_url, Path(tmp), servers=servers) as stack,
    ):
        print("up:", " ".join(stack.urls), "logs in", tmp, flush=True)
        with suppress(KeyboardInterrupt):
            signal.pause()


if __name__ == "__main__":
    main()
