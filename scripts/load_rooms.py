"""Load figures for the real-time layer: N rooms of WebSocket players at a human pace.

    DATABASE_URL=... REDIS_URL=... .venv/bin/python scripts/load_rooms.py 100 \\
        --url http://127.0.0.1:8000 --seconds 60

Against a running site (daphne or uvicorn, a Celery worker and beat, on the same DATABASE_URL
as this script: use a scratch database), it opens N friendly rooms of four signed-in players
(users, sessions and rooms are made here through the services), and in every room the player
to act rolls or moves `--pace` seconds after the room's last change (a lone legal move is left
to the server's auto-move, as a person would). It prints:

- p50/p99/max of the time from a player sending an action to the update for it arriving,
  measured at every one of the room's four sockets;
- events lost (a gap in the event seq a socket saw) and out of order (a seq seen twice or
  going back), over every update every socket received, the server's own moves included;
- the error frames received, by code.

A benchmark, not a test: it says how the site behaves on this machine.
"""

from __future__ import annotations

import argparse
import asyncio
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
    sent: dict[int, float] = field(default_factory=dict)  # v acted on -> when sent
    last_change: float = 0.0


@dataclass
class Totals:
    latencies: list[float] = field(default_factory=list)
    updates: int = 0
    lost: int = 0
    out_of_order: int = 0
    actions: int = 0
    errors: Counter[str] = field(default_factory=Counter)
    closed: int = 0
    connected: int = 0


def make_rooms(n: int, players: int) -> list[Room]:
    """Users, sessions and started rooms, through the services (as the API would)."""
    import django

    django.setup()
    from django.conf import settings
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
    from django.contrib.sessions.backends.db import SessionStore

    from accounts.models import User
    from games import services

    tag = f"load{int(time.time())}"
    users = User.objects.bulk_create(
        [User(username=f"{tag}-{i}", password="!") for i in range(n * players)]
    )
    backend = settings.AUTHENTICATION_BACKENDS[0]
    rooms = []
    for r in range(n):
        seated = users[r * players : (r + 1) * players]
        cookies = []
        for user in seated:
            session = SessionStore()
            session[SESSION_KEY] = str(user.pk)
            session[BACKEND_SESSION_KEY] = backend
            session[HASH_SESSION_KEY] = user.get_session_auth_hash()
            session.create()
            cookies.append(f"{settings.SESSION_COOKIE_NAME}={session.session_key}")
        match = services.match_create(
            ruleset="classic", players=players, mode="friendly", host=seated[0]
        )
        for user in seated[1:]:
            services.match_join(code=match.code, user=user)
        rooms.append(Room(match.code, cookies))
    return rooms


async def player(
    url: str, room: Room, seat: int, totals: Totals, args: argparse.Namespace, stop: float
) -> None:
    from websockets.asyncio.client import connect

    ws_url = url.replace("http", "ws", 1) + f"/ws/match/{room.code}/"
    try:
        ws = await connect(
            ws_url,
            origin=url,  # type: ignore[arg-type]
            additional_headers={"Cookie": room.cookies[seat]},
            open_timeout=60,
            ping_interval=None,
        )
    except Exception as e:  # noqa: BLE001 - counted, not fatal
        totals.errors[f"connect: {type(e).__name__}"] += 1
        return
    totals.connected += 1
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
        await ws.send(json.dumps(frame))

    try:
        while time.monotonic() < stop:
            try:
                text = await asyncio.wait_for(ws.recv(), timeout=max(0.1, stop - time.monotonic()))
            except TimeoutError:
                break
            now = time.monotonic()
            frame = json.loads(text)
            if frame["t"] == "error":
                totals.errors[frame["d"]["code"]] += 1
                await ws.send('{"t": "resync"}')
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
        await ws.close()
        totals.closed += 1


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def run(args: argparse.Namespace, rooms: list[Room]) -> Totals:
    totals = Totals()
    start = time.monotonic()
    stop = start + args.ramp + args.seconds
    tasks = []
    for i, room in enumerate(rooms):
        # Rooms open one after another over the ramp, their players together.
        await asyncio.sleep(max(0.0, start + args.ramp * i / len(rooms) - time.monotonic()))
        room.last_change = time.monotonic()
        for seat in range(len(room.cookies)):
            tasks.append(asyncio.create_task(player(args.url, room, seat, totals, args, stop)))
    await asyncio.gather(*tasks)
    return totals


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("rooms", type=int)
    parser.add_argument("--url", default="http://127.0.0.1:8000")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--pace", type=float, default=2.0, help="seconds between a room's actions")
    parser.add_argument("--seconds", type=float, default=60, help="measured after the ramp")
    parser.add_argument("--ramp", type=float, default=20, help="seconds to open every room")
    args = parser.parse_args()
    made = time.monotonic()
    rooms = make_rooms(args.rooms, args.players)
    print(f"{len(rooms)} rooms of {args.players} made in {time.monotonic() - made:.1f} s")
    totals = asyncio.run(run(args, rooms))
    ms = [x * 1000 for x in totals.latencies]
    print(
        f"rooms {args.rooms}, sockets {totals.connected}/{args.rooms * args.players}, "
        f"actions {totals.actions}, updates received {totals.updates}"
    )
    if ms:
        print(
            f"action -> update at each socket: n={len(ms)} p50={statistics.median(ms):.1f} ms "
            f"p99={percentile(ms, 0.99):.1f} ms max={max(ms):.1f} ms"
        )
    print(f"events lost {totals.lost}, out of order {totals.out_of_order}")
    print(f"errors {dict(totals.errors) or 'none'}")


if __name__ == "__main__":
    main()
