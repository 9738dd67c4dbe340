"""The live rooms' reads of the database: a match with its seats and how many watch it, a room
found by its code, a seat's arrival, and a stale player's clock started again.

Every read runs on the rooms' own database threads (`games.live.dbthreads`).
"""

from __future__ import annotations

import contextlib
import time
from typing import Any

from games import services
from games.live import dbthreads, presence, watchers
from games.match import rooms
from games.match.selectors import match_with_seats
from games.models import Match

Loaded = tuple[Any, list[Any]]


def load_now(match_id: int) -> Loaded | None:
    """The match and its seats (one query, `selectors.match_with_seats`: the one way seats are
    read here) with how many watch it."""
    started = time.monotonic()
    loaded = match_with_seats(match_id)
    if loaded is not None:
        loaded[0].watchers = watchers.count(match_id)
        # When the count was read: a read that began before the room last heard a count
        # (`Room.heard_watchers`) does not overwrite it with an older one.
        loaded[0].watchers_at = started
    return loaded


async def load(match_id: int) -> Loaded | None:
    return await dbthreads.on_db_thread(load_now)(match_id)


def find(code: str) -> Loaded | None:
    """The room with this code: its match and seats (one query; a room without seats: two)."""
    cleaned = rooms.normalise(code)
    if cleaned is None:
        return None
    match_id = Match.objects.filter(code=cleaned).values_list("pk", flat=True).first()
    return None if match_id is None else match_with_seats(match_id)


def arrive(match_id: int, user: Any, ip: str | None, user_agent: bytes) -> Loaded | None:
    """Mark the seat connected (grace over) and read the room, in one trip to the database
    thread."""
    presence.seat_connected(match_id=match_id, user=user, ip=ip, user_agent=user_agent)
    return load_now(match_id)


def restart_clock(match_id: int, seq: int) -> None:
    with contextlib.suppress(Exception):  # the database is down: no sweep runs either
        services.match_clock_restart(match_id=match_id, seq=seq)
