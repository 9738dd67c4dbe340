"""A room's ticket stops opening the seat when its account signs out (ludo_site.tickets_out):
the same ticket, used again after the sign-out, opens the socket as a visitor's."""

from __future__ import annotations

import json
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import Client

from accounts.models import User
from games.live import tickets
from ludo_site.asgi import application

from .conftest import two_player

pytestmark = pytest.mark.django_db(transaction=True)


async def seats_of(path: str) -> list[int]:
    """The corners the socket at `path` (no cookie: the ticket alone) is seated at."""
    headers = [(b"origin", b"http://localhost"), (b"host", b"localhost")]
    ws = WebsocketCommunicator(application, path, headers=headers)
    assert (await ws.connect())[0]
    state = json.loads(await ws.receive_from(timeout=5))
    assert state["t"] == "state", state
    await ws.disconnect()
    return [s["corner"] for s in state["d"]["seats"] if s["you"]]


@pytest.mark.asyncio
async def test_a_ticket_no_longer_opens_the_seat_after_sign_out(alice: User, bob: User) -> None:
    match = await database_sync_to_async(two_player)(alice, bob)
    client = Client()
    await database_sync_to_async(client.force_login)(alice)
    path = f"/ws/match/{match.code}/?ticket={tickets.issue(alice, match.code)}&lang=en"
    assert await seats_of(path) == [0]

    def sign_out() -> Any:
        return client.post("/accounts/logout/")

    assert (await database_sync_to_async(sign_out)()).status_code == 302
    assert await seats_of(path) == []  # a visitor now: the ticket was dropped
    # Bob, who did not sign out, keeps his.
    assert await seats_of(f"/ws/match/{match.code}/?ticket={tickets.issue(bob, match.code)}") == [2]
