"""Load figures for the real-time layer: N rooms of WebSocket players at a human pace.

    DATABASE_URL=... REDIS_URL=... .venv/bin/python scripts/load_rooms.py 100 \\
        --url http://127.0.0.1:8000 --seconds 60

Against a running site (daphne or uvicorn, a Celery worker and beat, on the same DATABASE_URL
as this script: use a scratch database), it opens N friendly rooms of four signed-in players
(users, sessions and rooms are made here through the services), and in every room the player
to act rolls or moves `--pace` seconds after the room's last change (a lone legal move is left
to the server's auto-move, as a person would). It prints:

- p50/p99/max of the time from a player sending an action to the update for it arriving,
  measured at every one of the room's four sockets, once every room is open (after the ramp);
- events lost (a gap in the event seq a socket saw) and out of order (a seq seen twice or
  going back), over every update every socket received, the server's own moves included;
- the error frames received, by code;
- the CPU this client and the server (`--server-pid`) used in the measured window, as a share
  of one core, and the load average at its end (the machine may be shared).

A benchmark, not a test: it says how the site behaves on this machine.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import json
import os
import statistics
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ludo_site.settings")


@dataclass
class Room:
    code: str
    cookies: list[str]
    users: list[int] = field(default_factory=list)  # each seat's account, for its ticket
    sent: dict[int, float] = field(default_factory=dict)  # v acted on -> when sent
    last_change: float = 0.0


@dataclass
class Totals:
    latencies: list[float] = field(default_factory=list)
    stamps: list[float] = field(default_factory=list)  # when each latency's action was sent
    updates: int = 0
    lost: int = 0
    out_of_order: int = 0
    actions: int = 0
    errors: Counter[str] = field(default_factory=Counter)
    closed: int = 0
    connected: int = 0  # sockets opened, reconnections included
    open_now: int = 0
    most_open: int = 0  # the most sockets open at once
    reconnects: int = 0
    dropped: Counter[str] = field(default_factory=Counter)  # sockets the server closed, by code
    window_actions: int = 0  # actions sent in the measured window
    window: float = 0.0  # the measured window's length, seconds
    open_at_start: int = 0  # sockets open when the measured window began
    open_at_end: int = 0
    cpu: dict[str, float] = field(default_factory=dict)  # share of one core, measured window
    load: tuple[float, float, float] = (0.0, 0.0, 0.0)
    start: float = 0.0  # when the measured window began
    settled: float = 0.0  # seconds after the ramp until every socket was open
    end: float = 0.0  # when the players stop (time.monotonic())


def make_rooms(n: int, players: int, threads: int = 8) -> list[Room]:
    """Users, sessions and started rooms; the rooms through the services (as the API would),
    on a few threads at once."""
    from concurrent.futures import ThreadPoolExecutor

    import django

    django.setup()
    from django.conf import settings
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
    from django.contrib.sessions.backends.db import SessionStore
    from django.contrib.sessions.models import Session
    from django.db import connections
    from django.utils import timezone

    from accounts.models import User
    from games import services

    tag = f"load{int(time.time())}"
    users = User.objects.bulk_create(
        [User(username=f"{tag}-{i}", password="!") for i in range(n * players)]
    )
    backend = settings.AUTHENTICATION_BACKENDS[0]
    store = SessionStore()
    expires = timezone.now() + timezone.timedelta(seconds=settings.SESSION_COOKIE_AGE)
    sessions = [
        Session(
            session_key=store._get_new_session_key(),
            session_data=store.encode(
                {
                    SESSION_KEY: str(user.pk),
                    BACKEND_SESSION_KEY: backend,
                    HASH_SESSION_KEY: user.get_session_auth_hash(),
                }
            ),
            expire_date=expires,
        )
        for user in users
    ]
    Session.objects.bulk_create(sessions)
    cookies = [f"{settings.SESSION_COOKIE_NAME}={s.session_key}" for s in sessions]

    def room(r: int) -> Room:
        seated = users[r * players : (r + 1) * players]
        try:
            match = services.match_create(
                ruleset="classic", players=players, mode="friendly", host=seated[0]
            )
            for user in seated[1:]:
                services.match_join(code=match.code, user=user)
        finally:
            connections.close_all()
        return Room(
            match.code,
            cookies[r * players : (r + 1) * players],
            [u.pk for u in seated],
        )

    with ThreadPoolExecutor(threads) as pool:
        return list(pool.map(room, range(n)))


@dataclass
class _Account:
    pk: int


async def player(url: str, room: Room, seat: int, totals: Totals, args: argparse.Namespace) -> None:
    """One seated player's socket for the whole run. A socket the server closes (or that fails
    to open) is counted and opened again after a pause, as the room page does; the new
    socket's ``state`` frame catches the player up (events it missed are not counted lost)."""
    from websockets.asyncio.client import connect
    from websockets.exceptions import ConnectionClosed

    # Django is set up by now (`make_rooms`), not at this module's import.
    from games.live import tickets

    ws_url = url.replace("http", "ws", 1) + f"/ws/match/{room.code}/"
    pause = 1.0
    first = True
    while time.monotonic() < totals.end:
        if not first:
            await asyncio.sleep(min(pause, max(0.0, totals.end - time.monotonic())))
            pause = min(pause * 2, 8.0)
            totals.reconnects += 1
        first = False
        target = ws_url
        if args.tickets and seat < len(room.users):
            # As the room page opens its socket: with a fresh signed ticket (games.live.tickets).
            target += f"?ticket={tickets.issue(_Account(room.users[seat]), room.code)}"
        try:
            ws = await connect(
                target,
                origin=url,  # type: ignore[arg-type]
                additional_headers={"Cookie": room.cookies[seat]},
                open_timeout=60,
                ping_interval=None,
            )
        except Exception as e:  # noqa: BLE001 - counted, then tried again
            totals.errors[f"connect: {type(e).__name__}"] += 1
            continue
        totals.connected += 1
        totals.open_now += 1
        try:
            await _play(ws, room, totals, args)
            pause = 1.0
        except ConnectionClosed as e:
            code = e.rcvd.code if e.rcvd is not None else "none"
            totals.dropped[str(code)] += 1
        finally:
            totals.open_now -= 1
            with contextlib.suppress(Exception):
                await ws.close()
            totals.closed += 1


async def _play(ws: Any, room: Room, totals: Totals, args: argparse.Namespace) -> None:
    """One socket's frames until the run ends (`totals.end`); acts on this player's turns."""
    state: dict[str, Any] = {}
    last_seq = -1
    me = -1
    acting: asyncio.Task[None] | None = None

    async def act_later(v: int) -> None:
        await asyncio.sleep(max(0.0, room.last_change + args.pace - time.monotonic()))
        if state.get("v") != v or state.get("to_play") != me or state.get("status") != "active":
            return
        if state["phase"] == "roll":
            frame = {"t": "roll", "v": v, "id": f"r{v}", "d": {}}
        else:
            best = max(state["legal"], key=lambda m: (m["home"], m["to"], -m["pawn"]))
            frame = {"t": "move", "v": v, "id": f"m{v}", "d": {"pawn": best["pawn"]}}
        room.sent[v] = time.monotonic()
        totals.actions += 1
        with contextlib.suppress(Exception):  # a closed socket shows in the read loop
            await ws.send(json.dumps(frame))

    try:
        while time.monotonic() < totals.end:
            try:
                text = await asyncio.wait_for(
                    ws.recv(), timeout=max(0.1, totals.end - time.monotonic())
                )
            except TimeoutError:
                break
            now = time.monotonic()
            frame = json.loads(text)
            if frame["t"] == "error":
                totals.errors[frame["d"]["code"]] += 1
                await ws.send('{"t": "resync"}')
                continue
            if frame["t"] == "ping":
                continue
            if frame["t"] == "state":
                state = frame["d"]
                last_seq = max(last_seq, state["v"])
                me = next((s["corner"] for s in state["seats"] if s["you"]), -1)
            else:
                seqs = [e["seq"] for e in frame["d"]["events"] if "seq" in e]
                if seqs:
                    totals.updates += 1
                    if seqs[0] <= last_seq:
                        totals.out_of_order += 1
                    elif seqs[0] > last_seq + 1 and last_seq >= 0:
                        totals.lost += seqs[0] - last_seq - 1
                    last_seq = max(last_seq, seqs[-1])
                    sent = room.sent.get(seqs[0] - 1)
                    if sent is not None:
                        totals.latencies.append(now - sent)
                        totals.stamps.append(sent)
                    room.last_change = max(room.last_change, now)
                if frame["d"]["state"]["v"] >= state.get("v", -1):
                    state = frame["d"]["state"]
            if (
                state.get("status") == "active"
                and state.get("to_play") == me
                and not (state["phase"] == "move" and len(state["legal"]) == 1)
                and (acting is None or acting.done())
            ):
                acting = asyncio.create_task(act_later(state["v"]))
    finally:
        if acting is not None:
            acting.cancel()


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def cpu_seconds(pid: int | None) -> float:
    """CPU time (user + system) process `pid` has used, or this process's when None; 0 for
    a process that is gone."""
    if pid is None:
        return time.process_time()
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def with_children(pid: int) -> list[int]:
    """`pid` and every process below it (uvicorn's worker processes)."""
    parents: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            parents.setdefault(ppid, []).append(int(entry.name))
    found, todo = [], [pid]
    while todo:
        p = todo.pop()
        found.append(p)
        todo.extend(parents.get(p, []))
    return found


def database_backends() -> list[int]:
    """The PostgreSQL backends serving this run's database (DATABASE_URL)."""
    import psycopg

    url = os.environ.get("DATABASE_URL", "")
    if not url.startswith("postgres"):
        return []
    with psycopg.connect(url) as conn:
        rows = conn.execute(
            "SELECT pid FROM pg_stat_activity WHERE datname = current_database() "
            "AND pid <> pg_backend_pid()"
        ).fetchall()
    return [row[0] for row in rows]


def redis_pid(url: str | None = None) -> int | None:
    """The Redis server's process (`url`, else REDIS_URL), when it runs on this machine."""
    url = url or os.environ.get("REDIS_URL")
    if not url:
        return None
    import redis

    try:
        return int(redis.Redis.from_url(url).info("server")["process_id"])
    except Exception:  # noqa: BLE001 - not measured then
        return None


class CpuWatch:
    """CPU used by groups of processes between `start` and `stop`, as shares of one core."""

    def __init__(self, args: argparse.Namespace, redis_url: str | None = None) -> None:
        self.args = args
        self.redis = redis_pid(redis_url)

    def groups(self) -> dict[str, list[int | None]]:
        groups: dict[str, list[int | None]] = {"client": [None]}
        if self.args.server_pid:
            groups["server"] = list(with_children(self.args.server_pid))
        if self.args.database_cpu:
            groups["postgres"] = list(database_backends())
        if self.redis:
            groups["redis"] = [self.redis]
        for name, pid in self.args.watch:
            groups[name] = list(with_children(pid))
        return groups

    def start(self) -> None:
        self.began = time.monotonic()
        self.at_start = {pid: cpu_seconds(pid) for pids in self.groups().values() for pid in pids}

    def stop(self) -> dict[str, float]:
        wall = time.monotonic() - self.began
        shares = {}
        for name, pids in self.groups().items():
            # A process started within the window counts from its start.
            used = sum(cpu_seconds(pid) - self.at_start.get(pid, 0.0) for pid in pids)
            shares[name] = used / wall
        return shares


async def run(args: argparse.Namespace, rooms: list[Room]) -> Totals:
    totals = Totals()
    start = time.monotonic()
    totals.end = start + args.ramp + args.settle + args.settle_pause + args.seconds
    tasks = []
    for i, room in enumerate(rooms):
        # Rooms open one after another over the ramp, their players together.
        await asyncio.sleep(max(0.0, start + args.ramp * i / len(rooms) - time.monotonic()))
        room.last_change = time.monotonic()
        for seat in range(len(room.cookies)):
            tasks.append(asyncio.create_task(player(args.url, room, seat, totals, args)))
    # Latencies, CPU and load are measured once every room is open (events lost or out of
    # order over the whole run).
    await asyncio.sleep(max(0.0, start + args.ramp - time.monotonic()))
    # Play is measured once every socket is open (or `--settle` seconds more have passed):
    # the window is the room at play, not the crowd arriving.
    settle = time.monotonic() + args.settle
    while totals.open_now < len(tasks) and time.monotonic() < settle:
        await asyncio.sleep(0.25)
    totals.settled = time.monotonic() - start - args.ramp
    # The last arrivals' work (a seat connected, its audit entry) drains before the window.
    await asyncio.sleep(args.settle_pause)
    stop = totals.end = time.monotonic() + args.seconds
    totals.latencies.clear()
    totals.stamps.clear()
    totals.start = time.monotonic()
    totals.open_at_start = totals.open_now
    watch = CpuWatch(args)
    watch.start()
    actions = totals.actions
    measured = time.monotonic()
    # Open sockets counted a second before the end (at the end itself players are leaving).
    await asyncio.sleep(max(0.0, stop - 1.0 - time.monotonic()))
    totals.open_at_end = totals.open_now
    await asyncio.sleep(max(0.0, stop - time.monotonic()))
    totals.window = time.monotonic() - measured
    totals.cpu = watch.stop()
    totals.window_actions = totals.actions - actions
    totals.load = os.getloadavg()
    await asyncio.gather(*tasks)
    return totals


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("rooms", type=int)
    parser.add_argument("--url", default="http://127.0.0.1:8000")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--pace", type=float, default=2.0, help="seconds between a room's actions")
    parser.add_argument("--seconds", type=float, default=60, help="measured after the ramp")
    parser.add_argument(
        "--ramp",
        type=float,
        default=None,
        help="seconds to open every room (default 20, or 1 s for every 25 rooms past 500)",
    )
    parser.add_argument(
        "--settle",
        type=float,
        default=60,
        help="after the ramp, wait up to this long for every socket to be open",
    )
    parser.add_argument(
        "--settle-pause",
        type=float,
        default=5,
        help="seconds between every socket being open and the measured window",
    )
    parser.add_argument(
        "--no-tickets",
        dest="tickets",
        action="store_false",
        help="open the sockets with the session cookie alone (as a client of its own does), "
        "not with the room page's signed ticket",
    )
    parser.add_argument(
        "--client-gc", action="store_true", help="leave this client's garbage collector as is"
    )
    parser.add_argument(
        "--worst", type=int, default=5, help="list the seconds with the slowest updates"
    )
    parser.add_argument(
        "--server-pid",
        type=int,
        default=None,
        help="report this server's CPU too (the process and its worker processes)",
    )
    parser.add_argument(
        "--watch",
        type=watched,
        action="append",
        default=[],
        metavar="NAME=PID",
        help="report this process's CPU (with its children) too, e.g. worker=1234",
    )
    parser.add_argument(
        "--no-database-cpu",
        dest="database_cpu",
        action="store_false",
        help="leave out the CPU of the PostgreSQL backends serving DATABASE_URL",
    )
    args = parser.parse_args()
    if args.ramp is None:
        # People do not all arrive in the same 20 s: at 1,000 rooms 4,000 sockets open in 40 s.
        args.ramp = max(20.0, args.rooms / 25)
    made = time.monotonic()
    rooms = make_rooms(args.rooms, args.players)
    print(f"{len(rooms)} rooms of {args.players} made in {time.monotonic() - made:.1f} s")
    if not args.client_gc:
        # The client's own collector pauses would show as the site's latency: tune it as the
        # server is (ludo_site.asgi.tune_gc).
        gc.collect()
        gc.freeze()
        gc.set_threshold(50_000, 50, 100)
    pauses = client_gc_pauses()
    totals = asyncio.run(run(args, rooms))
    ms = [x * 1000 for x in totals.latencies]
    # Sockets: those open when the measured window ended, of the rooms' seats.
    print(
        f"rooms {args.rooms}, sockets {totals.open_at_end}/{args.rooms * args.players}, "
        f"actions {totals.actions}, updates received {totals.updates}"
    )
    print(
        f"sockets open {totals.settled:.1f} s after the ramp; "
        f"at the window's start {totals.open_at_start}, at its end "
        f"{totals.open_at_end}; opened {totals.connected} (reconnections {totals.reconnects}); "
        f"closed by the server {dict(totals.dropped) or 'none'}"
    )
    if ms:
        print(
            f"action -> update at each socket: n={len(ms)} p50={statistics.median(ms):.1f} ms "
            f"p99={percentile(ms, 0.99):.1f} ms max={max(ms):.1f} ms"
        )
    if args.worst and ms:
        # Slow updates by the second of the measured window their action was sent in: a
        # stall shows as one second holding many of them.
        slow = percentile(ms, 0.99)
        by_second = Counter(
            int(at - totals.start) for at, x in zip(totals.stamps, ms, strict=True) if x >= slow
        )
        worst = ", ".join(f"s{sec}: {n}" for sec, n in by_second.most_common(args.worst))
        print(f"updates at or over p99 by second sent: {worst}")
    print(f"events lost {totals.lost}, out of order {totals.out_of_order}")
    # The client's own collector pauses hold every socket's reading: they show as latency.
    window = [(at - totals.start, ms) for at, ms in pauses if at >= totals.start]
    if window:
        longest = max(window, key=lambda p: p[1])
        print(
            f"client GC pauses in the window: {len(window)}, longest {longest[1]:.0f} ms "
            f"(s{int(longest[0])}), total {sum(ms for _, ms in window):.0f} ms"
        )
    print(f"errors {dict(totals.errors) or 'none'}")
    cpu = ", ".join(f"{who} {share:.0%}" for who, share in totals.cpu.items())
    load = " ".join(f"{x:.2f}" for x in totals.load)
    print(f"CPU (share of one core, measured window): {cpu}; load average {load}")
    if totals.window_actions:
        rate = totals.window_actions / totals.window
        per = ", ".join(
            f"{who} {share * 1000 / rate:.1f}"
            for who, share in totals.cpu.items()
            if who != "client"
        )
        print(
            f"actions in the window {totals.window_actions} ({rate:.0f}/s); "
            f"CPU ms per player action: {per}"
        )


def client_gc_pauses() -> list[tuple[float, float]]:
    """(when, milliseconds) of this client's garbage collections from now on."""
    pauses: list[tuple[float, float]] = []
    began = [0.0]

    def timed(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            began[0] = time.monotonic()
        else:
            pauses.append((began[0], (time.monotonic() - began[0]) * 1000))

    gc.callbacks.append(timed)
    return pauses


def watched(text: str) -> tuple[str, int]:
    name, _, pid = text.partition("=")
    if not name or not pid.isdigit():
        raise argparse.ArgumentTypeError("expected NAME=PID")
    return name, int(pid)


if __name__ == "__main__":
    main()
