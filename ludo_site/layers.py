"""The site's channel layers: channels' own, carrying plain data only.

A message between processes is plain data (dicts with string keys, lists, str, int, float,
bool, None) on every layer, checked as it is sent, so a value that one layer would pass and
another refuse (a ``str`` subclass: channels-redis packs it, the in-memory layer's deep copy
fails on it) fails the same way everywhere, in every test, at the send that carried it.

Both checks are msgpack's own, in C: ``strict_types`` packs only the exact plain types (no
subclass, no tuple), and unpacking refuses a key that is not a string.
"""

from __future__ import annotations

from typing import Any

import msgpack
from channels.layers import InMemoryChannelLayer as _InMemory
from channels_redis.core import RedisChannelLayer as _RedisCore
from channels_redis.pubsub import RedisPubSubChannelLayer as _RedisPubSub
from channels_redis.serializers import BaseMessageSerializer, registry

PLAIN = "plain-msgpack"


def pack(message: Any) -> bytes:
    """`message` as msgpack bytes; TypeError if anything in it is not plain data."""
    return msgpack.packb(message, use_bin_type=True, strict_types=True)


def unpack(data: bytes) -> Any:
    return msgpack.unpackb(data, raw=False)


def plain_copy(message: Any) -> Any:
    """A copy of `message` as another process would receive it; TypeError (or ValueError,
    for a key that is not a string) if it is not plain data."""
    return unpack(pack(message))


class PlainMsgPackSerializer(BaseMessageSerializer):
    as_bytes = staticmethod(pack)
    from_bytes = staticmethod(unpack)


registry.register_serializer(PLAIN, PlainMsgPackSerializer)


class InMemoryChannelLayer(_InMemory):
    """channels' in-memory layer (one process), sending what the Redis layers would
    deliver: the message packed and unpacked, so it carries plain data or fails to send."""

    async def send(self, channel: str, message: dict[str, Any]) -> None:
        await super().send(channel, plain_copy(message))

    async def group_send(self, group: str, message: dict[str, Any]) -> None:
        # Checked here too: a group with no member sends nothing, and must fail the same.
        await super().group_send(group, plain_copy(message))


class RedisPubSubChannelLayer(_RedisPubSub):
    """channels-redis' pub/sub layer with the plain-data serializer."""

    def __init__(self, *args: Any, serializer_format: str = PLAIN, **kwargs: Any) -> None:
        super().__init__(*args, serializer_format=serializer_format, **kwargs)


class RedisChannelLayer(_RedisCore):
    """channels-redis' list-based layer with the plain-data serializer."""

    def __init__(self, *args: Any, serializer_format: str = PLAIN, **kwargs: Any) -> None:
        super().__init__(*args, serializer_format=serializer_format, **kwargs)
