"""A message round trip on the configured channel layer (real Redis when REDIS_URL is set)."""

import asyncio
import os
from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio
from channels.layers import BaseChannelLayer, channel_layers
from channels_redis.core import RedisChannelLayer
from channels_redis.pubsub import RedisPubSubChannelLayer

from ludo_site import env


@pytest_asyncio.fixture
async def layer() -> AsyncIterator[BaseChannelLayer]:
    """A fresh layer built from settings, so connections belong to this test's event loop."""
    backend = channel_layers.make_backend("default")
    yield backend
    if isinstance(backend, RedisChannelLayer):
        await backend.close_pools()
    elif isinstance(backend, RedisPubSubChannelLayer):
        await backend.flush()


def test_configured_layer_matches_environment() -> None:
    backend = channel_layers.make_backend("default")
    if not os.environ.get("REDIS_URL"):
        expected = "InMemoryChannelLayer"
    elif (os.environ.get("CHANNEL_LAYER") or "pubsub").strip().lower() == "core":
        expected = "RedisChannelLayer"
    else:
        expected = "RedisPubSubChannelLayer"
    assert type(backend).__name__ == expected


@pytest.mark.asyncio
@pytest.mark.parametrize("kind", ["pubsub", "core"])
async def test_each_redis_layer_delivers_to_a_group(kind: str) -> None:
    """Both layers CHANNEL_LAYER may name, built as settings build them, on the real Redis."""
    redis_url = os.environ.get("REDIS_URL")
    if not redis_url:
        pytest.skip("REDIS_URL is not set")
    config = env.channel_layers(redis_url, kind)["default"]
    cls = RedisPubSubChannelLayer if kind == "pubsub" else RedisChannelLayer
    layer = cls(**config["CONFIG"])
    group = f"match.test-{kind}-{os.getpid()}"
    try:
        members = [await layer.new_channel() for _ in range(4)]
        for channel in members:
            await layer.group_add(group, channel)
        for v in range(3):
            await layer.group_send(group, {"type": "match.update", "v": v})
        for channel in members:
            got = [await asyncio.wait_for(layer.receive(channel), timeout=5) for _ in range(3)]
            assert [m["v"] for m in got] == [0, 1, 2]
        for channel in members:
            await layer.group_discard(group, channel)
    finally:
        if isinstance(layer, RedisChannelLayer):
            await layer.close_pools()
        else:
            await layer.flush()


@pytest.mark.asyncio
async def test_send_and_receive(layer: BaseChannelLayer) -> None:
    channel = await layer.new_channel()
    message: dict[str, Any] = {"type": "match.update", "v": 7, "d": {"to_play": 2}}
    await layer.send(channel, message)
    received = await asyncio.wait_for(layer.receive(channel), timeout=5)
    assert received == message


@pytest.mark.asyncio
async def test_group_send_reaches_every_member(layer: BaseChannelLayer) -> None:
    group = f"match.test-{os.getpid()}-{id(layer)}"
    members = [await layer.new_channel() for _ in range(4)]
    for channel in members:
        await layer.group_add(group, channel)
    await layer.group_send(group, {"type": "match.state", "v": 1})
    for channel in members:
        received = await asyncio.wait_for(layer.receive(channel), timeout=5)
        assert received == {"type": "match.state", "v": 1}
    for channel in members:
        await layer.group_discard(group, channel)


@pytest.mark.asyncio
async def test_redis_connections_use_our_pool_settings(layer: BaseChannelLayer) -> None:
    """Connect for real and read the socket settings off the live connection."""
    if isinstance(layer, RedisPubSubChannelLayer):
        await layer.new_channel()  # connects its shard
        shard = layer._get_layer()._shards[0]
        shard._ensure_redis()
        client = shard._redis
    elif isinstance(layer, RedisChannelLayer):
        client = layer.connection(0)
    else:
        pytest.skip("REDIS_URL is not set: the in-memory layer has no connections")
    assert await client.ping()
    pool = client.connection_pool
    assert pool.max_connections == 1000
    connection = await pool.get_connection()
    try:
        assert connection.is_connected
        assert connection.socket_timeout is None
    finally:
        await pool.release(connection)


@pytest.mark.asyncio
async def test_idle_receive_outlives_redis_py_default_timeout(layer: BaseChannelLayer) -> None:
    """An idle consumer must wait quietly: redis-py's default socket_timeout=5 kills it.

    With the defaults this receive dies after 5 s with redis' "Timeout reading from ...".
    """
    if isinstance(layer, RedisChannelLayer):
        wait = layer.brpop_timeout + 2
    elif isinstance(layer, RedisPubSubChannelLayer):
        wait = 7.0
    else:
        pytest.skip("REDIS_URL is not set: the in-memory layer has no sockets")
    channel = await layer.new_channel()
    # One receive left waiting (cancelling it would make the pub/sub layer unsubscribe).
    waiting = asyncio.ensure_future(layer.receive(channel))
    done, _ = await asyncio.wait([waiting], timeout=wait)
    assert not done, "the idle receive ended (redis-py's socket timeout?)"
    # Still alive after the quiet spell: a message sent now arrives.
    await layer.send(channel, {"type": "match.state", "v": 2})
    assert (await asyncio.wait_for(waiting, timeout=5))["v"] == 2
