"""A player's Power stock stays theirs (docs/rules.md, "Power"): it must not be worked out
from the public ``bonus_picked`` events, live or in the replay API during the match."""

from __future__ import annotations

import random
from typing import Any

import pytest
from channels.db import database_sync_to_async
from django.test import Client

from accounts.models import User
from games.models import Match, MatchEvent, Status
from tests.storage.driver import current, finish_by_leaving, step

from .conftest import socket, two_player


def _picks(match: Match) -> set[int]:
    """The corners that picked up a bonus so far."""
    rows = MatchEvent.objects.filter(match=match, kind="bonus_picked")
    return {int(corner) for corner in rows.values_list("data__corner", flat=True)}


def play_until_both_pick(alice: User, bob: User) -> Match:
    """A party match with Power, played with the server's dice until both corners (0 and 2)
    picked up a bonus; still active."""
    rng = random.Random(12)
    for _ in range(8):
        match = two_player(alice, bob, "party", options=["power"])
        for n in range(600):
            match = current(match)
            if match.status != Status.ACTIVE:
                break
            if {0, 2} <= _picks(match):
                return match
            step(match, rng, n)
        finish_by_leaving(match, rng)
    raise AssertionError("no match in which both players picked up a bonus")


def picked(events: list[dict[str, Any]]) -> set[int]:
    return {e["corner"] for e in events if e.get("kind") == "bonus_picked"}


def test_replay_api_and_room_history_withhold_other_players_picks(alice: User, bob: User) -> None:
    match = play_until_both_pick(alice, bob)
    as_alice, as_bob, as_anyone = Client(), Client(), Client()
    as_alice.force_login(alice)
    as_bob.force_login(bob)
    url = f"/api/matches/{match.code}/replay"
    assert picked(as_alice.get(url).json()["events"]) == {0}
    assert picked(as_bob.get(url).json()["events"]) == {2}
    assert picked(as_anyone.get(url).json()["events"]) == set()
    history = as_alice.get(f"/r/{match.code}/").context["config"]["history"]
    assert picked(history) <= {0}
    # Once the match is over the whole record is public.
    finish_by_leaving(match, random.Random(1))
    assert picked(as_anyone.get(url).json()["events"]) == {0, 2}


async def _drain(communicator: Any) -> list[dict[str, Any]]:
    frames = []
    # receive_nothing waits without ending the socket (a timed-out receive would cancel it).
    while not await communicator.receive_nothing(timeout=1):
        frames.append(await communicator.receive_json_from(timeout=5))
    return frames


@pytest.mark.asyncio
async def test_live_updates_carry_a_pick_to_its_player_only(alice: User, bob: User) -> None:
    sockets: dict[str, Any] = {}
    rng = random.Random(5)
    made = await database_sync_to_async(two_player)(alice, bob, "party", options=["power"])
    for name, user in (("alice", alice), ("bob", bob), ("spectator", None)):
        sockets[name] = await socket(made.code, user)
        connected, _ = await sockets[name].connect()
        assert connected
        await sockets[name].receive_json_from(timeout=5)  # the first state

    def play_here() -> set[int]:
        match = Match.objects.get(pk=made.pk)
        for n in range(600):
            match = current(match)
            if match.status != Status.ACTIVE or {0, 2} <= _picks(match):
                break
            step(match, rng, n)
        return _picks(match)

    both = await database_sync_to_async(play_here)()
    frames = {}
    for name, ws in sockets.items():
        frames[name] = await _drain(ws)
        await ws.disconnect()
    assert both, "nobody picked up a bonus in 600 actions"
    events = {
        name: [e for f in got if f["t"] == "update" for e in f["d"]["events"]]
        for name, got in frames.items()
    }
    assert picked(events["alice"]) <= {0} and picked(events["bob"]) <= {2}
    assert picked(events["spectator"]) == set()
    # Each player did hear their own picks.
    assert picked(events["alice"]) | picked(events["bob"]) == both
