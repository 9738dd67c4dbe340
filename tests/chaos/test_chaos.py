"""The chaos suite (issue 12): the README's production setup under play, traffic and faults.

`tests.stack.Stack` starts the production shape (DEBUG off, uvicorn with two worker processes,
a Celery worker and beat) on a database of its own and on a redis-server this test owns, so it
may stop and start it. While 20 rooms are played over WebSockets by clients that reconnect
and resync as the room page does, and plain HTTP traffic runs (2,000 requests), it injects one
after another: ``kill -9`` of a uvicorn worker process (uvicorn starts another), ``kill -9``
of the Celery worker and beat for 30 s (then started again), every database connection
terminated (``pg_terminate_backend``), and Redis stopped for 10 s and started again (without
its data).

It holds: the database's connections stay under the README's bound the whole time; no answer
is a 500 (while a dependency is down, a 503 that says so); every room reaches its end and
every client ends with the database's state; nobody is timed out (no ``timeout`` event: the
turn clock is 20 s and the clients act at once); `verify_match` passes for every room and
`verify_audit` for the log. The figures are printed (``-s``).

A room is played for `MOVES` actions by its two players, after which one resigns: the match
ends as it ends in play (finished, rated where ranked, proven), in a bounded time.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import re
import signal
import subprocess
import threading
import time
import urllib.error
import urllib.request
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from ludo_site import env as site_env
from tests.servers import free_port, port_open
from tests.stack import Stack, with_path

pytestmark = pytest.mark.chaos

ROOMS = 20
MOVES = 40  # actions per room before one player resigns
REQUESTS = 2000
WORKERS = 2  # uvicorn worker processes
CELERY_CHILDREN = 2  # the stack's worker --concurrency
BOUND = WORKERS * site_env.DB_POOL_MAX + CELERY_CHILDREN * site_env.WORKER_POOL_MAX + 2

SETUP = f"""
import json
from django.conf import settings
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
from django.contrib.sessions.backends.db import SessionStore
from accounts.models import User
from games import services
rooms = []
for r in range({ROOMS}):
    a = User.objects.create_user(f"chaos{{r}}a", password="x-chaos-1")
    b = User.objects.create_user(f"chaos{{r}}b", password="x-chaos-1")
    m = services.match_create(ruleset="classic", players=2, mode="friendly", host=a, first=0)
    cookies = []
    for u in (a, b):
        s = SessionStore()
        s[SESSION_KEY] = str(u.pk)
        s[BACKEND_SESSION_KEY] = settings.AUTHENTICATION_BACKENDS[0]
        s[HASH_SESSION_KEY] = u.get_session_auth_hash()
        s.create()
        cookies.append(f"{{settings.SESSION_COOKIE_NAME}}={{s.session_key}}")
    rooms.append({{"code": m.code, "cookies": cookies, "second": b.username}})
print("ROOMS", json.dumps(rooms))
"""
# The second players sit down (and the turn clocks start) once the servers are up, just
# before the clients connect.
JOIN = """
from accounts.models import User
from games import services
for code, name in {pairs!r}:
    services.match_join(code=code, user=User.objects.get(username=name))
"""


class Redis:
    """A redis-server of this test's own, on one port, that it may stop and start again."""

    def __init__(self, folder: Path) -> None:
        self.port = free_port()
        self.folder = folder
        self.proc: subprocess.Popen[bytes] | None = None
        self.url = f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.proc = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no", "--dir", str(self.folder)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )  # fmt: skip
        end = time.monotonic() + 10
        while not port_open(self.port):
            assert time.monotonic() < end, "redis-server did not start"
            time.sleep(0.05)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=10)
        self.proc = None


class Watch:
    """What the run saw: connections over time, HTTP answers, outage windows."""

    def __init__(self) -> None:
        self.started = time.monotonic()
        self.connections: list[tuple[float, int]] = []
        self.statuses: Counter[int] = Counter()
        self.errors: list[str] = []  # 500s, and failures outside an outage
        self.outages: list[tuple[float, float]] = []  # (start, end) a dependency was down
        self.faults: list[str] = []
        self.stop = threading.Event()

    def now(self) -> float:
        return time.monotonic() - self.started

    def down(self, at: float, until: float) -> bool:
        """Whether a request from `at` to `until` overlapped an outage (a request still in
        flight when a worker was killed started before it: on a busy machine, seconds before)."""
        return any(at <= end + 5 and until >= start - 1 for start, end in self.outages)


def count_connections(watch: Watch, admin_url: str, name: str) -> None:
    import psycopg

    with psycopg.connect(admin_url, autocommit=True) as conn:
        while not watch.stop.is_set():
            row = conn.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = %s", (name,)
            ).fetchone()
            watch.connections.append((watch.now(), int(row[0]) if row else 0))
            time.sleep(0.1)


def http_traffic(watch: Watch, base: str, codes: list[str], share: int) -> None:
    paths = ["/", "/leaderboards/", "/rules/", "/api/session", "/join/", "/players/chaos0a/"]
    paths += [f"/api/matches/{c}" for c in codes[:5]] + [f"/r/{c}/" for c in codes[:3]]
    for i in range(share):
        path = paths[i % len(paths)]
        at = watch.now()
        try:
            with urllib.request.urlopen(base + path, timeout=30) as response:
                response.read()
                status = int(response.status)
        except urllib.error.HTTPError as e:
            body = e.read().decode(errors="replace")
            status = int(e.code)
            if status == 500 or (status == 503 and not watch.down(at, watch.now())):
                watch.errors.append(f"{at:.1f}s {path}: {status} {body[:200]}")
        except OSError as e:  # a worker killed mid-request
            status = 0
            if not watch.down(at, watch.now()):
                watch.errors.append(f"{at:.1f}s {path}: {e}")
        watch.statuses[status] += 1
        time.sleep(0.02)


class Player:
    """One seat, played as the room page plays it: acts when it is its turn, resyncs on a gap,
    a stale answer or a ping ahead of it, reconnects when the socket dies."""

    def __init__(self, base: str, code: str, cookie: str, corner: int, moves: int) -> None:
        self.url = base.replace("http", "ws") + f"/ws/match/{code}/"
        self.origin = base
        self.cookie = cookie
        self.corner = corner
        self.moves = moves
        self.state: dict[str, Any] = {}
        self.acted = 0
        self.reconnects = -1
        self.acted_on = -1
        self.resigned = False

    def over(self) -> bool:
        return self.state.get("status") in ("finished", "aborted", "void")

    async def play(self, deadline: float) -> None:
        from websockets.asyncio.client import connect
        from websockets.exceptions import WebSocketException

        while not self.over() and time.monotonic() < deadline:
            self.reconnects += 1
            self.acted_on = -1
            try:
                async with connect(
                    self.url, origin=self.origin, additional_headers={"Cookie": self.cookie},  # type: ignore[arg-type]
                    open_timeout=10, ping_interval=5, ping_timeout=10,
                ) as ws:  # fmt: skip
                    await self._session(ws, deadline)
            except (OSError, TimeoutError, WebSocketException):
                pass  # refused, dropped or closed: reconnect, as the room page does
            if not self.over():
                await asyncio.sleep(0.5 + random.random())

    async def _session(self, ws: Any, deadline: float) -> None:
        while not self.over() and time.monotonic() < deadline:
            try:
                text = await asyncio.wait_for(ws.recv(), 20)
            except TimeoutError:
                return  # silent for 20 s: as the page does, drop it and reconnect
            frame = json.loads(text)
            t, d = frame["t"], frame.get("d") or {}
            if t in ("state", "update"):
                snap = d if t == "state" else d.get("state") or {}
                events = [] if t == "state" else d.get("events") or []
                first = next((e["seq"] for e in events if isinstance(e.get("seq"), int)), None)
                if first is not None and first > self.state.get("v", -1) + 1 and self.state:
                    await ws.send(json.dumps({"t": "resync"}))
                if snap.get("v", -1) >= self.state.get("v", -1):
                    self.state = snap
            elif t == "ping":
                if frame.get("v", -1) > self.state.get("v", -1):
                    await ws.send(json.dumps({"t": "resync"}))
            elif t == "error":
                code = d.get("code")
                # Each says this screen is behind the match (`over`: the other player resigned
                # while this one acted): resync, as the room page does.
                if code in ("stale", "not_your_turn", "unavailable", "pause", "over"):
                    self.acted_on = -1
                    await asyncio.sleep(0.3 if code != "unavailable" else 1.0)
                    await ws.send(json.dumps({"t": "resync"}))
                elif code != "rate_limited":
                    raise AssertionError(f"error frame {d}")
            await self._act(ws)

    async def _act(self, ws: Any) -> None:
        s = self.state
        if s.get("status") != "active" or s.get("to_play") != self.corner:
            return
        if s["v"] == self.acted_on:
            return
        self.acted_on = s["v"]
        v = s["v"]
        if self.acted >= self.moves and self.corner == 2:
            self.resigned = True
            await ws.send(json.dumps({"t": "resign"}))
            return
        self.acted += 1
        await asyncio.sleep(0.05)
        if s["phase"] == "roll":
            await ws.send(json.dumps({"t": "roll", "v": v, "id": f"r{v}-{self.corner}"}))
        elif s.get("legal"):
            best = max(s["legal"], key=lambda m: (m["home"], m["to"], -m["pawn"]))
            move = {"t": "move", "v": v, "id": f"m{v}-{self.corner}", "d": {"pawn": best["pawn"]}}
            await ws.send(json.dumps(move))


def play_rooms(base: str, rooms: list[dict[str, Any]], players: list[Player]) -> None:
    async def main() -> None:
        deadline = time.monotonic() + 420
        await asyncio.gather(*(p.play(deadline) for p in players))

    for room in rooms:
        for corner, cookie in zip((0, 2), room["cookies"], strict=True):
            players.append(Player(base, room["code"], cookie, corner, MOVES))
    asyncio.run(main())


def uvicorn_workers(stack: Stack) -> set[int]:
    """The uvicorn worker processes alive now, by the pids its log names at their start."""
    started = re.findall(r"Started server process \[(\d+)\]", stack.log("uvicorn0"))
    alive = set()
    for pid in map(int, started):
        try:
            state = Path(f"/proc/{pid}/stat").read_text().split(") ", 1)[1][0]
        except (OSError, IndexError):
            continue
        if state != "Z":
            alive.add(pid)
    return alive


def kill_group(stack: Stack, name: str) -> None:
    for proc_name, proc in stack.procs:
        if proc_name == name and proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=10)
    stack.procs = [(n, p) for n, p in stack.procs if n != name]


def test_chaos(tmp_path: Path) -> None:
    database = os.environ.get("DATABASE_URL", "")
    if not database.startswith(("postgres://", "postgresql://")):
        pytest.skip("the chaos suite needs DATABASE_URL on PostgreSQL (bash .ci/run sets it)")
    from tests.stack import BIN

    redis = Redis(tmp_path)
    redis.start()
    watch = Watch()
    try:
        # Only the stack's REDIS_URL database 0 is used: this Redis is the test's alone.
        with Stack(
            database, redis.url, tmp_path / "stack", workers=WORKERS, name="chaos", setup=SETUP,
            env={"LUDO_BOT_DELAY": "0.2"},
        ) as stack:  # fmt: skip
            rooms = json.loads(stack.printed.split("ROOMS", 1)[1])
            base = stack.urls[0]
            codes = [r["code"] for r in rooms]
            counter = threading.Thread(
                target=count_connections,
                args=(watch, with_path(database, "/postgres"), stack.db_name),
                daemon=True,
            )
            counter.start()
            traffic = [
                threading.Thread(target=http_traffic, args=(watch, base, codes, REQUESTS // 4))
                for _ in range(4)
            ]
            for thread in traffic:
                thread.start()
            stack.manage(
                "shell", "-c", JOIN.format(pairs=[(r["code"], r["second"]) for r in rooms])
            )
            players: list[Player] = []
            playing = threading.Thread(target=play_rooms, args=(base, rooms, players))
            playing.start()

            time.sleep(8)
            before = uvicorn_workers(stack)
            assert len(before) == WORKERS, before
            victim = min(before)
            # Its requests in flight fail (the connection drops): not a 500.
            watch.outages.append((watch.now(), watch.now() + 8))
            watch.faults.append(f"{watch.now():.0f}s kill -9 uvicorn worker {victim}")
            os.kill(victim, signal.SIGKILL)
            time.sleep(8)
            end = time.monotonic() + 90  # a new worker imports the site first (slow when busy)
            while len(uvicorn_workers(stack)) < WORKERS and time.monotonic() < end:
                time.sleep(0.5)
            after = uvicorn_workers(stack)
            assert victim not in after and len(after) == WORKERS, "uvicorn replaced no worker"
            watch.faults.append(f"{watch.now():.0f}s uvicorn worker replaced")

            watch.faults.append(f"{watch.now():.0f}s kill -9 Celery worker and beat for 30 s")
            kill_group(stack, "worker")
            kill_group(stack, "beat")
            time.sleep(30)
            stack.spawn("worker", str(BIN / "celery"), "-A", "ludo_site", "worker", "-l", "info",
                        "--concurrency", str(CELERY_CHILDREN), "--without-gossip",
                        "--without-mingle", "--without-heartbeat")  # fmt: skip
            stack.spawn("beat", str(BIN / "celery"), "-A", "ludo_site", "beat", "-l", "info",
                        "-s", str(tmp_path / "beat-schedule-2"))  # fmt: skip
            time.sleep(5)

            import psycopg

            # A query running on a connection ended fails (a 503 that says so); the pool
            # replaces the connections it hands out next.
            watch.outages.append((watch.now(), watch.now() + 3))
            with psycopg.connect(with_path(database, "/postgres"), autocommit=True) as admin:
                ended = admin.execute(
                    "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity"
                    " WHERE datname = %s AND pid <> pg_backend_pid()",
                    (stack.db_name,),
                ).fetchone()
            watch.faults.append(f"{watch.now():.0f}s pg_terminate_backend: {ended[0]} ended")
            time.sleep(5)

            start = watch.now()
            watch.outages.append((start, start + 10))
            watch.faults.append(f"{start:.0f}s Redis stopped for 10 s")
            redis.stop()
            time.sleep(10)
            redis.start()
            watch.faults.append(f"{watch.now():.0f}s Redis started again (empty)")

            playing.join(timeout=480)
            for thread in traffic:
                thread.join(timeout=300)
            watch.stop.set()
            counter.join(timeout=5)

            out = stack.manage(
                "shell", "-c",
                "import json\nfrom games.models import Match, MatchEvent\n"
                f"codes = {codes!r}\n"
                "ms = {m.code: (m.get_status_display().lower(), m.seq)"
                " for m in Match.objects.filter(code__in=codes)}\n"
                "t = [(e.match.code, e.seq, e.data, str(e.at)) for e in MatchEvent.objects"
                ".filter(match__code__in=codes, kind='timeout').select_related('match')]\n"
                "print('DB', json.dumps({'matches': ms, 'timeouts': t}))",
            )  # fmt: skip
            db = json.loads(out.split("DB", 1)[1])
            verified = [stack.manage("verify_match", code) for code in codes]
            audit = stack.manage("verify_audit")
    finally:
        redis.stop()

    most = max(n for _, n in watch.connections)
    step = max(1, len(watch.connections) // 30)
    timeline = " ".join(f"{t:.0f}s:{n}" for t, n in watch.connections[::step])
    print(
        f"\nchaos: {ROOMS} rooms, {sum(p.acted for p in players)} actions, "
        f"{sum(p.reconnects for p in players)} reconnects; {sum(watch.statuses.values())} "
        f"requests {dict(sorted(watch.statuses.items()))}; connections at most {most} "
        f"(bound {BOUND}); faults: {'; '.join(watch.faults)}\nconnections over time: {timeline}"
    )
    assert most <= BOUND, f"{most} connections, bound {BOUND}"
    assert sum(watch.statuses.values()) == REQUESTS
    assert not watch.errors, watch.errors[:10]
    assert db["timeouts"] == [], f"players were timed out: {db['timeouts'][:5]}"
    for player in players:
        status, seq = db["matches"][player.url.rsplit("/", 2)[1]]
        assert player.over(), (player.url, player.state.get("status"), player.state.get("v"))
        assert (player.state["status"], player.state["v"]) == (status, seq)
    assert len(verified) == ROOMS  # each verify_match exited 0 (Stack.manage checks)
    assert "audit chain ok" in audit
