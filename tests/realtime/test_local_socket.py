"""Local play over the socket alone: one device holds several seats and gets the legal moves of
whichever seat is to play; the undo frame; Power's Shield chosen with the move after the roll."""

from __future__ import annotations

import json
from typing import Any

import pytest
from channels.db import database_sync_to_async

from accounts.models import User
from games import services
from games.engine import roll as engine_roll
from games.match.replay import snapshot_of
from games.match.verify import verify_match
from games.models import Match, MatchEvent

from .conftest import socket

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]


async def frames(ws: Any, n: int = 1, timeout: float = 3) -> list[dict[str, Any]]:
    return [json.loads(await ws.receive_from(timeout=timeout)) for _ in range(n)]


async def joined(code: str, user: User) -> tuple[Any, dict[str, Any]]:
    ws = await socket(code, user)
    connected, _ = await ws.connect()
    assert connected
    (state,) = await frames(ws)
    assert state["t"] == "state"
    return ws, state


async def send(ws: Any, t: str, v: int, n: int, **d: Any) -> dict[str, Any]:
    """Send one action frame and return the next game update (presence news skipped)."""
    await ws.send_to(text_data=json.dumps({"t": t, "v": v, "id": f"x{n}", "d": d}))
    while True:
        (reply,) = await frames(ws)
        assert reply["t"] != "error", reply
        if any("seq" in e for e in reply["d"]["events"]):
            return reply


@database_sync_to_async
def power_local_game(host: User) -> Match:
    """A local Party+Power game for two on one device, placed (not played) just after red's
    first roll, a plain 6, with two Dice controls and a Shield in each player's stock (so the
    test chooses the faces after this)."""
    match = services.match_create(
        ruleset="party", players=2, mode="local", host=host, options=["power"], first=0
    )
    match = Match.objects.get(pk=match.pk)
    state = match.state()
    assert state is not None
    stock = tuple((0, 2, 1) if c in state.seats else (0, 0, 0) for c in range(4))
    state, _ = engine_roll(state._replace(stock=stock), 6)
    match.snapshot = snapshot_of(state, rolls=1, turn=1)
    match.save(update_fields=["snapshot"])
    return match


async def test_local_host_gets_the_legal_moves_of_the_seat_to_play(alice: User) -> None:
    match = await power_local_game(alice)
    red, yellow = sorted(match.rules.seats_for(2))
    ws, state = await joined(match.code, alice)
    snap = state["d"]
    assert (snap["to_play"], snap["phase"], snap["stock"]) == (red, "move", [0, 2, 1])
    assert snap["legal"] and snap["bonus"] == "", "red's legal moves, no bonus used yet"
    v, n = snap["v"], 0

    async def act(t: str, **d: Any) -> dict[str, Any]:
        nonlocal v, n
        n += 1
        update = await send(ws, t, v, n, **d)
        v = update["v"]
        return update["d"]["state"]

    # Power: Shield chosen after the roll, sent with the move.
    snap = await act("move", pawn=0, shield=True)
    assert snap["shields"] == [[red, red, 0]] and snap["stock"] == [0, 2, 0]
    snap = await act("roll", bonus="control", face=5)
    assert [m["pawn"] for m in snap["legal"]] == [0]
    snap = await act("move", pawn=0)
    # Yellow's turn on the same socket: yellow's own (hidden) stock, and after the roll
    # yellow's legal moves, without asking over HTTP.
    assert (snap["to_play"], snap["phase"], snap["stock"]) == (yellow, "roll", [0, 2, 1])
    assert {s["corner"]: s["you"] for s in snap["seats"]} == {red: False, yellow: True}
    snap = await act("roll", bonus="control", face=6)
    assert snap["to_play"] == yellow and snap["phase"] == "move"
    assert [(m["corner"], m["pawn"]) for m in snap["legal"]] == [(yellow, p) for p in range(4)]
    await ws.disconnect()

    # A socket opened now starts with yellow's view too.
    ws, state = await joined(match.code, alice)
    assert state["d"]["to_play"] == yellow and len(state["d"]["legal"]) == 4
    await ws.disconnect()


@database_sync_to_async
def local_game(host: User) -> Match:
    match = services.match_create(ruleset="classic", players=2, mode="local", host=host, first=0)
    return Match.objects.get(pk=match.pk)


@database_sync_to_async
def undone(match: Match) -> list[dict[str, Any]]:
    return [e.data for e in MatchEvent.objects.filter(match=match, kind="undone")]


@database_sync_to_async
def verified(match: Match) -> Any:
    return verify_match(match)


async def test_the_undo_frame(alice: User) -> None:
    match = await local_game(alice)
    ws, state = await joined(match.code, alice)
    start = state["d"]
    rolled = await send(ws, "roll", start["v"], 1)
    await ws.send_to(text_data=json.dumps({"t": "undo", "v": rolled["v"]}))
    (update,) = await frames(ws)
    assert update["t"] == "update"
    assert [e["kind"] for e in update["d"]["events"]] == ["undone"]
    back = update["d"]["state"]
    assert (back["to_play"], back["phase"], back["pawns"]) == (0, "roll", start["pawns"])
    # The same undo again (its v is old) takes back nothing more.
    await ws.send_to(text_data=json.dumps({"t": "undo", "v": rolled["v"]}))
    (reply,) = await frames(ws)
    assert reply["t"] == "error" and reply["d"]["code"] == "stale"
    # Nothing is left to undo now.
    await ws.send_to(text_data=json.dumps({"t": "undo", "v": update["v"]}))
    (reply,) = await frames(ws)
    assert reply["t"] == "error" and reply["d"]["code"] == "no_undo"
    await ws.send_to(text_data=json.dumps({"t": "undo"}))
    (reply,) = await frames(ws)
    assert reply["t"] == "error" and reply["d"]["code"] == "bad_message"
    assert len(await undone(match)) == 1
    report = await verified(match)
    assert report.ok, report.line
    await ws.disconnect()


async def test_the_undo_frame_is_refused_in_a_friend_room(alice: User, bob: User) -> None:
    from .conftest import two_player

    match = await database_sync_to_async(two_player)(alice, bob)
    ws, state = await joined(match.code, alice)
    rolled = await send(ws, "roll", state["v"], 1)
    await ws.send_to(text_data=json.dumps({"t": "undo", "v": rolled["v"]}))
    while True:
        (reply,) = await frames(ws)
        if reply["t"] == "error":
            break
    assert reply["d"]["code"] == "no_undo"
    assert await undone(match) == []
    await ws.disconnect()
