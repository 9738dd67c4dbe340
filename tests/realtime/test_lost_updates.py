"""Updates that cannot be lost (issue 12): a socket whose snapshot read fails resyncs instead
of dropping the update; a broadcast that fails is retried as a resync; a socket left behind
for any reason is caught up by the heartbeat, which otherwise sends a ``ping``; socket counts
of a killed server process stop counting within seconds and its seats are then marked
disconnected, so the grace starts.

Faults are injected where they happen (a read that raises, a channel layer whose sends fail
for a while); the database and the layer are the real ones of the real-time tests.
"""

from __future__ import annotations

import time
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer

from accounts.models import User
from games import services
from games.live import presence, reads
from games.models import Match, Seat
from games.services import broadcast
from games.services.reactions import CHOICES

from .conftest import socket, two_player

pytestmark = pytest.mark.django_db(transaction=True)


async def opened(code: str, user: User | None) -> tuple[Any, dict[str, Any]]:
    ws = await socket(code, user)
    assert (await ws.connect())[0]
    first = await ws.receive_json_from(timeout=5)
    assert first["t"] == "state"
    return ws, first["d"]


async def next_with_v(ws: Any, v: int, timeout: float = 10) -> dict[str, Any]:
    """The next state or update frame whose snapshot is at `v` at least (others skipped)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if await ws.receive_nothing(timeout=0.05):
            continue
        got = await ws.receive_json_from(timeout=5)
        snap = got["d"] if got["t"] == "state" else got["d"].get("state", {})
        if got["t"] in ("state", "update") and snap.get("v", -1) >= v:
            return got
    raise AssertionError(f"no frame at v{v} within {timeout} s")


@database_sync_to_async
def react(match: Match, user: User) -> int:
    services.match_react(match_id=match.pk, user=user, reaction=next(iter(CHOICES)))
    return Match.objects.get(pk=match.pk).seq


@database_sync_to_async
def roll(match: Match, user: User) -> int:
    match = Match.objects.get(pk=match.pk)
    services.match_roll(match_id=match.pk, user=user, seq=match.seq, action_id=f"r{match.seq}")
    return Match.objects.get(pk=match.pk).seq


@pytest.mark.asyncio
async def test_a_failed_snapshot_read_resyncs_instead_of_dropping(
    alice: User, bob: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    match = await database_sync_to_async(two_player)(alice, bob)
    ws, _ = await opened(match.code, bob)
    real = reads.load_now
    failures = {"left": 1}

    def blip(match_id: int) -> Any:
        if failures["left"]:
            failures["left"] -= 1
            raise ConnectionError("database blip")
        return real(match_id)

    monkeypatch.setattr(reads, "load_now", blip)
    # A reaction's update comes without the snapshot a roll's carries: the socket reads it.
    v = await react(match, alice)
    caught_up = await next_with_v(ws, v, timeout=5)
    assert failures["left"] == 0  # the read did fail once
    assert caught_up["t"] == "state"  # the full state, resent
    await ws.disconnect()


@pytest.mark.asyncio
async def test_a_failed_broadcast_is_retried_as_a_resync(
    alice: User, bob: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    match = await database_sync_to_async(two_player)(alice, bob)
    ws, _ = await opened(match.code, bob)
    layer = get_channel_layer()
    real = layer.group_send
    failures = {"left": 2}  # the update, and the first retry

    async def down(group: str, message: dict[str, Any]) -> None:
        if failures["left"]:
            failures["left"] -= 1
            raise ConnectionError("Redis unreachable")
        await real(group, message)

    monkeypatch.setattr(layer, "group_send", down)
    monkeypatch.setattr(broadcast, "RETRY_EVERY", 0.2)
    v = await roll(match, alice)
    caught_up = await next_with_v(ws, v, timeout=5)
    assert caught_up["t"] == "state" and failures["left"] == 0
    assert not broadcast.owed()
    await ws.disconnect()


@pytest.mark.asyncio
async def test_the_heartbeat_catches_up_a_socket_left_behind_and_pings(
    alice: User, bob: User, settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings.LUDO_HEARTBEAT_SECONDS = 0.3
    match = await database_sync_to_async(two_player)(alice, bob)
    ws, first = await opened(match.code, bob)
    ping = await ws.receive_json_from(timeout=3)
    while ping["t"] != "ping":
        ping = await ws.receive_json_from(timeout=3)
    assert ping["v"] == first["v"]
    # An update lost with no trace (a process killed between commit and broadcast).
    monkeypatch.setattr(broadcast, "match_changed", lambda *a, **k: None)
    v = await roll(match, alice)
    caught_up = await next_with_v(ws, v, timeout=3)
    assert caught_up["t"] == "state"
    await ws.disconnect()


def test_a_killed_process_stops_counting_and_its_seats_are_marked_gone(
    alice: User, bob: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.servers import own_redis

    monkeypatch.setattr(presence, "PROCESS_TTL", 1)
    match = two_player(alice, bob)
    with own_redis() as url:
        killed = presence.RedisStore(url, "crash", process="killed")
        restarted = presence.RedisStore(url, "crash", process="restarted")
        presence.reset_store(killed)
        presence.seat_connected(match_id=match.pk, user=alice)
        assert Seat.objects.get(match=match, corner=0).connected
        assert restarted.count(match.pk, alice.pk) == 1  # shared while the process lives
        presence.reset_store(restarted)  # the killed process refreshes nothing from now on
        time.sleep(1.3)
        assert restarted.count(match.pk, alice.pk) == 0
        monkeypatch.setattr(presence, "_orphans_at", 0.0)
        # Found once, marked when still so a liveness period later (every live process has
        # written its counts again by then: a Redis restarted without its data loses them).
        assert presence.sweep_orphans(batch=10) == 0
        assert Seat.objects.get(match=match, corner=0).connected
        time.sleep(1.1)
        monkeypatch.setattr(presence, "_orphans_at", 0.0)
        assert presence.sweep_orphans(batch=10) == 1
        seat = Seat.objects.get(match=match, corner=0)
        assert not seat.connected and seat.disconnected_at is not None  # the grace runs
        # A live process's sockets are not touched, even when Redis lost its counts: the
        # process's heartbeat writes them again.
        presence.seat_connected(match_id=match.pk, user=bob)
        restarted.heartbeat({(match.pk, bob.pk): 1})  # its counts written in full
        restarted.client.flushdb()
        restarted.heartbeat({(match.pk, bob.pk): 1})  # Redis lost them: written again
        assert restarted.count(match.pk, bob.pk) == 1
        for _ in range(2):
            monkeypatch.setattr(presence, "_orphans_at", 0.0)
            assert presence.sweep_orphans(batch=10) == 0
            time.sleep(1.1)
            restarted.heartbeat({(match.pk, bob.pk): 1})
        assert Seat.objects.get(match=match, corner=2).connected
        presence.reset_store(None)


def test_the_heartbeat_writes_every_count_only_now_and_then(
    alice: User, bob: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 27: a process's beat writes its liveness key; all its counts (two commands per
    player and room: 4,000 at 1,000 rooms) only when its mark of the last full write is gone,
    every `REWRITE_SECONDS` or when Redis lost it. A count gone wrong between is put right by
    the next full write."""
    from tests.servers import own_redis

    monkeypatch.setattr(presence, "REWRITE_SECONDS", 1)
    with own_redis() as url:
        store = presence.RedisStore(url, "beat", process="p")
        counts = {(7, alice.pk): 2, (7, bob.pk): 1}
        store.heartbeat(counts)
        assert (store.count(7, alice.pk), store.count(7, bob.pk)) == (2, 1)
        store.client.hset(store._key(7, alice.pk), "p", 5)  # e.g. a decrement lost in a blip
        store.client.config_resetstat()
        store.heartbeat(counts)
        assert store.client.info("commandstats").get("cmdstat_hset") is None
        assert store.count(7, alice.pk) == 5  # not yet put right
        time.sleep(1.1)
        store.heartbeat(counts)
        assert store.count(7, alice.pk) == 2  # the full write came round
        store.client.flushdb()  # Redis restarted without its data
        store.heartbeat(counts)
        assert (store.count(7, alice.pk), store.count(7, bob.pk)) == (2, 1)
