"""One live room per match in this server process: its sockets, watchers, presence news and
heartbeat in one place.

A `Room` is made when the first socket of a match opens in this process and dropped when its
last one closes (`games.live.hub`). It holds one channel of the channel layer in the match's
group (``match.<id>``), so a change's broadcast reaches this process once, not once per socket,
and hands it to each of its `Viewer`s (`games.live.viewer`: one per socket), which send their
own viewer's view of it. A seated viewer's intent goes from here to its service.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import time
from collections import Counter
from typing import TYPE_CHECKING, Any

from channels.layers import get_channel_layer
from django.conf import settings

from games import services
from games.live import presence, reads, watchers
from games.live.dbthreads import on_db_thread
from games.live.reads import Loaded
from games.live.viewer import UNAVAILABLE, Viewer
from games.live.wire import Intent, error_frame, frame, told_frame
from games.match.errors import ServiceError
from games.services import broadcast

if TYPE_CHECKING:
    from games.live.hub import Hub

log = logging.getLogger(__name__)

# A socket behind the match at a heartbeat is caught up only if still behind this much later:
# the update for it is usually on its way.
LATE_GRACE = 1.0
# A socket's beat sends a ping only when it was sent nothing for this part of a period.
PING_AFTER = 0.5
# How long a change's read stays shared by the sockets of a room (seconds).
CHANGE_TTL = 5.0


def heartbeat_seconds() -> float:
    return float(settings.LUDO_HEARTBEAT_SECONDS)


class Room:
    """A live match's room in this process: its viewers, how many watch it, the presence news
    heard, the reads shared by its sockets, and its place in the heartbeat."""

    def __init__(self, match_id: int, hub: Hub) -> None:
        self.match_id = match_id
        self.hub = hub
        self.group = broadcast.group_name(match_id)
        self.viewers: set[Viewer] = set()
        self.watchers = 0
        self.watchers_at = 0.0  # when the room's count was read or heard (monotonic)
        # corner -> (database time, news) of the latest presence news heard for that seat.
        self.presence_heard: dict[int, tuple[str, dict[str, Any]]] = {}
        # v -> the match and its seats as read for that change, shared by this room's sockets.
        self.reads: dict[int, asyncio.Future[Loaded | None]] = {}
        # The first beat a period after the room opened, at a phase of its own: rooms opened
        # together (a server's restart, a load test's ramp) do not beat together.
        period = heartbeat_seconds()
        self.next_beat = time.monotonic() + period * (1 + random.random())
        self.channel = ""
        self.started: asyncio.Future[None] | None = None
        self.listening: asyncio.Task[None] | None = None
        self.closed = False

    # ------------------------------------------------------------------ life

    async def start(self) -> None:
        """Join the match's group with the room's own channel (before any read of the match,
        so no change falls between the two) and listen to it."""
        if self.started is None:
            self.started = asyncio.ensure_future(self._start())
        await asyncio.shield(self.started)

    async def _start(self) -> None:
        layer = get_channel_layer()
        self.channel = await layer.new_channel(prefix="room.")
        await layer.group_add(self.group, self.channel)
        self.listening = asyncio.get_running_loop().create_task(
            self._listen(layer), name=f"ludo-room-{self.match_id}"
        )

    async def stop(self) -> None:
        self.closed = True
        if self.listening is not None:
            self.listening.cancel()
            with contextlib.suppress(BaseException):
                await self.listening
        if self.channel:
            with contextlib.suppress(Exception):
                await get_channel_layer().group_discard(self.group, self.channel)

    async def _listen(self, layer: Any) -> None:
        while not self.closed:
            try:
                message = await layer.receive(self.channel)
            except asyncio.CancelledError:
                raise
            except Exception:  # noqa: BLE001 - Redis blip: the heartbeat catches sockets up
                log.warning("room %s: receive failed", self.match_id, exc_info=True)
                await asyncio.sleep(0.5)
                continue
            try:
                await self.dispatch(message)
            except Exception:  # noqa: BLE001 - one bad message does not end the room
                log.exception("room %s: %s failed", self.match_id, message.get("type"))

    async def dispatch(self, message: dict[str, Any]) -> None:
        kind = message.get("type")
        if kind == "match.update":
            await self.update(message)
        elif kind == "match.watchers":
            self.heard_watchers(int(message.get("count", 0)), time.monotonic())
        elif kind == "match.resync":
            # A change whose update could not be broadcast (`broadcast` retrying it): the full
            # state to each socket that was not sent `v` yet.
            v = int(message.get("v", 0))
            for viewer in list(self.viewers):
                if v > viewer.sent_v:
                    await viewer.resync()

    # ------------------------------------------------------------------ sockets

    async def enter(self, viewer: Viewer, seats: list[Any]) -> None:
        """Seat `viewer` in this room (the room already listening), count it, send the state."""
        viewer.room = self
        viewer.seat_in(seats)
        self.viewers.add(viewer)
        if viewer.seated:
            # Sockets are counted per player across tabs and processes (`games.live.presence`).
            loaded = await on_db_thread(reads.arrive)(
                self.match_id, viewer.user, viewer.ip, viewer.agent
            )
            if loaded is not None:
                self.heard_watchers_in(loaded)
            snapshot = None if loaded is None else viewer.snapshot(loaded, self.watchers)
        else:
            await self.watchers_now(await on_db_thread(watchers.opened)(self.match_id))
            snapshot = await self.read_for(viewer)
        await viewer.send_state(snapshot)

    async def leave(self, viewer: Viewer) -> None:
        viewer.cancel()
        self.viewers.discard(viewer)
        if not self.viewers:
            await self.hub.drop(self)
        if not viewer.seated:
            await self.watchers_now(await on_db_thread(watchers.closed)(self.match_id))
        else:
            # Marks the seat disconnected only when this was the player's last socket.
            await on_db_thread(presence.seat_disconnected)(
                match_id=self.match_id, user=viewer.user, ip=viewer.ip
            )

    async def watchers_now(self, count: int) -> None:
        """Tell every process's sockets of this room how many watch (best effort)."""
        self.heard_watchers(count, time.monotonic())
        try:
            await get_channel_layer().group_send(
                self.group, {"type": "match.watchers", "count": count}
            )
        except Exception:  # noqa: BLE001 - the next socket to enter reads the count anew
            log.warning("match %s: watchers count not sent", self.match_id)

    # ------------------------------------------------------------------ intents

    async def act(self, viewer: Viewer, intent: Intent) -> None:
        """A seated viewer's intent, handed to its service; the update comes by broadcast. A
        stale or repeated action is answered with the state as it is now."""
        if intent.t == "resync":
            await viewer.resync()
            return
        if not viewer.seated:
            watching = "You are watching: only seated players act"
            await viewer.send(told_frame("not_seated", watching, viewer.language))
            return
        try:
            result = await on_db_thread(services.match_act)(
                match_id=self.match_id, user=viewer.user, intent=intent
            )
        except ServiceError as e:
            if e.code == "stale":
                await self.answer_stale(viewer, e.message, repeated=False, loaded=e.loaded)
            else:
                await viewer.send(
                    error_frame(e.code, e.message, viewer.sent_v, text=e.text(viewer.language))
                )
            return
        except Exception:  # noqa: BLE001 - a dependency failed: the action did not happen
            log.exception("match %s: %s failed", self.match_id, intent.t)
            await viewer.send(
                told_frame("unavailable", UNAVAILABLE, viewer.language, viewer.sent_v)
            )
            return
        if result is not None and getattr(result, "repeated", False):
            # A client retrying after a lost answer: the action counted once; here is now.
            await self.answer_stale(viewer, "That action was already played", repeated=True)

    async def answer_stale(
        self, viewer: Viewer, message: str, *, repeated: bool, loaded: Loaded | None = None
    ) -> None:
        """The ``stale`` error with the state as it is now (``d.state``) and whether the action
        was one already played (``d.repeated``); a repeated one is followed by the ``state``
        frame too, as it always was. `loaded`: the match as the service read it to refuse the
        action (no second read)."""
        try:
            if loaded is not None:
                snapshot: dict[str, Any] | None = viewer.snapshot(loaded, self.watchers)
            else:
                snapshot = await self.read_for(viewer)
        except Exception:  # noqa: BLE001 - the state follows when a read works
            log.warning("match %s: no state for a stale answer", self.match_id)
            snapshot = None
        d: dict[str, Any] = {"code": "stale", "message": message, "repeated": repeated}
        if snapshot is not None:
            d["state"] = snapshot
        await viewer.send(frame("error", viewer.sent_v, d))
        if snapshot is None:
            viewer.resync_soon()
        elif repeated:
            await viewer.send_state(snapshot)
        else:
            viewer.sent_v = max(viewer.sent_v, int(snapshot["v"]))
            viewer.last = snapshot

    # ------------------------------------------------------------------ updates

    async def read_for(self, viewer: Viewer, v: int | None = None) -> dict[str, Any] | None:
        """`viewer`'s snapshot; for a change `v`, from the match as read once for every socket
        of this room sent the same change."""
        loaded = await self.loaded(v)
        if loaded is None:
            return None
        self.heard_watchers_in(loaded)
        return viewer.snapshot(loaded, self.watchers)

    def heard_watchers(self, count: int, at: float) -> None:
        """How many watch, as known at `at`: kept unless the room knows a later count. A read
        shared by the sockets of a change (`loaded`) can have begun before a spectator's
        arrival was heard; its count must not undo the newer one (the count of a player's
        room dropped back to nothing until the next spectator came or went)."""
        if at >= self.watchers_at:
            self.watchers, self.watchers_at = count, at

    def heard_watchers_in(self, loaded: Loaded) -> None:
        match = loaded[0]
        if hasattr(match, "watchers"):
            self.heard_watchers(int(match.watchers), getattr(match, "watchers_at", 0.0))

    async def loaded(self, v: int | None) -> Loaded | None:
        load = reads.load  # looked up at call time: tests put a failing one in its place
        if v is None:
            return await load(self.match_id)
        future = self.reads.get(v)
        if future is None:
            future = asyncio.ensure_future(load(self.match_id))
            self.reads[v] = future
            asyncio.get_running_loop().call_later(CHANGE_TTL, self._forget_read, v, future)
            # A failed read is not kept: the next socket tries again.
            future.add_done_callback(
                lambda f: self._forget_read(v, f) if f.cancelled() or f.exception() else None
            )
        return await asyncio.shield(future)

    def _forget_read(self, v: int, future: asyncio.Future[Any]) -> None:
        if self.reads.get(v) is future:
            del self.reads[v]

    def heard(self, e: dict[str, Any]) -> bool:
        """Whether presence event `e` is the latest this room heard for its seat."""
        at, corner = e.get("at"), e.get("corner")
        if not isinstance(at, str) or not isinstance(corner, int):
            return True
        if corner in self.presence_heard and self.presence_heard[corner][0] > at:
            return False
        self.presence_heard[corner] = (at, e)
        return True

    async def update(self, event: dict[str, Any]) -> None:
        """A committed change (from `games.services.broadcast`): sent to each socket with its
        viewer's snapshot.

        Game events carry their ``seq``; one a socket's last snapshot already holds is not
        sent again. Presence events (connected, disconnected, away, back) carry none: they
        change the seats (and an away seat's deadline) but not ``v``; each carries the seat's
        flags and its database time ``at``, so a socket's last snapshot is marked without a
        read and an older one arriving late is ignored.
        """
        v = int(event["v"])
        events = event.get("events", [])
        news = [e for e in events if "seq" not in e]
        if news:
            self.reads.clear()  # a read made before this news is out of date
            news = [e for e in news if self.heard(e)]
        for viewer in list(self.viewers):
            try:
                await viewer.update(self, event, v, events, news)
            except Exception:  # noqa: BLE001 - one socket's failure is not the room's
                log.warning("match %s v%s: a socket not updated; resyncing", self.match_id, v)
                viewer.resync_soon()

    # ------------------------------------------------------------------ heartbeat

    async def beat(self, seq: int | None) -> None:
        """This room's heartbeat: to each socket the full state when the match moved on past
        what it was sent and it is still behind a moment later (an update may be on its way),
        else a ``ping`` with the socket's ``v``, unless it was sent a frame in the last half
        period (an update carries its ``v`` too; in a room being played nearly every beat
        is one), so a socket hears a frame at least every 1.5 periods."""
        quiet_since = time.monotonic() - heartbeat_seconds() * PING_AFTER
        for viewer in list(self.viewers):
            if seq is not None and seq > viewer.sent_v and viewer.resyncing is None:
                if viewer.checking is None or viewer.checking.done():
                    viewer.checking = asyncio.ensure_future(self._catch_up_if_behind(viewer, seq))
                continue
            if viewer.sent_at <= quiet_since:
                await viewer.send(frame("ping", viewer.sent_v, {}))

    async def _catch_up_if_behind(self, viewer: Viewer, seq: int) -> None:
        await asyncio.sleep(min(LATE_GRACE, heartbeat_seconds()))
        if seq <= viewer.sent_v or viewer.resyncing is not None:
            return  # it was on its way
        log.info("match %s: socket at v%s, match at v%s: resync", self.match_id, viewer.sent_v, seq)
        if viewer.corner is not None:
            # This player's screen was stale: their clock starts again (if it is theirs).
            await on_db_thread(reads.restart_clock)(self.match_id, seq)
        await viewer.resync()

    def seated_counts(self) -> dict[tuple[int, int], int]:
        counts: Counter[tuple[int, int]] = Counter()
        for viewer in list(self.viewers):
            if viewer.seated:
                counts[(self.match_id, viewer.user.pk)] += 1
        return dict(counts)
