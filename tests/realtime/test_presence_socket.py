"""Presence as the room sees it, through the whole ASGI stack: the connection dots, two tabs,
the computer taking an away seat and giving it back, and party's bot taking a leaver's seat.

Presence news never changes ``v`` (an action in flight is not made stale by a tab closing),
and reaches every socket at once with the seat's flags.
"""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer

from accounts.models import User
from games.clocks import sweeps as clock
from games.live import hub, reads
from games.models import Match, Seat, Status

from .conftest import socket, two_player

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]


@pytest.fixture(autouse=True)
def clocks(settings: Any) -> None:
    settings.LUDO_TIME_SCALE = 1
    settings.LUDO_BOT_DELAY = 0.0


async def frame(ws: Any, timeout: float = 3) -> dict[str, Any]:
    return json.loads(await ws.receive_from(timeout=timeout))


async def joined(code: str, user: User | None) -> tuple[Any, dict[str, Any]]:
    ws = await socket(code, user)
    connected, _ = await ws.connect()
    assert connected
    state = await frame(ws)
    assert state["t"] == "state"
    return ws, state


async def presence_news(ws: Any) -> dict[str, Any]:
    """The next update, which must be presence news only (no seq: v unchanged)."""
    update = await frame(ws)
    assert update["t"] == "update", update
    assert all("seq" not in e for e in update["d"]["events"]), update
    return update


def seats(update: dict[str, Any], flag: str) -> list[Any]:
    return [s[flag] for s in update["d"]["state"]["seats"]]


@database_sync_to_async
def make_room(alice: User, bob: User, ruleset: str = "classic") -> Match:
    return two_player(alice, bob, ruleset)


@database_sync_to_async
def seat(match: Match, corner: int) -> Seat:
    return Seat.objects.get(match=match, corner=corner)


@database_sync_to_async
def sweep_after(settings: Any, scale: float, wait: float) -> int:
    settings.LUDO_TIME_SCALE = scale
    time.sleep(wait)
    return clock.sweep()


async def test_dots_follow_two_tabs_at_once(alice: User, bob: User) -> None:
    match = await make_room(alice, bob)
    ws_a, state = await joined(match.code, alice)
    watcher, _ = await joined(match.code, None)
    tab1, _ = await joined(match.code, bob)
    for ws in (ws_a, watcher):
        news = await presence_news(ws)
        assert [e["kind"] for e in news["d"]["events"]] == ["connected"]
        assert seats(news, "connected") == [True, True]
        assert news["v"] == news["d"]["state"]["v"] == state["v"]
    tab2, _ = await joined(match.code, bob)
    await tab2.disconnect()  # a second tab closing: Bob is still here
    assert await ws_a.receive_nothing(timeout=0.2)
    assert (await seat(match, 2)).connected
    await tab1.disconnect()
    for ws in (ws_a, watcher):
        news = await presence_news(ws)
        assert [(e["kind"], e["corner"]) for e in news["d"]["events"]] == [("disconnected", 2)]
        assert seats(news, "connected") == [True, False]
        assert news["d"]["state"]["v"] == state["v"]
    gone = await seat(match, 2)
    assert not gone.connected and gone.disconnected_at is not None
    # Alice's action made against v before the news is not stale.
    await ws_a.send_to(text_data=json.dumps({"t": "roll", "v": state["v"], "id": "r1"}))
    rolled = await frame(ws_a)
    assert rolled["t"] == "update" and rolled["d"]["events"][0]["kind"] == "rolled"
    for ws in (ws_a, watcher):
        await ws.disconnect()


async def test_mensch_away_and_back_reach_the_room(alice: User, bob: User, settings: Any) -> None:
    match = await make_room(alice, bob, "mensch")
    ws_a, _ = await joined(match.code, alice)
    ws_b, _ = await joined(match.code, bob)
    await presence_news(ws_a)  # Bob connected
    await ws_b.disconnect()
    await presence_news(ws_a)  # Bob disconnected
    assert await sweep_after(settings, 0.001, 0.06) >= 1  # the 45 s wait ran out
    settings.LUDO_TIME_SCALE = 1
    # The computer taking the seat is a change of the game: a numbered event.
    news = await frame(ws_a)
    assert news["t"] == "update" and news["v"] == news["d"]["state"]["v"]
    assert [(e["kind"], e["corner"]) for e in news["d"]["events"]] == [("away", 2)]
    assert news["d"]["events"][0]["seq"] == news["v"]
    assert seats(news, "away") == [False, True]
    ws_b, again = await joined(match.code, bob)
    assert [s["away"] for s in again["d"]["seats"]] == [False, False]
    news = await presence_news(ws_a)
    assert [(e["kind"], e["corner"]) for e in news["d"]["events"]] == [("back", 2)]
    assert seats(news, "away") == [False, False]
    assert seats(news, "connected") == [True, True]
    for ws in (ws_a, ws_b):
        await ws.disconnect()


async def test_party_leaver_hands_the_seat_to_a_bot(alice: User, bob: User) -> None:
    match = await make_room(alice, bob, "party")
    ws_a, _ = await joined(match.code, alice)
    ws_b, _ = await joined(match.code, bob)
    await presence_news(ws_a)
    await ws_a.send_to(text_data=json.dumps({"t": "resign"}))
    for ws in (ws_a, ws_b):
        update = await frame(ws)
        assert [e["kind"] for e in update["d"]["events"]][0] == "bot_took_seat"
        assert seats(update, "away")[0] is True
        assert update["d"]["state"]["status"] == "active"
    # The bot plays Alice's turns: her seat rolls without her.
    rolled = await database_sync_to_async(clock.sweep)()
    assert rolled == 1
    update = await frame(ws_b)
    assert update["d"]["events"][0] == {**update["d"]["events"][0], "kind": "rolled", "corner": 0}
    match = await database_sync_to_async(Match.objects.get)(pk=match.pk)
    assert match.status == Status.ACTIVE
    for ws in (ws_a, ws_b):
        await ws.disconnect()


async def test_presence_news_is_not_undone_by_a_read_made_before_it(alice: User, bob: User) -> None:
    """A change's snapshot this process read before a presence change must not bring back
    the old dot to a socket that heard the presence news first."""
    match = await make_room(alice, bob)
    ws_a, state = await joined(match.code, alice)
    ws_b, _ = await joined(match.code, bob)
    await presence_news(ws_a)
    v = state["v"]
    stale = await reads.load(match.pk)  # Bob connected, as read "before"
    loop = asyncio.get_running_loop()
    future: asyncio.Future[Any] = loop.create_future()
    future.set_result(stale)
    hub.hub().rooms[match.pk].reads[v + 1] = future
    await database_sync_to_async(Seat.objects.filter(match=match, corner=2).update)(connected=False)
    layer = get_channel_layer()
    group = f"match.{match.pk}"
    gone = {"kind": "disconnected", "corner": 2, "connected": False, "away": False}
    await layer.group_send(group, {"type": "match.update", "v": v, "events": [gone]})
    news = await presence_news(ws_a)
    assert seats(news, "connected") == [True, False]
    game = {"kind": "timeout", "corner": 0, "missed": 1, "seq": v + 1}
    await layer.group_send(group, {"type": "match.update", "v": v + 1, "events": [game]})
    update = await frame(ws_a)
    assert update["d"]["events"] == [game]
    assert seats(update, "connected") == [True, False]  # not the stale read's True
    for ws in (ws_a, ws_b):
        await ws.disconnect()


async def test_older_presence_news_arriving_late_is_ignored(alice: User, bob: User) -> None:
    match = await make_room(alice, bob)
    ws_a, state = await joined(match.code, alice)
    layer = get_channel_layer()
    group = f"match.{match.pk}"
    newer = {"kind": "connected", "corner": 2, "connected": True, "away": False}
    older = {"kind": "disconnected", "corner": 2, "connected": False, "away": False}
    at = "2030-01-01T00:00:0{}.000000+00:00"
    await layer.group_send(
        group, {"type": "match.update", "v": state["v"], "events": [{**newer, "at": at.format(2)}]}
    )
    news = await presence_news(ws_a)
    assert seats(news, "connected") == [True, True]
    await layer.group_send(
        group, {"type": "match.update", "v": state["v"], "events": [{**older, "at": at.format(1)}]}
    )
    assert await ws_a.receive_nothing(timeout=0.2)
    await ws_a.disconnect()
