"""Issue 27: a live room has one owner. Its sockets' rolls and moves are played from the
owner's memory and group-committed (no read per action), every socket hears every update
once and in order, and the match verifies; an intent on another process goes to the owner
over the channel layer; when the owner dies its lease lapses and another process takes the
room over from the database. PostgreSQL only (SQLite keeps the service's locked path)."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import pytest
from channels.db import database_sync_to_async
from django.db import connection

from accounts.models import User
from games.live import owner
from games.live.wire import Intent
from games.match.errors import ServiceError
from games.match.verify import verify_match
from games.models import Match, MatchEvent

from .conftest import socket, two_player

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(connection.vendor != "postgresql", reason="owned rooms are PostgreSQL's"),
]


async def next_frame(ws: Any, timeout: float = 10) -> dict[str, Any]:
    while True:
        got = json.loads(await ws.receive_from(timeout=timeout))
        if got["t"] != "ping":
            return got


def intent(snap: dict[str, Any], n: int) -> dict[str, Any]:
    if snap["phase"] == "roll":
        return {"t": "roll", "v": snap["v"], "id": f"a{n}"}
    best = snap["legal"][0]
    return {"t": "move", "v": snap["v"], "id": f"a{n}", "d": {"pawn": best["pawn"]}}


@pytest.fixture(autouse=True)
def _quick(settings: Any) -> None:
    settings.LUDO_OWNED_ROOMS = True  # off by default (ludo_site/settings.py)
    settings.LUDO_PASS_PAUSE = 0.0
    settings.LUDO_WS_RATE, settings.LUDO_WS_BURST = 1000.0, 1000  # a test plays fast


@pytest.mark.asyncio
async def test_a_rooms_actions_are_played_from_the_owners_memory(alice: User, bob: User) -> None:
    match = await database_sync_to_async(two_player)(alice, bob)
    sockets = {0: await socket(match.code, alice), 2: await socket(match.code, bob)}
    snaps: dict[int, dict[str, Any]] = {}
    seen: dict[int, list[int]] = {0: [], 2: []}
    for corner, ws in sockets.items():
        assert (await ws.connect())[0]
        first = await next_frame(ws)
        assert first["t"] == "state"
        snaps[corner] = first["d"]
    # Both seats connected (presence moves the revision: the owner reads the match again
    # once); then every action comes from memory.
    desk = owner.desk()
    await desk.start()
    done = 0
    for n in range(30):
        snap = max(snaps.values(), key=lambda s: s["v"])
        # The seat to play's own view: its legal moves (the other seat's may not list them).
        snap = snaps.get(snap["to_play"], snap)
        if snap["status"] != "active" or not (snap["phase"] == "roll" or snap["legal"]):
            break
        to_play = snap["to_play"]
        await sockets[to_play].send_to(text_data=json.dumps(intent(snap, n)))
        for corner, ws in sockets.items():
            while True:
                got = await next_frame(ws)
                assert got["t"] == "update", got
                for e in got["d"]["events"]:
                    if isinstance(e.get("seq"), int):
                        seen[corner].append(e["seq"])
                snaps[corner] = got["d"]["state"]
                if any(isinstance(e.get("seq"), int) for e in got["d"]["events"]):
                    break
        done += 1
    stats = desk.owner.stats
    assert done >= 10
    assert stats.batched >= done - 2, stats  # the first (after the presence news) may read
    assert stats.loads <= 3, stats
    stored = await database_sync_to_async(Match.objects.get)(pk=match.pk)
    events = await database_sync_to_async(
        lambda: list(
            MatchEvent.objects.filter(match=stored, seq__gt=min(seen[0]) - 1)
            .order_by("seq")
            .values_list("seq", flat=True)
        )
    )()
    for corner in sockets:
        assert seen[corner] == events  # every update once, in order, as stored
    assert (await database_sync_to_async(verify_match)(stored)).ok
    for ws in sockets.values():
        await ws.disconnect()


@pytest.mark.asyncio
async def test_another_process_hands_its_intent_to_the_owner_and_takes_over_when_it_dies(
    settings: Any, alice: User, bob: User
) -> None:
    if not settings.REDIS_URL:
        pytest.skip("leases across processes live in Redis")
    match = await database_sync_to_async(two_player)(alice, bob)
    # Two processes' desks (each its inbox, its leases, its writer) on this one loop.
    first, second = owner.Desk(), owner.Desk()
    await first.start()
    await second.start()
    try:
        assert await first.owner_of(match.pk) == first.me
        assert await second.owner_of(match.pk) == first.me
        state = (await database_sync_to_async(Match.objects.get)(pk=match.pk)).state()
        assert state is not None and state.to_play == 0
        # alice's roll on the second process: played by the first, from its memory.
        await second.act(match.pk, alice, Intent("roll", match.seq, "x1"))
        assert first.owner.stats.batched == 1 and second.owner.stats.batched == 0
        stored = await database_sync_to_async(Match.objects.get)(pk=match.pk)
        assert stored.seq > match.seq
        # The same again, at the old version: the owner answers stale (repeated).
        again = await second.act(match.pk, alice, Intent("roll", match.seq, "x1"))
        assert again is not None and again.repeated
        # The first process dies (kill -9: no release, no more renewals, no answers).
        for task in first.tasks:
            task.cancel()
        died = time.monotonic()
        snap = stored.state()
        assert snap is not None
        legal = snap.legal
        if snap.phase == "move" and legal:
            nxt = Intent("move", stored.seq, "x2", pawn=legal[0].pawn, corner=legal[0].corner)
            who = alice if snap.to_play == 0 else bob
        else:
            nxt = Intent("roll", stored.seq, "x2")
            who = alice if snap.to_play == 0 else bob
        try:
            await second.act(match.pk, who, nxt)
        except ServiceError as e:  # e.g. the die passed on meanwhile: the owner decided
            assert e.code in ("stale", "not_your_turn", "pause"), e
        took = time.monotonic() - died
        assert match.pk in second.owned  # taken over once the lease lapsed
        assert took <= owner.LEASE_SECONDS + owner.FORWARD_TIMEOUT + 2, took
        after = await database_sync_to_async(Match.objects.get)(pk=match.pk)
        assert after.seq >= stored.seq
        assert (await database_sync_to_async(verify_match)(after)).ok
    finally:
        first.tasks = []
        await first.stop()
        await second.stop()
        await asyncio.sleep(0)
