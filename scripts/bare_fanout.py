"""The floor under a live room's action: a bare Channels fan-out on the site's production stack.

    scripts/bare_fanout.sh ROOMS [SECONDS]          # the whole run (server, client, clean-up)

    .venv/bin/uvicorn --app-dir scripts bare_fanout:application --port 8200 ...   # the server
    .venv/bin/python scripts/bare_fanout.py client 100 --url ws://127.0.0.1:8200 \\
        --seconds 20 --server-pid PID                                           # the client

The server is a plain Channels `AsyncWebsocketConsumer` on `/ws/<code>/`, behind
`ProtocolTypeRouter`/`URLRouter`, on the channel layer the site configures (`ludo_site/env.py`
`channel_layers`, read from that file so the two cannot drift: channels-redis'
`RedisPubSubChannelLayer` by default, `CHANNEL_LAYER=core` for the other, with the site's
redis-py fixes), with the site's garbage-collector tuning after start-up (`LUDO_GC_TUNE`,
`LUDO_GC_THRESHOLDS`, as `ludo_site.asgi.tune_gc`). No database and no game: on an action frame
``{"t": "act", "id": N, "sent": T}`` the socket builds a ~1.8 KB snapshot (four seats, sixteen
pawns, a deadline, the recent events) and sends it to the room's group (`room.<code>`); every
member serialises it with orjson (as every socket of the site serialises its own view) and
sends it as a text frame ``{"t": "update", "v": N, "d": ...}``. Like the site's
`MatchConsumer.dispatch`, the consumer skips Channels' hop to the sync thread before every
message (it has no database to close connections of).

The client is `scripts/load_rooms.py`'s pace without the site: N rooms of four sockets opened
over the ramp; in each room one socket (the seats take turns) sends an action 2 s (`--pace`)
after the room's last update arrived. Once every socket is open it measures, for the actions
sent in the window, the time from an action being sent to its update arriving at each of the
room's four sockets, and prints p50/p99/max, the updates lost (an action's update that never
reached one of the room's sockets, after a short drain), the actions per second, and the CPU of
the server (`--server-pid` and its worker processes) and of redis-server in the window, per
action. A benchmark, not a test.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import importlib.util
import json
import os
import statistics
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# The run's measurements are load_rooms.py's own (this directory: run as a script, or served
# with `--app-dir scripts`).
from load_rooms import CpuWatch, client_gc_pauses, percentile

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/6"
# Redis pub/sub ignores the database number: the prefix keeps this app's channels and groups
# apart from any site's (the site's are "ludo.<database name>:asgi").
DEFAULT_PREFIX = "bare_fanout"


# ------------------------------------------------------------------------------------ server


def _site_env() -> Any:
    """`ludo_site/env.py`, loaded from its file: the site's own channel-layer and GC settings,
    without importing the `ludo_site` package (which starts Celery and Django)."""
    spec = importlib.util.spec_from_file_location("_ludo_site_env", ROOT / "ludo_site" / "env.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def snapshot(code: str, n: int, sent: float) -> dict[str, Any]:
    """A room's snapshot after action `n`, shaped as the site's public part
    (`games.match.selectors.snapshot_parts`): ~1.8 KB as compact JSON."""
    colours = ("red", "green", "yellow", "blue")
    seats = [
        {
            "corner": c,
            "colour": colours[c],
            "mark": colours[c][0].upper(),
            "taken": True,
            "name": f"Player {c + 1}",
            "bot": False,
            "you": False,
            "connected": True,
            "away": False,
            "missed_turns": 0,
            "place": None,
            "left": False,
            "disconnected_at": None,
        }
        for c in range(4)
    ]
    pawns = [[(n * 7 + c * 13 + p * 5) % 57 - 1 for p in range(4)] for c in range(4)]
    to_play = n % 4
    events = [
        {
            "seq": n * 2 - k,
            "kind": "move" if k % 2 == 0 else "roll",
            "corner": (n - k // 2) % 4,
            "pawn": k % 4,
            "from": (n + k) % 52,
            "to": (n + k + 3) % 52,
            "face": (n + k) % 6 + 1,
            "captured": None,
            "at": f"2026-12-05T00:00:{k:02d}.{n % 1000:03d}000+00:00",
        }
        for k in range(3, -1, -1)
    ]
    return {
        "code": code,
        "ruleset": "classic",
        "rules": "Classic",
        "mode": "friendly",
        "status": "active",
        "v": n,
        "turn": n // 2,
        "seats": seats,
        "pawns": pawns,
        "to_play": to_play,
        "phase": "roll" if n % 2 else "move",
        "die": n % 6 + 1,
        "face": n % 6 + 1,
        "sixes": 0,
        "tries": 1,
        "placings": [],
        "out": [],
        "winner": None,
        "deadline": f"2026-12-05T00:01:{n % 60:02d}.000000+00:00",
        "reclaim": False,
        "pause_until": None,
        "commitment": "9f2c" * 8,
        "legal": [],
        "board": {"track_len": 52, "quarter": 13, "last_track": 50, "goal": 56, "safe": [0, 8]},
        "turn_seconds": 30.0,
        "grace_seconds": 60.0,
        "events": events,
        "sent": sent,
    }


def build_application() -> Any:
    """The ASGI application: Django settings configured here (only what Channels reads), the
    site's channel layer, the consumer on `/ws/<code>/`, then the site's GC tuning."""
    import django
    from django.conf import settings

    env = _site_env()
    if not settings.configured:
        settings.configure(
            DEBUG=False,
            INSTALLED_APPS=["channels"],
            DATABASES={},
            CHANNEL_LAYERS=env.channel_layers(
                os.environ.get("REDIS_URL", DEFAULT_REDIS_URL),
                os.environ.get("CHANNEL_LAYER"),
                os.environ.get("BARE_PREFIX", DEFAULT_PREFIX),
            ),
        )
        django.setup()

    import orjson
    from channels.consumer import get_handler_name
    from channels.generic.websocket import AsyncWebsocketConsumer
    from channels.routing import ProtocolTypeRouter, URLRouter
    from django.urls import path

    class FanoutConsumer(AsyncWebsocketConsumer):
        group = ""

        async def dispatch(self, message: dict[str, Any]) -> None:
            # As the site's MatchConsumer.dispatch: no hop to the shared sync thread to close
            # database connections before every message.
            handler = getattr(self, get_handler_name(message), None)
            if handler is None:
                raise ValueError(f"No handler for message type {message['type']}")
            await handler(message)

        async def send(
            self,
            text_data: str | None = None,
            bytes_data: bytes | None = None,
            close: bool = False,
        ) -> None:
            # As the site's: a client gone while its frame was prepared is not an error.
            try:
                await super().send(text_data=text_data, bytes_data=bytes_data, close=close)
            except OSError:
                pass
            except RuntimeError as exc:
                if "websocket.close" not in str(exc) and "already completed" not in str(exc):
                    raise

        async def connect(self) -> None:
            self.code = str(self.scope["url_route"]["kwargs"]["code"])
            self.group = f"room.{self.code}"
            await self.channel_layer.group_add(self.group, self.channel_name)
            await self.accept()

        async def disconnect(self, code: int) -> None:
            if self.group:
                await self.channel_layer.group_discard(self.group, self.channel_name)

        async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None):
            try:
                frame = orjson.loads(text_data or bytes_data or b"")
            except orjson.JSONDecodeError:
                return
            if not isinstance(frame, dict) or frame.get("t") != "act":
                return
            n = int(frame.get("id", 0))
            sent = float(frame.get("sent", 0.0))
            await self.channel_layer.group_send(
                self.group,
                {"type": "room.update", "id": n, "snapshot": snapshot(self.code, n, sent)},
            )

        async def room_update(self, event: dict[str, Any]) -> None:
            text = orjson.dumps({"t": "update", "v": event["id"], "d": event["snapshot"]})
            await self.send(text_data=text.decode())

    application = ProtocolTypeRouter(
        {"websocket": URLRouter([path("ws/<str:code>/", FanoutConsumer.as_asgi())])}
    )

    # As ludo_site.asgi.tune_gc, last: freeze what start-up made, collect less often.
    if env.parse_bool(os.environ.get("LUDO_GC_TUNE"), default=True):
        gc.collect()
        gc.freeze()
        thresholds = env.gc_thresholds(os.environ.get("LUDO_GC_THRESHOLDS"))
        if thresholds is not None:
            gc.set_threshold(*thresholds)
    return application


_application: Any = None


def __getattr__(name: str) -> Any:
    # `application` is built when a server asks for it, not when the client imports this file.
    global _application
    if name == "application":
        if _application is None:
            _application = build_application()
        return _application
    raise AttributeError(name)


# ------------------------------------------------------------------------------------ client


@dataclass
class Room:
    code: str
    sockets: list[Any] = field(default_factory=list)
    sent: dict[int, float] = field(default_factory=dict)  # action id -> when sent
    got: Counter[int] = field(default_factory=Counter)  # action id -> sockets it reached
    pending: int = 0  # the last action sent
    arrived: asyncio.Event = field(default_factory=asyncio.Event)
    last_change: float = 0.0
    opened: asyncio.Event = field(default_factory=asyncio.Event)


@dataclass
class Totals:
    latencies: list[float] = field(default_factory=list)
    stamps: list[float] = field(default_factory=list)  # when each latency's action was sent
    updates: int = 0
    out_of_order: int = 0
    stalls: int = 0  # actions whose update reached no socket within `--stall` seconds
    actions: int = 0
    window_actions: int = 0
    window_sent: list[tuple[Room, int]] = field(default_factory=list)
    errors: Counter[str] = field(default_factory=Counter)
    dropped: Counter[str] = field(default_factory=Counter)
    open_now: int = 0
    open_at_start: int = 0
    open_at_end: int = 0
    settled: float = 0.0
    start: float = 0.0  # when the measured window began (0 before)
    stop: float = float("inf")  # when it ends
    end: float = 0.0  # when the sockets close (after the drain)
    window: float = 0.0
    cpu: dict[str, float] = field(default_factory=dict)
    load: tuple[float, float, float] = (0.0, 0.0, 0.0)


async def socket(url: str, room: Room, seat: int, totals: Totals) -> None:
    """One of a room's four sockets, open for the whole run (not opened again if closed: a
    drop is counted, and its updates then count as lost)."""
    from websockets.asyncio.client import connect
    from websockets.exceptions import ConnectionClosed

    try:
        ws = await connect(
            f"{url}/ws/{room.code}/", open_timeout=60, ping_interval=None, max_size=None
        )
    except Exception as e:  # noqa: BLE001 - counted
        totals.errors[f"connect: {type(e).__name__}"] += 1
        return
    room.sockets[seat] = ws
    totals.open_now += 1
    if all(s is not None for s in room.sockets):
        room.opened.set()
    last = -1
    try:
        while time.monotonic() < totals.end:
            try:
                # At most 1 s: the run's end moves when the window starts.
                text = await asyncio.wait_for(
                    ws.recv(), timeout=min(1.0, max(0.1, totals.end - time.monotonic()))
                )
            except TimeoutError:
                continue
            now = time.monotonic()
            frame = json.loads(text)
            if frame.get("t") != "update":
                continue
            n = frame["v"]
            totals.updates += 1
            if n <= last:
                totals.out_of_order += 1
            last = max(last, n)
            room.got[n] += 1
            sent = room.sent.get(n)
            if sent is not None and sent >= totals.start > 0:
                totals.latencies.append(now - sent)
                totals.stamps.append(sent)
            room.last_change = max(room.last_change, now)
            if n == room.pending:
                room.arrived.set()
    except ConnectionClosed as e:
        totals.dropped[str(e.rcvd.code if e.rcvd is not None else "none")] += 1
    finally:
        totals.open_now -= 1
        with contextlib.suppress(Exception):
            await ws.close()


async def drive(room: Room, totals: Totals, args: argparse.Namespace) -> None:
    """The room's pace: one action `--pace` s after the room's last update arrived, the seats
    taking turns; an action whose update reaches no socket in `--stall` s is given up."""
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(room.opened.wait(), timeout=max(0.1, totals.end - time.monotonic()))
    room.last_change = time.monotonic()
    n = 0
    while True:
        await asyncio.sleep(max(0.0, room.last_change + args.pace - time.monotonic()))
        now = time.monotonic()
        if now >= totals.end - args.drain:
            return
        n += 1
        ws = room.sockets[n % len(room.sockets)]
        room.pending = n
        room.arrived.clear()
        room.sent[n] = now
        totals.actions += 1
        if totals.start and now >= totals.start and now < totals.stop:
            totals.window_sent.append((room, n))
        with contextlib.suppress(Exception):  # a closed socket shows in its read loop
            await ws.send(json.dumps({"t": "act", "id": n, "sent": now}))
        try:
            await asyncio.wait_for(room.arrived.wait(), timeout=args.stall)
        except TimeoutError:
            totals.stalls += 1
            room.last_change = time.monotonic()


async def run(args: argparse.Namespace) -> tuple[Totals, list[Room]]:
    totals = Totals()
    start = time.monotonic()
    totals.end = start + args.ramp + args.settle + args.settle_pause + args.seconds + args.drain
    rooms = [Room(f"R{os.getpid()}x{i:05d}", sockets=[None] * 4) for i in range(args.rooms)]
    tasks = []
    for i, room in enumerate(rooms):
        # Rooms open one after another over the ramp (their phases staggered so), their four
        # sockets together.
        await asyncio.sleep(max(0.0, start + args.ramp * i / len(rooms) - time.monotonic()))
        tasks += [asyncio.create_task(socket(args.url, room, s, totals)) for s in range(4)]
        tasks.append(asyncio.create_task(drive(room, totals, args)))
    await asyncio.sleep(max(0.0, start + args.ramp - time.monotonic()))
    settle = time.monotonic() + args.settle
    while totals.open_now < 4 * len(rooms) and time.monotonic() < settle:
        await asyncio.sleep(0.25)
    totals.settled = time.monotonic() - start - args.ramp
    await asyncio.sleep(args.settle_pause)
    totals.start = time.monotonic()
    totals.stop = totals.start + args.seconds
    totals.end = totals.stop + args.drain
    totals.open_at_start = totals.open_now
    totals.latencies.clear()
    totals.stamps.clear()
    watch = CpuWatch(args, redis_url=args.redis_url)
    watch.start()
    actions = totals.actions
    await asyncio.sleep(max(0.0, totals.stop - 1.0 - time.monotonic()))
    totals.open_at_end = totals.open_now
    await asyncio.sleep(max(0.0, totals.stop - time.monotonic()))
    totals.window = time.monotonic() - totals.start
    totals.cpu = watch.stop()
    totals.window_actions = totals.actions - actions
    totals.load = os.getloadavg()
    # The window's last updates arrive during the drain; then every socket closes.
    await asyncio.gather(*tasks)
    return totals, rooms


def client(args: argparse.Namespace) -> None:
    if args.ramp is None:
        args.ramp = max(20.0, args.rooms / 25)  # as load_rooms.py
    if not args.client_gc:
        # The client's own collector pauses would show as the server's latency: tuned as the
        # server is (as load_rooms.py).
        gc.collect()
        gc.freeze()
        gc.set_threshold(50_000, 50, 100)
    pauses = client_gc_pauses()
    totals, rooms = asyncio.run(run(args))
    ms = [x * 1000 for x in totals.latencies]
    expected = 4 * len(totals.window_sent)
    reached = sum(room.got[n] for room, n in totals.window_sent)
    print(
        f"rooms {args.rooms}, sockets open {totals.open_at_end}/{4 * args.rooms} "
        f"(at the window's start {totals.open_at_start}, all open {totals.settled:.1f} s after "
        f"the ramp), actions {totals.actions}, updates received {totals.updates}"
    )
    if ms:
        print(
            f"action -> update at each socket: n={len(ms)} p50={statistics.median(ms):.1f} ms "
            f"p99={percentile(ms, 0.99):.1f} ms max={max(ms):.1f} ms"
        )
        slow = percentile(ms, 0.99)
        by_second = Counter(
            int(at - totals.start) for at, x in zip(totals.stamps, ms, strict=True) if x >= slow
        )
        worst = ", ".join(f"s{sec}: {n}" for sec, n in by_second.most_common(5))
        print(f"updates at or over p99 by second sent: {worst}")
    print(
        f"updates lost {expected - reached} of {expected} (actions sent in the window x 4 "
        f"sockets, after a {args.drain:.0f} s drain), out of order {totals.out_of_order}, "
        f"stalled actions {totals.stalls}"
    )
    window = [(at - totals.start, x) for at, x in pauses if at >= totals.start]
    if window:
        longest = max(window, key=lambda p: p[1])
        print(
            f"client GC pauses in the window: {len(window)}, longest {longest[1]:.0f} ms "
            f"(s{int(longest[0])}), total {sum(x for _, x in window):.0f} ms"
        )
    print(
        f"errors {dict(totals.errors) or 'none'}, closed by the server "
        f"{dict(totals.dropped) or 'none'}"
    )
    cpu = ", ".join(f"{who} {share:.0%}" for who, share in totals.cpu.items())
    load = " ".join(f"{x:.2f}" for x in totals.load)
    print(f"CPU (share of one core, measured window): {cpu}; load average {load}")
    if totals.window_actions:
        rate = totals.window_actions / totals.window
        per = ", ".join(
            f"{who} {share * 1000 / rate:.2f}"
            for who, share in totals.cpu.items()
            if who != "client"
        )
        print(
            f"actions in the window {totals.window_actions} ({rate:.1f}/s); "
            f"CPU ms per action: {per}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    c = sub.add_parser("client", help="N rooms of four sockets against a running bare server")
    c.add_argument("rooms", type=int)
    c.add_argument("--url", default="ws://127.0.0.1:8200")
    c.add_argument("--seconds", type=float, default=60, help="measured after the ramp")
    c.add_argument("--pace", type=float, default=2.0, help="seconds between a room's actions")
    c.add_argument(
        "--ramp",
        type=float,
        default=None,
        help="seconds to open every room (default 20, or 1 s for every 25 rooms past 500)",
    )
    c.add_argument(
        "--settle",
        type=float,
        default=60,
        help="after the ramp, wait up to this long for every socket to be open",
    )
    c.add_argument(
        "--settle-pause", type=float, default=2, help="seconds between all open and the window"
    )
    c.add_argument(
        "--drain", type=float, default=3, help="seconds after the window for its last updates"
    )
    c.add_argument(
        "--stall", type=float, default=10, help="give an action up after this many seconds"
    )
    c.add_argument("--server-pid", type=int, default=None, help="the server (and its workers)")
    c.set_defaults(database_cpu=False, watch=[])  # load_rooms.CpuWatch: the server and Redis
    c.add_argument(
        "--redis-url",
        default=os.environ.get("REDIS_URL", DEFAULT_REDIS_URL),
        help="the Redis whose server process's CPU is reported",
    )
    c.add_argument(
        "--client-gc", action="store_true", help="leave this client's garbage collector as is"
    )
    args = parser.parse_args()
    if args.command == "client":
        client(args)


if __name__ == "__main__":
    main()
