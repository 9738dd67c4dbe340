"""A broadcast carries plain data only, on every channel layer (`ludo_site.layers`): a bot's
`Reason` (a str subclass with a code and data) arrives as a plain string, and a value no
layer can carry fails at the send, on the in-memory layer as on Redis."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterator
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from channels.layers import channel_layers

from games.bots.words import Reason
from games.services import broadcast
from ludo_site import env, layers


@pytest.fixture
def in_memory() -> Iterator[layers.InMemoryChannelLayer]:
    """The embedded default's layer as the site's default for this test."""
    layer = layers.InMemoryChannelLayer()
    before = channel_layers.set("default", layer)
    try:
        yield layer
    finally:
        if before is None:
            channel_layers.backends.pop("default", None)
        else:
            channel_layers.set("default", before)


def said() -> dict[str, Any]:
    reason = Reason("captures Yellow's pawn with pawn 2", "capture_with", pawn=2, of=None)
    return {"t": "bot_said", "corner": 0, "text": reason, "why": reason.wire(), "at": (1, 2)}


@pytest.mark.asyncio
async def test_a_bot_reason_arrives_as_plain_data_on_the_in_memory_layer(
    in_memory: layers.InMemoryChannelLayer,
) -> None:
    channel = await in_memory.new_channel()
    await in_memory.group_add(broadcast.group_name(7), channel)
    await sync_to_async(broadcast.match_changed)(7, 12, [said()])
    got = await asyncio.wait_for(in_memory.receive(channel), timeout=5)
    event = got["events"][0]
    assert type(event["text"]) is str
    assert event["text"] == "captures Yellow's pawn with pawn 2"
    assert event["why"] == {"code": "capture_with", "pawn": 2, "of": None}
    assert event["at"] == [1, 2]
    assert broadcast.owed() == {}


def test_plain_converts_subclasses_and_tuples_and_refuses_the_rest() -> None:
    made = broadcast.plain([said(), {"n": True, "x": 1.5, "none": None}])
    assert made[0]["text"].__class__ is str and made[0]["at"] == [1, 2]
    assert made[1] == {"n": True, "x": 1.5, "none": None}
    with pytest.raises(TypeError, match="plain data only, not object"):
        broadcast.plain({"what": object()})
    with pytest.raises(TypeError, match="keys are strings, not int"):
        broadcast.plain({1: "one"})


@pytest.mark.asyncio
async def test_the_in_memory_layer_refuses_what_is_not_plain_even_with_no_member() -> None:
    layer = layers.InMemoryChannelLayer()
    for bad in (said(), {"type": "x", "pair": (1, 2)}):
        with pytest.raises(TypeError):
            await layer.group_send("match.1", {"type": "match.update", "events": [bad]})
    with pytest.raises(ValueError):
        await layer.group_send("match.1", {"type": "match.update", "by": {3: "x"}})
    channel = await layer.new_channel()
    with pytest.raises(TypeError):
        await layer.send(channel, {"type": "match.update", "text": said()["text"]})


@pytest.mark.asyncio
@pytest.mark.parametrize("kind", ["pubsub", "core"])
async def test_each_redis_layer_refuses_what_is_not_plain(kind: str) -> None:
    redis_url = os.environ.get("REDIS_URL")
    if not redis_url:
        pytest.skip("REDIS_URL is not set")
    config = env.channel_layers(redis_url, kind, f"plain-test-{os.getpid()}")["default"]
    cls = layers.RedisPubSubChannelLayer if kind == "pubsub" else layers.RedisChannelLayer
    layer: Any = cls(**config["CONFIG"])
    group = f"match.plain-{kind}"
    try:
        channel = await layer.new_channel()
        await layer.group_add(group, channel)
        with pytest.raises(TypeError):
            await layer.group_send(group, {"type": "match.update", "events": [said()]})
        await layer.group_send(group, {"type": "match.update", "events": broadcast.plain([said()])})
        got = await asyncio.wait_for(layer.receive(channel), timeout=5)
        assert got["events"][0]["text"] == "captures Yellow's pawn with pawn 2"
        await layer.group_discard(group, channel)
    finally:
        if kind == "core":
            await layer.close_pools()
        else:
            await layer.flush()
