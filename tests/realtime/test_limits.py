"""Limits on guests per address, rooms per player and sockets per session (issue 12: guests
and rooms could be made without limit, and one session could open any number of sockets)."""

from __future__ import annotations

from typing import Any

import pytest
from channels.db import database_sync_to_async
from django.test import Client

from accounts.models import User
from games.live.consumers import CLOSE_TOO_MANY

from .conftest import socket, two_player

PRACTICE = {"ruleset": "classic", "players": 2, "mode": "practice", "bots": {"2": "easy"}}
FRIENDLY = {"ruleset": "classic", "players": 2, "mode": "friendly"}


def test_guests_per_address(settings: Any, db: Any) -> None:
    settings.GUESTS_PER_IP = 2
    made = []
    for _ in range(3):
        visitor = Client(REMOTE_ADDR="198.51.100.7")
        page = visitor.post("/play/computer/", {"ruleset": "classic", "players": 2}, follow=True)
        made.append(page)
    assert User.objects.filter(username__startswith="guest-").count() == 2
    assert b"Too many guest players from your address" in made[2].content
    # Another address is not affected.
    other = Client(REMOTE_ADDR="198.51.100.8")
    other.post("/play/computer/", {"ruleset": "classic", "players": 2})
    assert User.objects.filter(username__startswith="guest-").count() == 3


def test_quick_match_guest_limit_is_a_coded_refusal(settings: Any, db: Any) -> None:
    settings.GUESTS_PER_IP = 0
    response = Client(REMOTE_ADDR="198.51.100.9").post(
        "/play/queue/join",
        {"queue": "classic-2", "ranked": "0"},
        headers={"Accept": "application/json"},
    )
    assert response.status_code == 429, response.content
    assert response.json()["error"]["code"] == "too_many_guests"


def _api(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_rooms_waiting_per_player(settings: Any, db: Any) -> None:
    settings.ROOMS_WAITING_PER_PLAYER = 2
    host = _api(User.objects.create(username="host"))
    for _ in range(2):
        assert (
            host.post("/api/matches", FRIENDLY, content_type="application/json").status_code == 201
        )
    refused = host.post("/api/matches", FRIENDLY, content_type="application/json")
    assert refused.status_code == 429 and refused.json()["code"] == "too_many_rooms"
    # A game against the computer starts at once: it is not a waiting room.
    assert host.post("/api/matches", PRACTICE, content_type="application/json").status_code == 201


def test_rooms_per_player_an_hour(settings: Any, db: Any) -> None:
    settings.ROOMS_PER_PLAYER_HOUR = 3
    host = _api(User.objects.create(username="busy"))
    for _ in range(3):
        assert (
            host.post("/api/matches", PRACTICE, content_type="application/json").status_code == 201
        )
    refused = host.post("/api/matches", PRACTICE, content_type="application/json")
    assert refused.status_code == 429 and refused.json()["code"] == "too_many_rooms"
    assert "last hour" in refused.json()["message"]


@pytest.mark.asyncio
async def test_sockets_per_session(alice: User, bob: User, settings: Any) -> None:
    settings.SOCKETS_PER_SESSION = 2
    match = await database_sync_to_async(two_player)(alice, bob)
    # Every socket made (and its session cookie read) before any opens: the in-memory test
    # database is not written from two threads at once.
    first, other = await socket(match.code, alice), await socket(match.code, bob)
    second, third, again = [await socket(match.code, None) for _ in range(3)]
    # One session (alice's cookie) for all of alice's sockets.
    cookie = dict(first.scope["headers"])[b"cookie"]
    for ws in (second, third, again):
        ws.scope["headers"] = [*ws.scope["headers"], (b"cookie", cookie)]
    for ws in (first, second):
        assert (await ws.connect())[0]
        assert (await ws.receive_json_from(timeout=5))["t"] == "state"
    assert (await third.connect())[0]
    refused = await third.receive_json_from(timeout=5)
    assert refused["t"] == "error" and refused["d"]["code"] == "too_many_sockets"
    closed = await third.receive_output(timeout=5)
    assert closed == {"type": "websocket.close", "code": CLOSE_TOO_MANY}
    # Another session is not affected; a socket closed frees its place.
    assert (await other.connect())[0]
    assert (await other.receive_json_from(timeout=5))["t"] == "state"  # bob's arrival written
    await first.disconnect()
    assert (await again.connect())[0]
    assert (await again.receive_json_from(timeout=5))["t"] == "state"
    for ws in (second, other, again):
        await ws.disconnect()
