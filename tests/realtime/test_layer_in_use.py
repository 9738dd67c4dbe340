"""The socket tests run on the channel layer the site would run on here."""

from __future__ import annotations

import os
from typing import Any


def test_the_sockets_run_on_the_layer_the_site_runs_on(settings: Any) -> None:
    """With REDIS_URL set (CI) these tests run on channels-redis, as the site does; without it,
    in memory, as `make run` does."""
    from channels.layers import get_channel_layer

    layer = type(get_channel_layer()).__name__
    wanted = {"core": "RedisChannelLayer"}.get(
        os.environ.get("CHANNEL_LAYER", ""), "RedisPubSubChannelLayer"
    )
    assert layer == (wanted if settings.REDIS_URL else "InMemoryChannelLayer")
