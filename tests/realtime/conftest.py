"""Fixtures for the real-time tests: two signed-in players, rooms, sockets on the full ASGI app."""

from __future__ import annotations

import contextlib
import os
import threading
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from asgiref.sync import SyncToAsync
from channels.db import database_sync_to_async
from channels.layers import channel_layers
from channels.testing import WebsocketCommunicator
from django.db import connection, connections, transaction
from django.test import Client

from accounts.models import User
from games import services
from games.live import consumers, presence, reads
from games.models import Match
from ludo_site import env
from ludo_site.asgi import application


@pytest.fixture(autouse=True)
def own_layer_and_timers(settings: Any) -> Iterator[None]:
    """Each test gets a channel layer and socket counts of its own, on Redis as the site runs
    when REDIS_URL is set (the layer settings build, under a prefix of the test's own: xdist
    workers' matches share ids, one test database each, and Redis pub/sub is one for all its
    databases), else in memory."""
    tag = f"test-{uuid.uuid4().hex[:12]}"
    settings.CHANNEL_LAYERS = env.channel_layers(
        settings.REDIS_URL, os.environ.get("CHANNEL_LAYER"), tag
    )
    channel_layers.backends = {}
    store = presence.RedisStore(settings.REDIS_URL, tag) if settings.REDIS_URL else None
    presence.reset_store(store or presence.MemoryStore())
    yield
    consumers.finish_db_work()
    # Channels runs thread-sensitive database calls (the session lookup) on asgiref's one
    # shared thread; close its connection too, so it neither outlives the test database nor
    # is checked by a later test that has no database access.
    SyncToAsync.single_thread_executor.submit(connections.close_all).result()
    channel_layers.backends = {}
    presence.reset_store(None)
    if store is not None:
        store.client.close()


# Sockets run their database work on other threads, so the rows must be committed: these
# tests use the transactional database. Players sign in by session, not password (hashing
# costs a third of a second a user).
@pytest.fixture
def alice(transactional_db: None) -> User:
    return User.objects.create(username="alice")


@pytest.fixture
def bob(transactional_db: None) -> User:
    return User.objects.create(username="bob")


@pytest.fixture
def carol(transactional_db: None) -> User:
    return User.objects.create(username="carol")


def session_cookie(user: User | None) -> str:
    if user is None:
        return ""
    client = Client()
    client.force_login(user)
    return f"sessionid={client.cookies['sessionid'].value}"


def two_player(alice: User, bob: User, ruleset: str = "classic", **options: Any) -> Match:
    """A started friendly room: alice in corner 0 (to play first), bob in corner 2."""
    match = services.match_create(
        ruleset=ruleset, players=2, mode="friendly", host=alice, first=0, **options
    )
    services.match_join(code=match.code, user=bob)
    return Match.objects.get(pk=match.pk)


async def socket(code: str, user: User | None = None, origin: str = "http://localhost") -> Any:
    """A socket to room `code`, signed in as `user` (None: a signed-out visitor)."""
    headers = [(b"origin", origin.encode()), (b"host", b"localhost")]
    cookie = await database_sync_to_async(session_cookie)(user)
    if cookie:
        headers.append((b"cookie", cookie.encode()))
    return WebsocketCommunicator(application, f"/ws/match/{code}/", headers=headers)


@contextlib.contextmanager
def locked_elsewhere(match: Match) -> Iterator[threading.Thread]:
    """Another connection holds `match`'s row lock (``SELECT ... FOR UPDATE``) until the block
    ends; the thread that holds it is given, alive while it holds the lock."""
    locked, release = threading.Event(), threading.Event()

    def hold() -> None:
        with transaction.atomic():
            Match.objects.select_for_update().get(pk=match.pk)
            locked.set()
            release.wait(30)
        connection.close()

    holder = threading.Thread(target=hold)
    holder.start()
    try:
        assert locked.wait(5)
        yield holder
    finally:
        release.set()
        holder.join()


def count_room_reads(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """From now on, the match id of every read a room makes of its match (`reads.load`)."""
    seen: list[int] = []
    load = reads.load

    async def counted(match_id: int) -> Any:
        seen.append(match_id)
        return await load(match_id)

    monkeypatch.setattr(reads, "load", counted)
    return seen
