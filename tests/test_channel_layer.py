"""A message round trip on the configured channel layer (real Redis when REDIS_URL is set)."""

import asyncio
import os
from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio
from channels.layers import BaseChannelLayer, channel_layers
from channels_redis.core import RedisChannelLayer


@pytest_asyncio.fixture
async def layer() -> AsyncIterator[BaseChannelLayer]:
    """A fresh layer built from settings, so connections belong to this test's event loop."""
    backend = channel_layers.make_backend("default")
    yield backend
    if isinstance(backend, RedisChannelLayer):
        await backend.close_pools()


def test_configured_layer_matches_environment() -> None:
    backend = channel_layers.make_backend("default")
    expected = "RedisChannelLayer" if os.environ.get("REDIS_URL") else "InMemoryChannelLayer"
    assert type(backend).__name__ == expected


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
    if not isinstance(layer, RedisChannelLayer):
        pytest.skip("REDIS_URL is not set: the in-memory layer has no connections")
    client = layer.connection(0)
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
    if not isinstance(layer, RedisChannelLayer):
        pytest.skip("REDIS_URL is not set: the in-memory layer has no sockets")
    channel = await layer.new_channel()
    with pytest.raises(asyncio.TimeoutError):
        await asyncio.wait_for(layer.receive(channel), timeout=layer.brpop_timeout + 2)
