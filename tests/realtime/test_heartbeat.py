"""Issue 27: the heartbeat is staggered. Each room beats once a period at a phase of its own,
so one slice of the heartbeat pings only the rooms whose turn it is, never every socket of
the process at once."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest
from channels.db import database_sync_to_async

from accounts.models import User
from games.live.hub import HEARTBEAT_SLICES, Hub
from games.live.room import Room
from games.live.viewer import Viewer

from .conftest import two_player

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.mark.asyncio
async def test_a_slice_beats_only_the_rooms_due_and_phases_spread(
    alice: User, bob: User, settings: Any
) -> None:
    settings.LUDO_HEARTBEAT_SECONDS = 5.0
    hub = Hub()
    sent: dict[int, list[dict[str, Any]]] = {}
    matches = [await database_sync_to_async(two_player)(alice, bob) for _ in range(4)]
    for match in matches:
        room = hub.rooms[match.pk] = Room(match.pk, hub)
        log = sent[match.pk] = []

        async def send(text: str, log: list[dict[str, Any]] = log) -> None:
            log.append(json.loads(text))

        viewer = Viewer(user=None, send=send)
        viewer.sent_v = match.seq
        viewer.sent_at = 0.0  # sent nothing for a long time
        room.viewers.add(viewer)
    now = time.monotonic()
    # New rooms beat first a period after they open, each at its own phase.
    phases = [room.next_beat - now for room in hub.rooms.values()]
    assert all(4.9 <= p <= 10.1 for p in phases) and len(set(phases)) == len(phases)
    due, later = matches[0].pk, matches[1].pk
    for room in hub.rooms.values():
        room.next_beat = now + 60
    hub.rooms[due].next_beat = now - 0.01
    hub.rooms[later].next_beat = now + 5.0 / HEARTBEAT_SLICES
    await hub.beat()
    assert [f["t"] for f in sent[due]] == ["ping"] and sent[due][0]["v"] == matches[0].seq
    assert all(not sent[m.pk] for m in matches[1:])
    assert hub.rooms[due].next_beat >= now + 4.9  # next in a period
    await hub.beat(every=True)
    assert all(len(sent[m.pk]) >= 1 for m in matches)


@pytest.mark.asyncio
async def test_a_socket_sent_a_frame_lately_is_not_pinged(
    alice: User, bob: User, settings: Any
) -> None:
    """Issue 27: a ping only to a socket that was sent nothing for half a period (an update
    carries its `v` too); a socket still hears a frame at least every 1.5 periods."""
    settings.LUDO_HEARTBEAT_SECONDS = 5.0
    match = await database_sync_to_async(two_player)(alice, bob)
    room = Room(match.pk, Hub())
    sent: dict[str, list[str]] = {"busy": [], "quiet": []}
    viewers = {}
    for name in sent:

        async def send(text: str, log: list[str] = sent[name]) -> None:
            log.append(json.loads(text)["t"])

        viewers[name] = viewer = Viewer(user=None, send=send)
        viewer.sent_v = match.seq
        room.viewers.add(viewer)
    now = time.monotonic()
    viewers["busy"].sent_at = now - 2.0  # an update two seconds ago
    viewers["quiet"].sent_at = now - 2.6
    await room.beat(match.seq)
    assert sent == {"busy": [], "quiet": ["ping"]}
    assert viewers["quiet"].sent_at >= now  # sending marks the time
