"""The sockets that mostly listen (the lobby's and an event's standings) hold the match
socket's bounds: a frame over `FRAME_BYTES` is refused, a flood is answered once with
``rate_limited`` and dropped, and an account opens at most ``SOCKETS_PER_SESSION`` of each kind
in one process (then ``too_many_sockets`` and close code 4429)."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.layers import channel_layers
from channels.testing import WebsocketCommunicator
from django.db import connections
from django.test import Client

from accounts.models import User
from audit.clock import db_now
from ludo_site import env
from ludo_site.asgi import application
from ops.listening import FRAME_BYTES
from tournaments import services

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]
HEADERS = [(b"origin", b"http://localhost"), (b"host", b"localhost")]


@pytest.fixture(autouse=True)
def layer(settings: Any) -> Iterator[None]:
    settings.CHANNEL_LAYERS = env.channel_layers(
        settings.REDIS_URL, os.environ.get("CHANNEL_LAYER"), f"test-{uuid.uuid4().hex[:12]}"
    )
    settings.SOCKETS_PER_SESSION = 2
    channel_layers.backends = {}
    yield
    channel_layers.backends = {}


@database_sync_to_async
def signed_in_cookie() -> bytes:
    client = Client()
    client.force_login(User.objects.create(username=f"ls{uuid.uuid4().hex[:8]}"))
    return f"sessionid={client.cookies['sessionid'].value}".encode()


@database_sync_to_async
def an_event() -> str:
    t = services.create(
        name="Listening", kind="arena", queue="duel", starts_at=db_now() + timedelta(hours=1),
        minutes=30,
    )  # fmt: skip
    return str(t.code)


async def check_bounds(path: str, cookie: bytes, first: str, error: Any) -> None:
    """`first`: the key of the frame each socket gets on connect; `error(frame)`: its error
    code, or None."""
    headers = [*HEADERS, (b"cookie", cookie)]
    sockets = [WebsocketCommunicator(application, path, headers=headers) for _ in range(3)]
    for ws in sockets[:2]:
        assert (await ws.connect())[0]
        assert first in await ws.receive_json_from(timeout=10)
    third = sockets[2]
    await third.connect()
    assert error(await third.receive_json_from(timeout=10)) == "too_many_sockets"
    assert (await third.receive_output(timeout=5))["code"] == 4429

    ws = sockets[0]
    await ws.send_to(text_data='{"type": "status", "pad": "' + "x" * FRAME_BYTES + '"}')
    assert error(await ws.receive_json_from(timeout=10)) == "too_large"
    for _ in range(20):
        await ws.send_to(text_data='{"type": "status"}')
    codes = []
    while not await ws.receive_nothing(timeout=0.5):
        codes.append(error(await ws.receive_json_from()))
    assert codes.count("rate_limited") == 1, codes
    assert len(codes) < 10, codes  # the flood dropped, not answered frame by frame

    await sockets[1].disconnect()  # a closed socket frees its place
    again = WebsocketCommunicator(application, path, headers=headers)
    assert (await again.connect())[0]
    assert first in await again.receive_json_from(timeout=10)
    for each in (ws, again):
        await each.disconnect()
    await database_sync_to_async(connections.close_all)()


async def test_the_lobby_socket_bounds_its_frames_and_an_accounts_sockets() -> None:
    await check_bounds(
        "/ws/lobby/", await signed_in_cookie(), "state",
        lambda f: f.get("code") if f.get("type") == "error" else None,
    )  # fmt: skip


async def test_the_standings_socket_bounds_its_frames_and_an_accounts_sockets() -> None:
    code = await an_event()
    await check_bounds(
        f"/ws/tournaments/{code}/", await signed_in_cookie(), "d",
        lambda f: f["d"].get("code") if f.get("t") == "error" else None,
    )  # fmt: skip
