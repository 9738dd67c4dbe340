"""One room across server processes (issue 14): four players of one room, two on each of two
uvicorn servers (each with two worker processes, as the README runs it), and a spectator on
each server, play a four-player game to its end on the production setup (tests/stack.py).

Every socket must see every event exactly once and in order, every viewer at a given ``v``
must be sent the same match (only its own seat, legal moves and stock differ), and what the
sockets were sent must be what the database stored: the same events, a match that verifies.
"""

from __future__ import annotations

import asyncio
import json
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

import pytest

from tests.stack import Stack, is_postgres

from .test_e2e import PASSWORD, Player

pytestmark = pytest.mark.e2e

NAMES = ("amy", "bea", "cal", "dev")
# Per viewer: the seat marked "you", the legal moves (the player to play) and the Power stock;
# the watchers count rides on each process's own news. Everything else is the same match.
PER_VIEWER = ("seats", "legal", "stock", "watchers")


@contextmanager
def two_servers() -> Iterator[Stack]:
    database, redis = os.environ.get("DATABASE_URL", ""), os.environ.get("REDIS_URL", "")
    if not is_postgres(database) or not redis:
        pytest.skip("two server processes need DATABASE_URL on PostgreSQL and REDIS_URL")
    setup = (
        "from accounts.models import User\n"
        f"for n in {NAMES!r}: User.objects.create_user(n, password={PASSWORD!r})"
    )
    # The players act at once; the server's own auto-move of a lone legal move waits longer.
    settings = {"LUDO_BOT_DELAY": "5", "LUDO_PASS_PAUSE": "0"}
    with (
        tempfile.TemporaryDirectory(prefix="ludo-across-") as tmp,
        Stack(
            database, redis, Path(tmp), name="across", servers=2, setup=setup, env=settings
        ) as stack,
    ):
        yield stack


class Record:
    """What one socket was sent, in order."""

    def __init__(self, first: dict[str, Any]) -> None:
        self.first = first  # the state it was sent on opening
        self.seqs: list[int] = []  # event seqs, as received
        self.states: dict[int, dict[str, Any]] = {first["v"]: first}  # v -> snapshot sent
        self.updates: dict[int, dict[str, Any]] = {}  # v -> the snapshot its update carried
        self.errors: list[str] = []

    def add(self, frame: dict[str, Any]) -> None:
        if frame["t"] == "state":
            self.states[frame["d"]["v"]] = frame["d"]
        elif frame["t"] == "update":
            self.seqs += [e["seq"] for e in frame["d"]["events"] if "seq" in e]
            self.states[frame["d"]["state"]["v"]] = frame["d"]["state"]
            self.updates[frame["d"]["state"]["v"]] = frame["d"]["state"]
        elif frame["t"] == "error":
            self.errors.append(frame["d"]["code"])


class Spectator:
    """A signed-out visitor watching the room on one server."""

    def __init__(self, ws: Any, record: Record) -> None:
        self.ws = ws
        self.record = record
        self.reader = asyncio.create_task(self._read())

    async def _read(self) -> None:
        with suppress(Exception):
            async for text in self.ws:
                self.record.add(json.loads(text))

    async def close(self) -> None:
        await self.ws.close()
        await self.reader


class Quick(Player):
    """A player who acts as soon as it is their turn (the socket's rate limit allows it)."""

    async def frame(self, data: dict[str, Any]) -> None:
        await asyncio.sleep(0.03)
        await self.ws.send(json.dumps(data))


async def spectator(base: str, code: str) -> Spectator:
    from websockets.asyncio.client import connect

    url = base.replace("http", "ws") + f"/ws/match/{code}/"
    ws = await connect(url, origin=base)  # type: ignore[arg-type]
    first = json.loads(await ws.recv())
    assert first["t"] == "state", first
    return Spectator(ws, Record(first["d"]))


def public(state: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in state.items() if k not in PER_VIEWER}


def test_a_room_of_four_on_two_servers_plays_to_the_end() -> None:
    with two_servers() as stack:
        asyncio.run(asyncio.wait_for(play_across(stack), timeout=600))


async def play_across(stack: Stack) -> None:
    one, two = stack.urls
    servers = [one, two, one, two]  # amy and cal on the first server, bea and dev on the other
    players = [
        await asyncio.to_thread(Quick, base, name)
        for base, name in zip(servers, NAMES, strict=True)
    ]
    made = await asyncio.to_thread(
        players[0].call,
        "POST",
        "/api/matches",
        {"ruleset": "classic", "players": 4, "mode": "friendly"},
    )
    code = made["code"]
    for p in players[1:]:
        await asyncio.to_thread(p.call, "POST", f"/api/matches/{code}/join")
    for p in players:
        await p.open(code)
    watchers = [await spectator(one, code), await spectator(two, code)]
    # What each player was sent (`Player` reads their socket and keeps the latest state).
    seen = [Record(dict(p.state)) for p in players]

    async def follow(p: Player, record: Record) -> None:
        while True:
            frame = await p.frames.get()
            record.add(frame)
            if frame["t"] == "error":
                # A race with the server's auto-move (it moved first): take the new state.
                assert frame["d"]["code"] in ("stale", "not_your_turn"), frame
                await p.frame({"t": "resync"})

    def over() -> bool:
        return all(p.state.get("status") == "finished" for p in players)

    async def play(p: Player) -> None:
        acted_on = -1
        while not over():
            if p.my_turn() and p.state["v"] != acted_on:
                acted_on = p.state["v"]
                await p.act()
            await asyncio.sleep(0.01)

    followers = [asyncio.create_task(follow(p, r)) for p, r in zip(players, seen, strict=True)]
    await asyncio.gather(*(play(p) for p in players))
    final_v = players[0].state["v"]
    # The spectators' last update may still be on its way.
    for _ in range(100):
        if all(max(w.record.states, default=-1) >= final_v for w in watchers):
            break
        await asyncio.sleep(0.1)
    for task in followers:
        task.cancel()
    for p in players:
        await p.close()
    for w in watchers:
        await w.close()

    stored = json.loads(
        stack.manage(
            "shell",
            "-c",
            "import json\n"
            "from games.models import Match, MatchEvent\n"
            f"m = Match.objects.get(code={code!r})\n"
            "print(json.dumps({'seq': m.seq, 'status': m.status, 'events': list("
            "MatchEvent.objects.filter(match=m).order_by('seq').values_list('seq', flat=True))}))",
        )
        .strip()
        .splitlines()[-1]
    )
    assert stored["seq"] == final_v
    assert stored["events"] == list(range(1, final_v + 1))
    records = [*seen, *(w.record for w in watchers)]
    for who, record in zip([*NAMES, "watcher 1", "watcher 2"], records, strict=True):
        start = record.first["v"]
        # Every event after the socket's first state, once each, in order: none lost.
        assert record.seqs == list(range(start + 1, final_v + 1)), who
        assert record.states[final_v]["status"] == "finished", who
    # At each v, every viewer's update carried the same match; the legal moves only to the
    # player to play, and only their own seat marked. (A full state resent later may differ:
    # the database moved on, e.g. a clock restarted, without a new event.)
    for v in sorted(watchers[0].record.updates):
        views = [r.updates[v] for r in records if v in r.updates]
        assert len(views) == len(records), v  # every socket was sent it
        differ = {k for view in views for k in public(view) if public(view)[k] != views[0].get(k)}
        assert not differ, (v, {k: [view.get(k) for view in views] for k in differ})
    for p, record in zip(players, seen, strict=True):
        for v, state in record.states.items():
            assert [s["corner"] for s in state["seats"] if s["you"]] == [p.corner], v
            if state["legal"]:
                assert state["to_play"] == p.corner and state["phase"] == "move", v
    for w in watchers:
        assert all(not s["legal"] for s in w.record.states.values())
    # The stored match replays to what was played, its dice to their commitment (the command
    # fails otherwise).
    stack.manage("verify_match", code)
