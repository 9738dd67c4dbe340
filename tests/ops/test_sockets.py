"""The sockets as the operator sees them (ops.sockets, around the real ASGI app): a socket
counted open and then closed, the client's frames by type, the action handed to the services,
the time from the action to its update, and the socket's log line with its request id and
room code (LOG_FORMAT=json)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from channels.db import database_sync_to_async
from prometheus_client import REGISTRY

from accounts.models import User
from tests.ops.test_endpoints import log_lines  # noqa: F401 - a fixture
from tests.realtime.conftest import alice, bob, own_layer_and_timers, socket, two_player  # noqa: F401

pytestmark = pytest.mark.django_db(transaction=True)


def sample(name: str, **labels: str) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


@pytest.mark.asyncio
async def test_a_socket_is_counted_and_its_log_line_names_the_room(
    alice: User,  # noqa: F811
    bob: User,  # noqa: F811
    log_lines: Any,  # noqa: F811
) -> None:
    match = await database_sync_to_async(two_player)(alice, bob)
    before = {
        "open": sample("ludo_sockets_open"),
        "opened": sample("ludo_sockets_opened_total", route="match"),
        "frames": sample("ludo_socket_frames_total", t="roll"),
        "actions": sample("ludo_actions_total", kind="roll"),
        "latency": sample("ludo_update_latency_seconds_count"),
    }
    ws = await socket(match.code, alice)
    connected, _ = await ws.connect()
    assert connected
    state = json.loads(await ws.receive_from(timeout=10))
    assert state["t"] == "state"
    assert sample("ludo_sockets_open") == before["open"] + 1
    assert sample("ludo_sockets_opened_total", route="match") == before["opened"] + 1
    await ws.send_to(json.dumps({"t": "roll", "v": state["v"], "id": "ops-1"}))
    while True:
        sent = json.loads(await ws.receive_from(timeout=10))
        if sent["t"] == "update":
            break
    assert sample("ludo_socket_frames_total", t="roll") == before["frames"] + 1
    assert sample("ludo_actions_total", kind="roll") == before["actions"] + 1
    assert sample("ludo_update_latency_seconds_count") == before["latency"] + 1
    await ws.disconnect()
    assert sample("ludo_sockets_open") == before["open"]
    lines = [json.loads(line) for line in log_lines.getvalue().splitlines()]
    closed = [line for line in lines if line["logger"] == "ludo.sockets"]
    assert closed and closed[-1]["room"] == match.code and len(closed[-1]["request_id"]) == 32
    assert closed[-1]["message"].startswith("socket closed after")
