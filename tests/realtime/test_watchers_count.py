"""The spectators' count a player's room shows: a read of the room shared by a change's sockets
that began before a spectator's arrival was heard does not put the older count back (CI's
layout test saw "1 watching" vanish: a stale shared read said 0 after the news said 1)."""

from __future__ import annotations

import time
from types import SimpleNamespace

from games.live.hub import Hub
from games.live.room import Room


def read(count: int, at: float) -> tuple[SimpleNamespace, list[object]]:
    return SimpleNamespace(watchers=count, watchers_at=at), []


def test_a_read_older_than_the_news_keeps_the_news() -> None:
    room = Room(1, Hub())
    began = time.monotonic()  # a change's read begins: nobody watches yet
    room.heard_watchers(1, time.monotonic())  # then a spectator arrives (another process)
    room.heard_watchers_in(read(0, began))  # the read ends, its count is older
    assert room.watchers == 1


def test_a_read_newer_than_the_news_is_taken() -> None:
    room = Room(1, Hub())
    room.heard_watchers(2, time.monotonic())
    room.heard_watchers_in(read(1, time.monotonic()))  # one left since, read after the news
    assert room.watchers == 1


def test_news_after_a_read_is_taken_either_way() -> None:
    room = Room(1, Hub())
    room.heard_watchers_in(read(3, time.monotonic()))
    room.heard_watchers(0, time.monotonic())
    assert room.watchers == 0
