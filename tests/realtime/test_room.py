"""Issue 27, the live edge: a stale action is answered with the state it missed, a repeated
action id says so beside the code clients know, the API's snapshot is the socket's (clocks
and watchers) and says where the host sits, and the room page's signed ticket opens a socket
without a session (an expired one falls back to the session, a forged one is refused)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.core import signing
from django.test import Client

from accounts.models import User
from games.live import tickets
from games.live.consumers import CLOSE_BAD_TICKET
from games.match.selectors import room_clocks
from games.models import Match
from ludo_site.asgi import application

from .conftest import count_room_reads, session_cookie, two_player

pytestmark = pytest.mark.django_db(transaction=True)


async def frames(ws: Any, n: int = 1, timeout: float = 5) -> list[dict[str, Any]]:
    return [json.loads(await ws.receive_from(timeout=timeout)) for _ in range(n)]


async def not_ping(ws: Any) -> dict[str, Any]:
    while True:
        (got,) = await frames(ws)
        if got["t"] != "ping":
            return got


def ticketed(path: str, *, cookie: str = "") -> WebsocketCommunicator:
    headers = [(b"origin", b"http://localhost"), (b"host", b"localhost")]
    if cookie:
        headers.append((b"cookie", cookie.encode()))
    return WebsocketCommunicator(application, path, headers=headers)


async def opened(ws: WebsocketCommunicator) -> dict[str, Any]:
    assert (await ws.connect())[0]
    (state,) = await frames(ws)
    assert state["t"] == "state", state
    return state["d"]


def you(snap: dict[str, Any]) -> list[int]:
    return [s["corner"] for s in snap["seats"] if s["you"]]


@pytest.mark.asyncio
async def test_a_stale_action_is_answered_with_the_state_and_a_repeated_one_says_so(
    alice: User, bob: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    match = await database_sync_to_async(two_player)(alice, bob)
    ws = ticketed(f"/ws/match/{match.code}/?ticket={tickets.issue(alice, match.code)}")
    state = await opened(ws)
    v = state["v"]
    roll = json.dumps({"t": "roll", "v": v, "id": "same"})
    await ws.send_to(text_data=roll)
    update = await not_ping(ws)
    assert update["t"] == "update"
    now = update["d"]["state"]
    # The same id again: counted once, answered `stale` as before, saying it was repeated.
    await ws.send_to(text_data=roll)
    error = await not_ping(ws)
    again = await not_ping(ws)
    assert error["t"] == "error" and error["d"]["code"] == "stale"
    assert error["d"]["repeated"] is True
    assert error["d"]["state"]["v"] == now["v"] == again["v"]
    assert again["t"] == "state"
    # A new action against the old state: `stale`, not repeated, and the state it missed is
    # in the answer (the message says "here is the new state"), from the match as the service
    # read it to refuse the action: the room does not read it again (issue 27).
    reads = count_room_reads(monkeypatch)
    await ws.send_to(text_data=json.dumps({"t": "roll", "v": v, "id": "other"}))
    error = await not_ping(ws)
    assert reads == []
    assert error["d"]["code"] == "stale" and error["d"]["repeated"] is False
    assert "here is the new state" in error["d"]["message"]
    assert error["d"]["state"]["v"] == now["v"] and error["d"]["state"]["pawns"] == now["pawns"]
    assert you(error["d"]["state"]) == [0]
    assert (await database_sync_to_async(Match.objects.get)(pk=match.pk)).seq == now["v"]
    await ws.disconnect()


@pytest.mark.asyncio
async def test_a_ticket_opens_the_socket_without_a_session(alice: User, bob: User) -> None:
    match = await database_sync_to_async(two_player)(alice, bob)
    # No cookie at all: the ticket alone says who this is.
    ws = ticketed(f"/ws/match/{match.code}/?ticket={tickets.issue(bob, match.code)}")
    state = await opened(ws)
    assert you(state) == [2]
    await ws.disconnect()


@pytest.mark.asyncio
async def test_a_forged_or_foreign_ticket_is_refused(alice: User, bob: User) -> None:
    match = await database_sync_to_async(two_player)(alice, bob)
    other = await database_sync_to_async(two_player)(alice, bob)
    good = tickets.issue(alice, match.code)
    forged = signing.dumps([alice.pk, match.code], key="not-the-site-key", salt=tickets.SALT)
    for ticket in (good[:-2] + "xx", forged, tickets.issue(alice, other.code), "garbage"):
        ws = ticketed(f"/ws/match/{match.code}/?ticket={ticket}")
        assert (await ws.connect())[0]
        (error,) = await frames(ws)
        assert error["t"] == "error" and error["d"]["code"] == "bad_ticket", ticket
        closed = await ws.receive_output(timeout=5)
        assert closed == {"type": "websocket.close", "code": CLOSE_BAD_TICKET}
        await ws.disconnect()


@pytest.mark.asyncio
async def test_an_expired_ticket_falls_back_to_the_session(
    alice: User, bob: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    match = await database_sync_to_async(two_player)(alice, bob)
    ticket = tickets.issue(alice, match.code)
    monkeypatch.setattr(tickets, "TICKET_SECONDS", -1)  # every ticket is too old now
    assert tickets.read(ticket, match.code) is None
    path = f"/ws/match/{match.code}/?ticket={ticket}"
    # Without a session: a visitor, who only watches.
    ws = ticketed(path)
    assert you(await opened(ws)) == []
    await ws.disconnect()
    # With Bob's session (a reconnect long after the page loaded): Bob, whatever the ticket.
    ws = ticketed(path, cookie=await database_sync_to_async(session_cookie)(bob))
    assert you(await opened(ws)) == [2]
    await ws.disconnect()


def test_the_api_snapshot_is_the_sockets_and_creating_says_the_corner(
    alice: User, bob: User
) -> None:
    host = Client()
    host.force_login(alice)
    made = host.post(
        "/api/matches",
        json.dumps({"ruleset": "classic", "players": 2, "mode": "friendly"}),
        content_type="application/json",
    )
    assert made.status_code == 201, made.content
    match = Match.objects.get(code=made.json()["code"])
    assert made.json()["corner"] == match.seats.get(user=alice).corner
    snap = host.get(f"/api/matches/{match.code}").json()
    clocks = room_clocks(match)
    assert clocks["turn_seconds"] is not None and clocks["grace_seconds"] is not None
    assert {k: snap[k] for k in ("turn_seconds", "grace_seconds")} == clocks
    assert snap["watchers"] == 0
