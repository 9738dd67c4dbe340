"""An event's standings socket: the standings on connect, and again after each change
commits (through the channel layer the site runs: Redis with REDIS_URL, else in memory)."""

from __future__ import annotations

import json
import os
import uuid
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from asgiref.sync import SyncToAsync
from channels.db import database_sync_to_async
from channels.layers import channel_layers
from channels.testing import WebsocketCommunicator
from django.db import connections

from accounts.models import User
from audit.clock import db_now
from games import services as match_services
from ludo_site import env
from ludo_site.asgi import application
from tournaments import services
from tournaments.models import Game, Tournament

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]


@pytest.fixture(autouse=True)
def own_layer(settings: Any) -> Iterator[None]:
    settings.CHANNEL_LAYERS = env.channel_layers(
        settings.REDIS_URL, os.environ.get("CHANNEL_LAYER"), f"test-{uuid.uuid4().hex[:12]}"
    )
    channel_layers.backends = {}
    yield
    SyncToAsync.single_thread_executor.submit(connections.close_all).result()
    channel_layers.backends = {}


def socket(code: str) -> WebsocketCommunicator:
    headers = [(b"origin", b"http://localhost"), (b"host", b"localhost")]
    return WebsocketCommunicator(application, f"/ws/tournaments/{code}/", headers=headers)


async def frame(ws: WebsocketCommunicator, timeout: float = 10) -> dict[str, Any]:
    return json.loads(await ws.receive_from(timeout=timeout))


@database_sync_to_async
def arena_under_way() -> tuple[Tournament, Game, list[User]]:
    users = [User.objects.create(username=f"s{uuid.uuid4().hex[:8]}") for _ in range(2)]
    t = services.create(
        name="Socket arena",
        kind="arena",
        queue="duel",
        starts_at=db_now() - timedelta(seconds=1),
        minutes=30,
    )
    for user in users:
        services.join(code=t.code, user=user)
    services.tick()
    return t, Game.objects.select_related("match").get(tournament=t), users


@database_sync_to_async
def resign(game: Game, user: User) -> None:
    match_services.match_resign(match_id=game.match_id, user=user)


async def test_standings_on_connect_and_after_a_result() -> None:
    t, game, (a, b) = await arena_under_way()
    ws = socket(t.code)
    connected, _ = await ws.connect()
    assert connected
    first = await frame(ws)
    assert first["t"] == "standings" and first["d"]["code"] == t.code
    assert [g["code"] for g in first["d"]["games"]] == [game.match.code]
    assert {r["score"] for r in first["d"]["rows"]} == {0}
    await resign(game, a)  # the match ends; its count commits and is broadcast
    got = await frame(ws)
    while got["d"]["games"]:  # a broadcast from before the count may come first
        got = await frame(ws)
    scores = {r["user"]: r["score"] for r in got["d"]["rows"]}
    assert scores == {a.pk: 0, b.pk: 2}
    await ws.send_to(text_data='{"t": "roll"}')
    assert (await frame(ws))["d"]["code"] == "bad_request"
    await ws.disconnect()


async def test_unknown_event_is_refused() -> None:
    ws = socket("NOPE00")
    connected, _ = await ws.connect()
    assert connected
    assert (await frame(ws))["d"]["code"] == "not_found"
    assert (await ws.receive_output(timeout=5))["type"] == "websocket.close"
