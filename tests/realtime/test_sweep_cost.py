"""Issue 27: a sweep with nothing due costs one query for the turns and one for the graces of
every preset (not one per preset), and a process with no event loop of its own (a Celery
worker) broadcasts on one kept loop, so its Redis connection is kept between broadcasts."""

from __future__ import annotations

import json
import threading
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.layers import InMemoryChannelLayer, get_channel_layer

from accounts.models import User
from games.clocks import sweeps
from games.services import broadcast

from .conftest import socket, two_player

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_sweep_with_nothing_due_is_two_queries(
    alice: User, bob: User, django_assert_num_queries: Any
) -> None:
    for _ in range(3):
        two_player(alice, bob)  # live rooms with deadlines ahead, seats connected or not
    with django_assert_num_queries(2):
        assert sweeps.sweep() == 0


@pytest.mark.asyncio
async def test_broadcasts_from_a_thread_without_a_loop_use_one_kept_loop(
    alice: User, bob: User
) -> None:
    match = await database_sync_to_async(two_player)(alice, bob)
    ws = await socket(match.code, None)
    assert (await ws.connect())[0]
    assert json.loads(await ws.receive_from(timeout=5))["t"] == "state"
    loops: list[Any] = []

    def worker() -> None:  # as a Celery worker: no event loop in this process's thread
        for n in (1, 2):
            broadcast.match_changed(
                match.pk, match.seq, [{"kind": "timeout", "corner": 0, "missed": n, "seq": 90 + n}]
            )
            loops.append(broadcast._loop)

    thread = threading.Thread(target=worker)
    thread.start()
    while thread.is_alive():
        await ws.receive_nothing(timeout=0.05)
    thread.join()
    got = []
    while len(got) < 2:
        frame = json.loads(await ws.receive_from(timeout=5))
        if frame["t"] == "update":
            got += [e["missed"] for e in frame["d"]["events"] if e["kind"] == "timeout"]
    assert got == [1, 2]
    if not isinstance(get_channel_layer(), InMemoryChannelLayer):
        # Redis: both went out on the one kept loop (and its layer's kept connection).
        assert loops[0] is not None and loops[0] is loops[1] and not loops[0].is_closed()
    await ws.disconnect()
