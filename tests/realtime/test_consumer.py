"""The match socket through the whole ASGI stack (origin check, session auth, routing)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from channels.db import database_sync_to_async

from accounts.models import User
from games.live.wire import MAX_FRAME_BYTES
from games.match.selectors import snapshot_for
from games.models import Match, Seat
from games.services.deadlines import room_clocks

from .conftest import count_room_reads, socket, two_player

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]


async def frames(ws: Any, n: int = 1, timeout: float = 3) -> list[dict[str, Any]]:
    return [json.loads(await ws.receive_from(timeout=timeout)) for _ in range(n)]


async def not_ping(ws: Any) -> dict[str, Any]:
    """The next frame but the heartbeat's pings (a slow run may meet one)."""
    while True:
        (got,) = await frames(ws, timeout=10)
        if got["t"] != "ping":
            return got


async def joined(code: str, user: User | None) -> tuple[Any, dict[str, Any]]:
    ws = await socket(code, user)
    connected, _ = await ws.connect()
    assert connected
    (state,) = await frames(ws)
    assert state["t"] == "state"
    return ws, state


async def drain(*sockets: Any) -> None:
    """Read away what is waiting (the news of the others connecting)."""
    for ws in sockets:
        while not await ws.receive_nothing(timeout=0.1):
            update = json.loads(await ws.receive_from())
            assert {e["kind"] for e in update["d"]["events"]} <= {"connected", "disconnected"}


@database_sync_to_async
def make_room(alice: User, bob: User, ruleset: str = "classic", **options: Any) -> Match:
    return two_player(alice, bob, ruleset, **options)


@database_sync_to_async
def reload(match: Match) -> Match:
    return Match.objects.get(pk=match.pk)


async def expect_error(ws: Any, code: str) -> dict[str, Any]:
    (reply,) = await frames(ws)
    assert reply["t"] == "error", reply
    assert reply["d"]["code"] == code, reply
    assert reply["d"]["message"]
    return reply


async def test_state_on_connect_is_the_viewers(alice: User, bob: User) -> None:
    match = await make_room(alice, bob)
    ws_a, state_a = await joined(match.code, alice)
    ws_b, state_b = await joined(match.code, bob)
    ws_s, state_s = await joined(match.code, None)
    assert state_a["v"] == state_a["d"]["v"] == match.seq
    assert state_a["d"]["to_play"] == 0 and state_a["d"]["phase"] == "roll"
    you = {s["corner"]: s["you"] for s in state_a["d"]["seats"]}
    assert you == {0: True, 2: False}
    assert [s["you"] for s in state_s["d"]["seats"]] == [False, False]
    assert "server_seed" not in json.dumps([state_a, state_b, state_s])
    for ws in (ws_a, ws_b, ws_s):
        await ws.disconnect()


async def test_roll_reaches_every_socket_after_commit(alice: User, bob: User) -> None:
    match = await make_room(alice, bob)
    ws_a, state = await joined(match.code, alice)
    ws_b, _ = await joined(match.code, bob)
    ws_s, _ = await joined(match.code, None)
    await drain(ws_a, ws_b, ws_s)
    await ws_a.send_to(text_data=json.dumps({"t": "roll", "v": state["v"], "id": "r1"}))
    updates = [(await frames(ws))[0] for ws in (ws_a, ws_b, ws_s)]
    after = await reload(match)
    for update in updates:
        assert update["t"] == "update"
        assert update["v"] == after.seq > state["v"]
        kinds = [e["kind"] for e in update["d"]["events"]]
        assert kinds[0] == "rolled"
        assert [e["seq"] for e in update["d"]["events"]] == list(
            range(state["v"] + 1, after.seq + 1)
        )
        assert update["d"]["state"]["v"] == after.seq
    for ws in (ws_a, ws_b, ws_s):
        await ws.disconnect()


async def test_unknown_room_is_refused(alice: User) -> None:
    for code in ("ZZZZZZ", "not-a-code", "ABCDEFGH"):
        ws = await socket(code, alice)
        connected, _ = await ws.connect()
        assert connected
        await expect_error(ws, "not_found")
        assert (await ws.receive_output(timeout=2))["type"] == "websocket.close"


async def test_foreign_origin_is_refused(alice: User, bob: User) -> None:
    match = await make_room(alice, bob)
    ws = await socket(match.code, alice, origin="http://evil.example")
    connected, _ = await ws.connect()
    assert not connected


BAD_FRAMES = [
    ("{not json", "bad_message"),
    ('{"t": "dance"}', "bad_message"),
    ('["roll"]', "bad_message"),
    ('{"t": "move", "v": 0, "id": "m", "d": {"pawn": 7}}', "bad_message"),
    ('{"t": "roll", "id": "x"}', "bad_message"),
    ('{"t": "resync", "pad": "' + "x" * MAX_FRAME_BYTES + '"}', "too_large"),
]


async def test_bad_frames_change_nothing(alice: User, bob: User) -> None:
    match = await make_room(alice, bob)
    ws, state = await joined(match.code, alice)
    for text, code in BAD_FRAMES:
        await ws.send_to(text_data=text)
        await expect_error(ws, code)
    await ws.send_to(bytes_data=b'{"t":"resync"}')
    await expect_error(ws, "bad_message")
    await ws.send_to(bytes_data=b"x" * (MAX_FRAME_BYTES + 1))
    await expect_error(ws, "too_large")
    assert (await reload(match)).seq == state["v"]
    assert await ws.receive_nothing(timeout=0.2)
    # The socket is still good.
    await ws.send_to(text_data='{"t": "resync"}')
    assert (await frames(ws))[0]["t"] == "state"
    await ws.disconnect()


async def test_acting_out_of_turn_stale_or_illegal(alice: User, bob: User) -> None:
    match = await make_room(alice, bob)
    ws_a, state = await joined(match.code, alice)
    ws_b, _ = await joined(match.code, bob)
    await drain(ws_a, ws_b)
    v = state["v"]
    # Bob acts in Alice's turn.
    await ws_b.send_to(text_data=json.dumps({"t": "roll", "v": v, "id": "b1"}))
    await expect_error(ws_b, "not_your_turn")
    # Alice moves before rolling.
    await ws_a.send_to(text_data=json.dumps({"t": "move", "v": v, "id": "a0", "d": {"pawn": 0}}))
    await expect_error(ws_a, "illegal")
    # Alice rolls against an older state.
    await ws_a.send_to(text_data=json.dumps({"t": "roll", "v": v - 1, "id": "a1"}))
    await expect_error(ws_a, "stale")
    assert (await reload(match)).seq == v
    assert await ws_a.receive_nothing(timeout=0.2) and await ws_b.receive_nothing(timeout=0.2)
    for ws in (ws_a, ws_b):
        await ws.disconnect()


async def test_a_repeated_action_counts_once(alice: User, bob: User) -> None:
    match = await make_room(alice, bob)
    ws, state = await joined(match.code, alice)
    roll = json.dumps({"t": "roll", "v": state["v"], "id": "same"})
    await ws.send_to(text_data=roll)
    (update,) = await frames(ws)
    await ws.send_to(text_data=roll)
    error, again = await frames(ws, 2)
    assert error["d"]["code"] == "stale"
    assert again["t"] == "state" and again["v"] == update["v"]
    assert (await reload(match)).seq == update["v"]
    await ws.disconnect()


async def test_spectators_and_signed_out_visitors_only_watch(
    alice: User, bob: User, carol: User
) -> None:
    match = await make_room(alice, bob)
    for user in (carol, None):
        ws, state = await joined(match.code, user)
        await ws.send_to(text_data=json.dumps({"t": "roll", "v": state["v"], "id": "c"}))
        await expect_error(ws, "not_seated")
        await ws.send_to(text_data=json.dumps({"t": "resign"}))
        await expect_error(ws, "not_seated")
        await ws.send_to(text_data=json.dumps({"t": "resync"}))
        (again,) = await frames(ws)
        assert again["t"] == "state" and again["v"] == state["v"]
        await ws.disconnect()
    assert (await reload(match)).seq == state["v"]


async def test_a_flood_is_rate_limited(alice: User, bob: User, settings: Any) -> None:
    # A token back every 2 s: a slow machine answering the first frames does not refill one.
    settings.LUDO_WS_RATE, settings.LUDO_WS_BURST = 0.5, 3
    match = await make_room(alice, bob)
    ws, state = await joined(match.code, alice)
    for _ in range(3):
        await ws.send_to(text_data='{"t": "resync"}')
    assert [f["t"] for f in await frames(ws, 3)] == ["state"] * 3
    for _ in range(20):
        await ws.send_to(text_data=json.dumps({"t": "roll", "v": state["v"], "id": "flood"}))
    await expect_error(ws, "rate_limited")
    # One error for the whole flood, not one per frame; and the roll never happened.
    assert await ws.receive_nothing(timeout=0.3)
    assert (await reload(match)).seq == state["v"]
    await asyncio.sleep(2.1)  # a token back
    await ws.send_to(text_data='{"t": "resync"}')
    assert (await frames(ws))[0]["t"] == "state"
    await ws.disconnect()


async def test_power_stock_reaches_only_its_owner(alice: User, bob: User) -> None:
    match = await make_room(alice, bob, "party", options=["power"])
    ws_a, state_a = await joined(match.code, alice)
    ws_b, state_b = await joined(match.code, bob)
    ws_s, state_s = await joined(match.code, None)
    await drain(ws_a, ws_b, ws_s)
    assert state_a["d"]["stock"] == [0, 0, 0] and state_b["d"]["stock"] == [0, 0, 0]
    assert state_s["d"]["stock"] is None
    await ws_a.send_to(text_data=json.dumps({"t": "roll", "v": state_a["v"], "id": "p1"}))
    for ws, expected in ((ws_a, [0, 0, 0]), (ws_b, [0, 0, 0]), (ws_s, None)):
        (update,) = await frames(ws)
        assert update["d"]["state"]["stock"] == expected
    for ws in (ws_a, ws_b, ws_s):
        await ws.disconnect()


@database_sync_to_async
def connected(match: Match, corner: int) -> bool:
    return Seat.objects.get(match=match, corner=corner).connected


async def test_reconnect_puts_the_player_back_in_their_seat(alice: User, bob: User) -> None:
    match = await make_room(alice, bob)
    ws_a, _ = await joined(match.code, alice)
    ws_b, state = await joined(match.code, bob)
    (seen,) = await frames(ws_a)  # Bob came: the room is told, v unchanged
    assert seen["v"] == state["v"]
    assert seen["d"]["events"] == [{"kind": "connected", "corner": 2}]
    assert await connected(match, 2)
    await ws_b.disconnect()
    (gone,) = await frames(ws_a)
    assert gone["d"]["events"] == [{"kind": "disconnected", "corner": 2}]
    assert [s["connected"] for s in gone["d"]["state"]["seats"]] == [True, False]
    assert not await connected(match, 2)
    ws_b, again = await joined(match.code, bob)
    assert [s["you"] for s in again["d"]["seats"]] == [False, True]
    assert await connected(match, 2)
    # Back in the seat: Bob plays his turn once Alice's has passed.
    await frames(ws_a)  # connected again
    for ws in (ws_a, ws_b):
        await ws.disconnect()


async def test_a_second_tab_closing_keeps_the_player_connected(alice: User, bob: User) -> None:
    match = await make_room(alice, bob)
    first, _ = await joined(match.code, alice)
    second, _ = await joined(match.code, alice)
    await second.disconnect()
    assert await connected(match, 0)
    await first.disconnect()
    assert not await connected(match, 0)


@pytest.mark.parametrize("ruleset,options", [("classic", []), ("party", ["power"])])
async def test_an_update_carries_its_snapshot_each_viewer_gets_what_a_read_gives(
    alice: User, bob: User, monkeypatch: pytest.MonkeyPatch, ruleset: str, options: list[str]
) -> None:
    """Issue 14: a change's snapshot rides on its broadcast, so no socket reads the match for
    an update; what each viewer is sent equals what a fresh read gives that viewer (the seat
    marked, legal moves to the player to play, Power stock to its owner only)."""
    match = await make_room(alice, bob, ruleset, options=options)
    ws_a, state = await joined(match.code, alice)
    ws_b, _ = await joined(match.code, bob)
    watchers = [(await joined(match.code, None))[0] for _ in range(2)]
    await drain(ws_a, ws_b, *watchers)
    reads = count_room_reads(monkeypatch)
    sockets = {"alice": ws_a, "bob": ws_b, "watcher": watchers[0], "watcher2": watchers[1]}
    viewers = {"alice": alice, "bob": bob, "watcher": None, "watcher2": None}
    v = state["v"]
    moved = 0
    # Until two moves were compared (a pawn needs a six to come out: 60 rolls without one
    # come once in 50,000 runs).
    for step in range(60):
        if moved >= 2 and step >= 12:
            break
        current = await reload(match)
        snap = await database_sync_to_async(snapshot_for)(current)
        if snap["status"] != "active":
            break
        acting = ws_a if snap["to_play"] == 0 else ws_b
        viewer = alice if snap["to_play"] == 0 else bob
        mine = await database_sync_to_async(snapshot_for)(current, viewer_user=viewer)
        if mine["phase"] == "roll":
            frame = {"t": "roll", "v": v, "id": f"r{step}"}
        else:
            frame = {"t": "move", "v": v, "id": f"m{step}", "d": {"pawn": mine["legal"][0]["pawn"]}}
            moved += 1
        await acting.send_to(text_data=json.dumps(frame))
        updates = {name: await not_ping(ws) for name, ws in sockets.items()}
        assert {u["t"] for u in updates.values()} == {"update"}, updates
        v = updates["alice"]["v"]
        assert {u["v"] for u in updates.values()} == {v}
        current = await reload(match)
        assert current.seq == v
        for name, update in updates.items():
            read = await database_sync_to_async(snapshot_for)(current, viewer_user=viewers[name])
            read["watchers"] = 2
            read.update(room_clocks(current))
            assert update["d"]["state"] == read, (name, step)
    assert reads == []  # not one read for all those changes at four sockets
    assert moved >= 2  # the moves' updates (legal moves, captures) were compared too
    if options:
        # Power: each player's stock is theirs; the spectators see none.
        assert updates["watcher"]["d"]["state"]["stock"] is None
    for ws in sockets.values():
        await ws.disconnect()
