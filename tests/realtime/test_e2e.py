"""End to end: the README's production setup (tests/stack.py: uvicorn with DEBUG off, a Celery
worker and Celery beat, PostgreSQL and Redis) and two players on real WebSockets.

Everything the stack starts is torn down when the test ends, pass or fail. The clocks run five
times faster through the environment (``LUDO_TIME_SCALE=0.2``: a 4 s turn; beat ticks every
0.2 s), never through the code. The tests wait for states (an event, a status), never for a
time to pass; where two clocks meet, the rules' own numbers decide the order (see
`disconnect_past_grace`).
"""

from __future__ import annotations

import asyncio
import http.cookiejar
import json
import os
import tempfile
import time
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

import pytest

from tests.stack import Stack, is_postgres

pytestmark = pytest.mark.e2e

SCALE = 0.2
TURN = 20 * SCALE  # classic's and mensch's turn: 4 s
PASSWORD = "e2e-password-1"
NAMES = ("ann", "ben", "cat", "dan")


@contextmanager
def live_stack() -> Iterator[Stack]:
    database, redis = os.environ.get("DATABASE_URL", ""), os.environ.get("REDIS_URL", "")
    if not is_postgres(database):
        pytest.skip("end-to-end needs DATABASE_URL on PostgreSQL (bash .ci/run sets it)")
    if not redis:
        pytest.skip("end-to-end needs REDIS_URL: Celery and the channel layer run on Redis")
    setup = (
        "from accounts.models import User\n"
        f"for n in {NAMES!r}: User.objects.create_user(n, password={PASSWORD!r})"
    )
    settings = {"LUDO_TIME_SCALE": str(SCALE), "LUDO_BOT_DELAY": "0.3", "LUDO_SWEEP_EVERY": "0.2"}
    with (
        tempfile.TemporaryDirectory(prefix="ludo-e2e-") as tmp,
        Stack(database, redis, Path(tmp), name="e2e", setup=setup, env=settings) as stack,
    ):
        yield stack


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
                    # "pause": the die passed to this player after a roll no pawn could use,
                    # and the server takes no action until the pause ends (nothing is sent
                    # when it does): act again, as a person pressing again would.
                    assert frame["d"]["code"] in ("stale", "not_your_turn", "pause"), frame
                    if frame["d"]["code"] == "pause":
                        acted_on = -1
                        await asyncio.sleep(0.2)
                    await self.frame({"t": "resync"})


def events_of(frame: dict[str, Any]) -> list[dict[str, Any]]:
    return frame["d"]["events"] if frame["t"] == "update" else []


async def room(host: Player, guest: Player, ruleset: str = "classic", *, join: bool = True) -> str:
    made = await asyncio.to_thread(
        host.call, "POST", "/api/matches", {"ruleset": ruleset, "players": 2, "mode": "friendly"}
    )
    code = made["code"]
    if join:
        await join_room(guest, code)
    return code


async def join_room(guest: Player, code: str) -> None:
    joined = await asyncio.to_thread(guest.call, "POST", f"/api/matches/{code}/join")
    assert joined["corner"] == 2


def seat(state: dict[str, Any], corner: int) -> dict[str, Any]:
    return next(s for s in state["seats"] if s["corner"] == corner)


async def while_moving(play: Any, watched: Player, quiet: float = 30) -> None:
    """Await `play` (the players playing) while the match moves on: what fails is a match whose
    version stands still for `quiet` seconds (how long a whole game takes depends on the dice
    and on how busy the machine is; a game always ends, and then `play` does too)."""
    task = asyncio.ensure_future(play)
    seen, since = watched.state.get("v"), time.monotonic()
    try:
        while not task.done():
            await asyncio.wait({task}, timeout=0.5)
            if watched.state.get("v") != seen:
                seen, since = watched.state.get("v"), time.monotonic()
            assert time.monotonic() - since < quiet, f"the match stood at v={seen} for {quiet} s"
    finally:
        if not task.done():
            task.cancel()
            with suppress(asyncio.CancelledError):
                await task
    task.result()


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
        lambda f: any(e["kind"] == "timeout" for e in events_of(f)), timeout=3 * TURN + 10
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
    await while_moving(
        asyncio.gather(
            ann.play(lambda: ann.state["v"] > 40),
            ben.play(lambda: ann.state["v"] > 40),
        ),
        ann,  # a game that stops moving fails here instead of hanging the run
    )
    await ann.close()
    gone = await ben.next(lambda f: {"kind": "disconnected", "corner": 0} in events_of(f))
    assert seat(gone["d"]["state"], 0)["connected"] is False
    back = await ann.open(code)  # at once: well inside the grace
    assert seat(back["d"], 0) == {**seat(back["d"], 0), "you": True, "connected": True}
    assert back["d"]["status"] == "active"
    await ben.next(lambda f: {"kind": "connected", "corner": 0} in events_of(f))
    # To the end.
    over = lambda: ann.state.get("status") == "finished"  # noqa: E731
    await while_moving(
        asyncio.gather(ann.play(over), ben.play(lambda: ben.state.get("status") == "finished")),
        ann,
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


async def disconnect_past_grace(cat: Player, dan: Player) -> None:
    """mensch: Cat's connection drops and stays down; after the grace the computer plays her
    turns until she is back, and she takes her seat back by opening the room again.

    Two clocks meet here, and the rules' numbers (docs/rules.md) order them, not the test's
    pace: her grace (45 s) starts from the match's start, as her first turn does (she
    disconnects before Dan joins), and ends before a third missed turn could (3 x 20 s, plus
    Dan's turns), after which the computer plays and she misses no more turns. The test waits
    only for states."""
    code = await room(cat, dan, "mensch", join=False)
    await cat.open(code)
    await cat.close()
    await join_room(dan, code)  # the match starts: red (Cat) to play
    await dan.open(code)
    assert seat(dan.state, 0)["connected"] is False
    # Dan plays his turns until the computer has Cat's seat, then a few turns more.
    # (This bound is for a hung run only: the clocks' order is what is asserted.)
    await asyncio.wait_for(dan.play(lambda: seat(dan.state, 0)["away"]), timeout=150)
    away_at = dan.state["v"]
    assert seat(dan.state, 0)["missed_turns"] < 3 and not seat(dan.state, 0)["left"]
    await while_moving(dan.play(lambda: dan.state["v"] >= away_at + 8), dan)
    assert seat(dan.state, 0)["away"] and not seat(dan.state, 0)["left"]
    assert dan.state["status"] == "active"
    # Cat is back: her seat is hers again, and Dan hears it.
    back = await cat.open(code)
    assert seat(back["d"], 0) == {
        **seat(back["d"], 0), "you": True, "connected": True, "away": False, "left": False,
    }  # fmt: skip
    await dan.next(lambda f: {"kind": "back", "corner": 0} in events_of(f))
    record = await asyncio.to_thread(dan.call, "GET", f"/api/matches/{code}/replay")
    assert not [e for e in record["events"] if e["kind"] == "leave"]
    assert max([e["missed"] for e in record["events"] if e["kind"] == "timeout"] or [0]) < 3
    await cat.close()
    await dan.close()


def test_two_players_through_uvicorn_celery_and_redis() -> None:
    with live_stack() as stack:
        base = stack.urls[0]

        async def main() -> None:
            players = [await asyncio.to_thread(Player, base, n) for n in ("ann", "ben")]
            await full_match(*players)
            others = [await asyncio.to_thread(Player, base, n) for n in ("cat", "dan")]
            await asyncio.gather(three_timeouts(*players), disconnect_past_grace(*others))

        asyncio.run(main())
