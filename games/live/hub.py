"""This process's live rooms: the rooms by match (`Room`, made at a match's first socket here
and dropped at its last), the sockets each browser session holds open, and the heartbeat.

The heartbeat is staggered: each room beats every `HEARTBEAT_SECONDS` at its own phase, so no
beat goes over every socket of the process at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import Counter

from django.conf import settings

from games.live import presence, reads
from games.live.dbthreads import on_db_thread
from games.live.room import Room, heartbeat_seconds
from games.live.viewer import Viewer
from games.models import Match

log = logging.getLogger(__name__)

# The heartbeat runs in this many slices of `HEARTBEAT_SECONDS`: each slice beats the rooms
# whose turn it is (one query for their versions), so the work of a beat is spread evenly.
HEARTBEAT_SLICES = 10


class Hub:
    """This process's live rooms (match id -> `Room`), the sockets each browser session holds
    open here, and the staggered heartbeat."""

    def __init__(self) -> None:
        self.rooms: dict[int, Room] = {}
        self.by_session: Counter[str] = Counter()
        self.beating: asyncio.Task[None] | None = None
        self.counts_at = 0.0

    # ------------------------------------------------------------------ sessions

    def open_session(self, key: str) -> bool:
        """Count one more socket of session `key`; False (not counted) when it has its
        `SOCKETS_PER_SESSION` already."""
        if self.by_session[key] >= settings.SOCKETS_PER_SESSION:
            return False
        self.by_session[key] += 1
        return True

    def close_session(self, key: str) -> None:
        self.by_session[key] -= 1
        if self.by_session[key] <= 0:
            del self.by_session[key]

    # ------------------------------------------------------------------ rooms

    async def room(self, match_id: int) -> Room:
        """The match's room in this process, made and listening."""
        room = self.rooms.get(match_id)
        if room is None:
            room = self.rooms[match_id] = Room(match_id, self)
        try:
            await room.start()
        except BaseException:
            if self.rooms.get(match_id) is room and not room.viewers:
                del self.rooms[match_id]
            raise
        self._beat_soon()
        return room

    async def drop(self, room: Room) -> None:
        if self.rooms.get(room.match_id) is room:
            del self.rooms[room.match_id]
        await room.stop()

    async def enter(self, viewer: Viewer, code: str) -> Room | None:
        """Find the room by its code and seat `viewer` there; None when there is none."""
        found = await on_db_thread(reads.find)(code)
        if found is None:
            return None
        match, seats = found
        room = await self.room(match.pk)
        try:
            await room.enter(viewer, seats)
        except BaseException:
            if viewer in room.viewers:
                # As a socket closing: its count (if made) is taken back, the room dropped if
                # it was the last.
                with contextlib.suppress(Exception):
                    await room.leave(viewer)
            raise
        return room

    # ------------------------------------------------------------------ heartbeat

    def _beat_soon(self) -> None:
        loop = asyncio.get_running_loop()
        if self.beating is None or self.beating.done() or self.beating.get_loop() is not loop:
            self.beating = loop.create_task(self._beat_forever(), name="ludo-heartbeat")

    async def _beat_forever(self) -> None:
        while self.rooms:
            await asyncio.sleep(heartbeat_seconds() / HEARTBEAT_SLICES)
            try:
                await self.beat()
            except Exception:  # noqa: BLE001 - the next slice tries again
                log.exception("heartbeat failed")

    async def beat(self, *, every: bool = False) -> None:
        """One slice of the heartbeat: the rooms whose beat is due (`every`: all of them), with
        one query for their versions; every `HEARTBEAT_SECONDS` this process's socket counts
        are refreshed too (`games.live.presence.RedisStore`)."""
        now = time.monotonic()
        period = heartbeat_seconds()
        due = [r for r in list(self.rooms.values()) if every or r.next_beat <= now]
        counts: dict[tuple[int, int], int] | None = None
        if now - self.counts_at >= period:
            self.counts_at = now
            counts = {}
            for room in list(self.rooms.values()):
                counts.update(room.seated_counts())
        if not due and counts is None:
            return
        try:
            seqs = await on_db_thread(_seqs)([r.match_id for r in due], counts)
        except Exception:  # noqa: BLE001 - the database is down: pings keep the browsers waiting
            log.warning("heartbeat: no seqs read (database unavailable)", exc_info=True)
            seqs = {}
        for room in due:
            room.next_beat = max(room.next_beat + period, now)
            await room.beat(seqs.get(room.match_id))


def _seqs(ids: list[int], counts: dict[tuple[int, int], int] | None) -> dict[int, int]:
    if counts is not None:
        try:
            # This process's socket counts live on (and come back if Redis lost them).
            presence.store().heartbeat(counts)
        except Exception:  # noqa: BLE001 - Redis down: the next beat writes them
            log.warning("heartbeat: socket counts not refreshed (Redis unavailable)")
    if not ids:
        return {}
    return dict(Match.objects.filter(pk__in=ids).values_list("pk", "seq"))


_hub = Hub()


def hub() -> Hub:
    """This process's rooms."""
    return _hub
