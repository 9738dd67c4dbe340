"""Two sites on one Redis keep apart (issue 12: Redis pub/sub ignores the database number,
and another site's ``match.1`` group reached this site's match 1).

Each check builds two sites' clients the way settings build them (`ludo_site.env`), with the
prefixes of two database names, on a redis-server of the test's own, and holds that what one
site sends the other never hears, while its own side does.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest
from django.utils.module_loading import import_string

from games.live import presence
from ludo_site import env
from tests.servers import own_redis

SITE_A = env.redis_prefix(None, "ludo")
SITE_B = env.redis_prefix(None, "ludo_staging")


@pytest.fixture(scope="module")
def redis_url() -> Iterator[str]:
    with own_redis() as url:
        yield url


def _layer(url: str, kind: str, prefix: str) -> Any:
    config = env.channel_layers(url, kind, prefix)["default"]
    return import_string(config["BACKEND"])(**config["CONFIG"])


async def _close(layer: Any) -> None:
    if hasattr(layer, "close_pools"):
        await layer.close_pools()
    else:
        await layer.flush()


@pytest.mark.asyncio
@pytest.mark.parametrize("kind", ["pubsub", "core"])
async def test_rooms_of_two_sites_do_not_hear_each_other(redis_url: str, kind: str) -> None:
    here, there = _layer(redis_url, kind, SITE_A), _layer(redis_url, kind, SITE_B)
    try:
        mine = await here.new_channel()
        theirs = await there.new_channel()
        await here.group_add("match.1", mine)
        await there.group_add("match.1", theirs)
        await there.group_send("match.1", {"type": "match.update", "v": 99, "events": []})
        # The other site's member got it: the message was sent.
        assert (await asyncio.wait_for(there.receive(theirs), 5))["v"] == 99
        await here.group_send("match.1", {"type": "match.update", "v": 3, "events": []})
        got = await asyncio.wait_for(here.receive(mine), 5)
        # This site's socket hears its own update first and only: v 99 never arrived.
        assert got["v"] == 3
        with pytest.raises(asyncio.TimeoutError):
            await asyncio.wait_for(here.receive(mine), 0.5)
    finally:
        await _close(here)
        await _close(there)


def test_socket_counts_of_two_sites_are_apart(redis_url: str) -> None:
    here, there = presence.RedisStore(redis_url, SITE_A), presence.RedisStore(redis_url, SITE_B)
    assert here.opened(1, 1) == 1
    assert there.count(1, 1) == 0
    assert there.opened(1, 1) == 1  # not 2
    assert here.closed(1, 1) == 0
    assert there.count(1, 1) == 1


def test_caches_of_two_sites_are_apart(redis_url: str) -> None:
    from django.core.cache.backends.redis import RedisCache

    def cache(prefix: str) -> Any:
        config = env.caches(redis_url, prefix)["default"]
        return RedisCache(config["LOCATION"], {"KEY_PREFIX": config["KEY_PREFIX"]})

    here, there = cache(SITE_A), cache(SITE_B)
    here.set("signin-fail:ann", 5)
    assert there.get("signin-fail:ann") is None
    assert here.get("signin-fail:ann") == 5


def test_celery_queues_of_two_sites_are_apart(redis_url: str) -> None:
    from kombu import Connection

    def connection(prefix: str) -> Any:
        options = env.celery_transport_options(redis_url, prefix)
        return Connection(env.celery_broker_url(redis_url), transport_options=options)

    with connection(SITE_A) as here, connection(SITE_B) as there:
        there.SimpleQueue("celery").put({"task": "games.sweep_clocks"})
        mine = here.SimpleQueue("celery")
        with pytest.raises(mine.Empty):
            mine.get(timeout=0.5)
        assert there.SimpleQueue("celery").get(timeout=5).payload == {"task": "games.sweep_clocks"}
