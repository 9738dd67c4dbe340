"""End to end: daphne, a Celery worker and Celery beat on the real PostgreSQL and Redis, and
two players on real WebSockets.

Everything the test starts (a database of its own, a Redis database, three servers) is torn
down in a ``finally``, pass or fail. The clocks run ten times faster through the environment
(``LUDO_TIME_SCALE=0.1``: a 2 s turn, a 6 s grace), never through the code.
"""

from __future__ import annotations

import asyncio
import http.cookiejar
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import pytest

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]
PYTHON = sys.executable
BIN = Path(PYTHON).parent
SCALE = 0.1
TURN = 20 * SCALE
GRACE = 60 * SCALE
PASSWORD = "e2e-password-1"


def services_or_skip() -> tuple[str, str]:
    database, redis = os.environ.get("DATABASE_URL", ""), os.environ.get("REDIS_URL", "")
    if not database.startswith(("postgres://", "postgresql://")):
        pytest.skip("end-to-end needs DATABASE_URL on PostgreSQL (bash .ci/run sets it)")
    if not redis:
        pytest.skip("end-to-end needs REDIS_URL: Celery and the channel layer run on Redis")
    return database, redis


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Stack:
    """The servers of one run, their logs, and how to stop them."""

    def __init__(self, env: dict[str, str], logs: Path) -> None:
        self.env = env
        self.logs = logs
        self.procs: list[tuple[str, subprocess.Popen[bytes]]] = []
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"

    def run(self, *args: str) -> str:
        done = subprocess.run(
            [PYTHON, "manage.py", *args],
            cwd=ROOT,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert done.returncode == 0, done.stdout + done.stderr
        return done.stdout

    def start(self, name: str, *argv: str) -> None:
        log = open(self.logs / f"{name}.log", "wb")  # noqa: SIM115 - closed with the process
        proc = subprocess.Popen(
            argv,
            cwd=ROOT,
            env=self.env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group: stopped with all its children
        )
        log.close()
        self.procs.append((name, proc))

    def log(self, name: str) -> str:
        return (self.logs / f"{name}.log").read_text(errors="replace")

    def wait_for(self, what: str, ready: Callable[[], bool], timeout: float = 60) -> None:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            for name, proc in self.procs:
                if proc.poll() is not None:
                    raise AssertionError(f"{name} exited early:\n{self.log(name)[-3000:]}")
            if ready():
                return
            time.sleep(0.2)
        raise AssertionError(f"{what} not ready in {timeout} s")

    def stop(self) -> None:
        for _, proc in reversed(self.procs):
            if proc.poll() is None:
                with suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGTERM)
        for _, proc in reversed(self.procs):
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                with suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(timeout=10)

    def tails(self) -> str:
        return "\n".join(f"--- {name}\n{self.log(name)[-2500:]}" for name, _ in self.procs)


def _admin_sql(database_url: str, sql: str) -> None:
    import psycopg

    parts = urlsplit(database_url)
    admin = urlunsplit(parts._replace(path="/postgres"))
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(sql)  # type: ignore[arg-type]


def _port_open(port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(0.2)
        return s.connect_ex(("127.0.0.1", port)) == 0


@contextmanager
def live_stack() -> Iterator[Stack]:
    database, redis_url = services_or_skip()
    import redis

    name = f"ludo_e2e_{os.getpid()}"
    db_url = urlunsplit(urlsplit(database)._replace(path=f"/{name}"))
    # A Redis database of its own (1-15, by process, so that two runs side by side rarely
    # meet: they would share Celery's queue and the channel groups), emptied before and after.
    r_url = urlunsplit(urlsplit(redis_url)._replace(path=f"/{1 + os.getpid() % 15}"))
    r = redis.Redis.from_url(r_url)
    env = {
        **os.environ,
        "DATABASE_URL": db_url,
        "REDIS_URL": r_url,
        "LUDO_TIME_SCALE": str(SCALE),
        "LUDO_BOT_DELAY": "0.3",
        "LUDO_INPROCESS_CLOCK": "0",
        "DEBUG": "1",
        "PYTHONUNBUFFERED": "1",
    }
    with tempfile.TemporaryDirectory(prefix="ludo-e2e-") as tmp:
        stack = Stack(env, Path(tmp))
        _admin_sql(database, f'DROP DATABASE IF EXISTS "{name}"')
        _admin_sql(database, f'CREATE DATABASE "{name}"')
        r.flushdb()
        try:
            stack.run("migrate", "--noinput")
            stack.run(
                "shell",
                "-c",
                "from accounts.models import User\n"
                f"for n in ('ann', 'ben'): User.objects.create_user(n, password={PASSWORD!r})",
            )
            stack.start(
                "daphne",
                str(BIN / "daphne"),
                "-b",
                "127.0.0.1",
                "-p",
                str(stack.port),
                "ludo_site.asgi:application",
            )
            stack.start(
                "worker",
                str(BIN / "celery"),
                "-A",
                "ludo_site",
                "worker",
                "--pool=solo",
                "--without-gossip",
                "--without-mingle",
                "--without-heartbeat",
                "-l",
                "info",
            )
            stack.start(
                "beat",
                str(BIN / "celery"),
                "-A",
                "ludo_site",
                "beat",
                "-l",
                "info",
                "-s",
                str(Path(tmp) / "beat-schedule"),
            )
            stack.wait_for("daphne", lambda: _port_open(stack.port))
            stack.wait_for("worker", lambda: "ready." in stack.log("worker"))
            yield stack
        except BaseException:
            print(stack.tails())
            raise
        finally:
            stack.stop()
            r.flushdb()
            r.close()
            _admin_sql(database, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


# ---------------------------------------------------------------------------- a player


class Player:
    """One person: signed in over HTTP (session + CSRF), playing over a WebSocket."""

    def __init__(self, base: str, username: str) -> None:
        self.base = base
        self.name = username
        self.jar = http.cookiejar.CookieJar()
        self.http = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar))
        self.csrf = self.call("GET", "/api/session")["csrf"]
        self.csrf = self.call("POST", "/api/session", {"username": username, "password": PASSWORD})[
            "csrf"
        ]
        self.ws: Any = None
        self.frames: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.state: dict[str, Any] = {}
        self.reader: asyncio.Task[None] | None = None
        self.corner = -1
        self.sent_at = 0.0

    def call(self, method: str, path: str, body: Any = None) -> Any:
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(self.base + path, data=data, method=method)
        req.add_header("Content-Type", "application/json")
        if method != "GET":
            req.add_header("X-CSRFToken", self.csrf)
        with self.http.open(req, timeout=10) as response:
            return json.loads(response.read())

    def cookie(self) -> str:
        return "; ".join(f"{c.name}={c.value}" for c in self.jar)

    async def open(self, code: str) -> dict[str, Any]:
        from websockets.asyncio.client import connect

        url = self.base.replace("http", "ws") + f"/ws/match/{code}/"
        self.ws = await connect(url, origin=self.base, additional_headers={"Cookie": self.cookie()})  # type: ignore[arg-type]
        self.frames = asyncio.Queue()
        self.state = {}
        self.reader = asyncio.create_task(self._read())
        first = await self.next(lambda f: f["t"] == "state")
        you = [s["corner"] for s in first["d"]["seats"] if s["you"]]
        self.corner = you[0] if you else -1
        return first

    async def _read(self) -> None:
        with suppress(Exception):
            async for text in self.ws:
                frame = json.loads(text)
                if frame["t"] in ("state", "update"):
                    snap = frame["d"] if frame["t"] == "state" else frame["d"]["state"]
                    if snap["v"] >= self.state.get("v", -1):
                        self.state = snap
                await self.frames.put(frame)

    async def close(self) -> None:
        if self.ws is not None:
            await self.ws.close()
        if self.reader is not None:
            await self.reader

    async def next(
        self, want: Callable[[dict[str, Any]], bool], timeout: float = 15
    ) -> dict[str, Any]:
        async def find() -> dict[str, Any]:
            while True:
                frame = await self.frames.get()
                if want(frame):
                    return frame

        return await asyncio.wait_for(find(), timeout)

    async def send(self, t: str, **d: Any) -> None:
        v = self.state.get("v", 0)
        await self.frame({"t": t, "v": v, "id": f"{self.name}-{t}-{v}", "d": d})

    async def frame(self, data: dict[str, Any]) -> None:
        # A quick person's pace, well inside the server's per-socket rate limit.
        await asyncio.sleep(max(0.0, self.sent_at + 0.15 - time.monotonic()))
        self.sent_at = time.monotonic()
        await self.ws.send(json.dumps(data))

    def my_turn(self) -> bool:
        s = self.state
        return s.get("status") == "active" and s.get("to_play") == self.corner

    async def act(self) -> None:
        """Roll, or move the pawn that gets furthest (home first)."""
        if self.state["phase"] == "roll":
            await self.send("roll")
        elif self.state["legal"]:
            best = max(self.state["legal"], key=lambda m: (m["home"], m["to"], -m["pawn"]))
            await self.send("move", pawn=best["pawn"])

    async def play(self, until: Callable[[], bool], *, pause: float = 0.0) -> None:
        """Act whenever it is this player's turn, until `until()`."""
        acted_on = -1
        while not until():
            if self.my_turn() and self.state["v"] != acted_on:
                acted_on = self.state["v"]
                if pause:
                    await asyncio.sleep(pause)
                    if not self.my_turn() or self.state["v"] != acted_on:
                        continue
                await self.act()
            with suppress(TimeoutError):
                frame = await asyncio.wait_for(self.frames.get(), 0.5)
                if frame["t"] == "error":
                    # A race with the clock (the server moved first): take the new state.
                    assert frame["d"]["code"] in ("stale", "not_your_turn"), frame
                    await self.frame({"t": "resync"})


def events_of(frame: dict[str, Any]) -> list[dict[str, Any]]:
    return frame["d"]["events"] if frame["t"] == "update" else []


async def room(host: Player, guest: Player) -> str:
    made = await asyncio.to_thread(
        host.call, "POST", "/api/matches", {"ruleset": "classic", "players": 2, "mode": "friendly"}
    )
    code = made["code"]
    joined = await asyncio.to_thread(guest.call, "POST", f"/api/matches/{code}/join")
    assert joined["corner"] == 2
    return code


# ---------------------------------------------------------------------------- the scenarios


async def full_match(ann: Player, ben: Player) -> None:
    """Played to the end: a timeout auto-move, and a reconnect inside the grace."""
    code = await room(ann, ben)
    await ann.open(code)
    await ben.open(code)
    assert (ann.corner, ben.corner) == (0, 2)
    first = ann if ann.state["to_play"] == 0 else ben
    other = ben if first is ann else ann
    # The first player lets the clock run out: the server rolls and moves for them.
    timeout = await other.next(
        lambda f: any(e["kind"] == "timeout" for e in events_of(f)), timeout=TURN + 5
    )
    assert [e for e in events_of(timeout) if e["kind"] == "timeout"] == [
        {
            "kind": "timeout",
            "corner": first.corner,
            "missed": 1,
            "seq": events_of(timeout)[0]["seq"],
        }
    ]
    assert any(e["kind"] == "rolled" for e in events_of(timeout))
    # Both play a while; then Ann's connection drops and she is back within the grace.
    stop = asyncio.Event()
    await asyncio.gather(
        ann.play(lambda: ann.state["v"] > 40 or stop.is_set()),
        ben.play(lambda: ann.state["v"] > 40),
    )
    await ann.close()
    gone = await ben.next(lambda f: {"kind": "disconnected", "corner": 0} in events_of(f))
    assert gone["d"]["state"]["seats"][0]["connected"] is False
    await asyncio.sleep(1.0)
    back = await ann.open(code)
    assert back["d"]["seats"][0] == {**back["d"]["seats"][0], "you": True, "connected": True}
    assert back["d"]["status"] == "active"
    await ben.next(lambda f: {"kind": "connected", "corner": 0} in events_of(f))
    # To the end.
    over = lambda: ann.state.get("status") == "finished"  # noqa: E731
    await asyncio.wait_for(
        asyncio.gather(ann.play(over), ben.play(lambda: ben.state.get("status") == "finished")),
        timeout=120,
    )
    winner = ann.state["winner"]
    assert winner in (0, 2) and ann.state["placings"][0] == winner
    assert not any(s["left"] for s in ann.state["seats"])  # nobody forfeited
    record = await asyncio.to_thread(ann.call, "GET", f"/api/matches/{code}/replay")
    assert record["proof"]["verified"] is True and record["proof"]["server_seed"]
    assert [e["seq"] for e in record["events"]] == list(range(1, len(record["events"]) + 1))
    await ann.close()
    await ben.close()


async def three_timeouts(ann: Player, ben: Player) -> None:
    """Ann never acts: three timeouts in a row and she forfeits; Ben wins."""
    code = await room(ann, ben)
    await ann.open(code)
    await ben.open(code)
    ended = lambda: ben.state.get("status") == "finished"  # noqa: E731
    await asyncio.wait_for(ben.play(ended), timeout=8 * TURN + 20)
    record = await asyncio.to_thread(ben.call, "GET", f"/api/matches/{code}/replay")
    timeouts = [e for e in record["events"] if e["kind"] == "timeout"]
    assert [(e["corner"], e["missed"]) for e in timeouts] == [(0, 1), (0, 2), (0, 3)]
    leave = next(e for e in record["events"] if e["kind"] == "leave")
    assert (leave["corner"], leave["reason"], leave["forfeit"]) == (0, "timeout", True)
    assert ben.state["winner"] == 2
    await ann.close()
    await ben.close()


async def disconnect_past_grace(ann: Player, ben: Player) -> None:
    """Ann's connection drops and stays down: after the grace she forfeits."""
    code = await room(ann, ben)
    await ann.open(code)
    await ben.open(code)
    await ann.close()
    left_at = time.monotonic()
    ended = lambda: ben.state.get("status") == "finished"  # noqa: E731
    # Ben plays slowly, so that the 6 s grace runs out before Ann times out three times.
    await asyncio.wait_for(ben.play(ended, pause=TURN * 0.6), timeout=GRACE + 20)
    assert time.monotonic() - left_at >= GRACE * 0.9
    record = await asyncio.to_thread(ben.call, "GET", f"/api/matches/{code}/replay")
    leave = next(e for e in record["events"] if e["kind"] == "leave")
    assert (leave["corner"], leave["reason"], leave["forfeit"]) == (0, "disconnected", True)
    assert ben.state["winner"] == 2
    await ben.close()


def test_two_players_through_daphne_celery_and_redis() -> None:
    with live_stack() as stack:

        async def main() -> None:
            players = [await asyncio.to_thread(Player, stack.base, n) for n in ("ann", "ben")]
            await full_match(*players)
            others = [await asyncio.to_thread(Player, stack.base, n) for n in ("ann", "ben")]
            await asyncio.gather(three_timeouts(*players), disconnect_past_grace(*others))

        asyncio.run(main())
