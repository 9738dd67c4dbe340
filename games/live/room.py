"""One live room per match in this server process (issue 27): its sockets, watchers, presence
and heartbeat in one place.

A `Room` is made when the first socket of a match opens in this process and dropped when its
last one closes. It holds one channel of the channel layer in the match's group
(``match.<id>``), so a change's broadcast reaches this process once, not once per socket, and
hands it to each of its `Viewer`s (one per socket: a seated player or a spectator), which
send their own viewer's view of it (`selectors.view_of`): what a viewer may not see (another
player's Power stock, the legal moves of another seat) never reaches them.

The process's rooms are kept by one `Hub` (`hub()`): the rooms by match, the sockets each
browser session holds open, the database threads, and the heartbeat. The heartbeat is
staggered: each room beats every `HEARTBEAT_SECONDS` at its own phase, so no beat goes over
every socket of the process at once (issue 27: ~0.4 s a worker at 1,000 rooms in one burst).

The consumer (`games.live.consumers.MatchConsumer`) is the thin adapter between the ASGI
socket and this module.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from channels.layers import get_channel_layer
from django.conf import settings

from games import services
from games.live import dbthreads, presence, watchers
from games.live.wire import Intent, error_frame, frame, told_frame
from games.match import rooms
from games.match.errors import ServiceError
from games.match.selectors import (
    match_with_seats,
    room_snapshot,
    view_of,
    viewer_of,
    visible_events,
)
from games.models import Match
from games.services import broadcast

log = logging.getLogger(__name__)
T = TypeVar("T")

UNAVAILABLE = "The server cannot reach its database just now: trying again"

# A socket behind the match at a heartbeat is caught up only if still behind this much later:
# the update for it is usually on its way (issue 14).
LATE_GRACE = 1.0
# The heartbeat runs in this many slices of `HEARTBEAT_SECONDS`: each slice beats the rooms
# whose turn it is (one query for their versions), so the work of a beat is spread evenly.
HEARTBEAT_SLICES = 10
# A socket's beat sends a ping only when it was sent nothing for this part of a period.
PING_AFTER = 0.5
# How long a change's read stays shared by the sockets of a room (seconds).
CHANGE_TTL = 5.0


def heartbeat_seconds() -> float:
    return float(settings.LUDO_HEARTBEAT_SECONDS)


# Database work runs on a pool of threads of its own (`games.live.dbthreads`).
on_db_thread = dbthreads.on_db_thread
finish_db_work = dbthreads.finish_db_work


# ---------------------------------------------------------------------------- reads
Loaded = tuple[Any, list[Any]]


def _load_now(match_id: int) -> Loaded | None:
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


async def _load(match_id: int) -> Loaded | None:
    return await on_db_thread(_load_now)(match_id)


def _find(code: str) -> Loaded | None:
    """The room with this code: its match and seats (one query; a room without seats: two)."""
    cleaned = rooms.normalise(code)
    if cleaned is None:
        return None
    match_id = Match.objects.filter(code=cleaned).values_list("pk", flat=True).first()
    return None if match_id is None else match_with_seats(match_id)


def _arrive(match_id: int, user: Any, ip: str | None, user_agent: bytes) -> Loaded | None:
    """Mark the seat connected (grace over) and read the room, in one trip to the database
    thread."""
    presence.seat_connected(match_id=match_id, user=user, ip=ip, user_agent=user_agent)
    return _load_now(match_id)


def _restart_clock(match_id: int, seq: int) -> None:
    with contextlib.suppress(Exception):  # the database is down: no sweep runs either
        services.match_clock_restart(match_id=match_id, seq=seq)


# ---------------------------------------------------------------------------- presence news


def presence_wire(e: dict[str, Any]) -> dict[str, Any]:
    """A presence event as clients get it: what happened to which seat (the seat's flags and
    the deadline are in the snapshot sent with it)."""
    return {"kind": e.get("kind"), "corner": e.get("corner")}


def with_presence(
    snapshot: dict[str, Any], events: list[dict[str, Any]], *, same_v: bool
) -> dict[str, Any]:
    """`snapshot` with the seats' presence that `events` report; their deadline too when the
    snapshot is of the match as it was when they were sent (`same_v`)."""
    seats = [dict(seat) for seat in snapshot["seats"]]
    deadline = snapshot.get("deadline")
    for e in events:
        for seat in seats:
            if seat["corner"] != e.get("corner"):
                continue
            if "connected" in e:
                seat["connected"] = bool(e["connected"])
            elif e.get("kind") in ("connected", "disconnected"):
                seat["connected"] = e["kind"] == "connected"
            if "away" in e:
                seat["away"] = bool(e["away"])
            if "connected" in e and isinstance(e.get("at"), str):
                # When the grace started: the room counts it down.
                seat["disconnected_at"] = None if e["connected"] else e["at"]
        if same_v and "deadline" in e:
            deadline = e["deadline"]
    return {**snapshot, "seats": seats, "deadline": deadline}


# ---------------------------------------------------------------------------- one socket


class Viewer:
    """One socket of one viewer (a seated player or a spectator) in a room: who it is, what it
    was sent last, and how to send it a frame."""

    def __init__(
        self,
        *,
        user: Any,
        send: Callable[[str], Awaitable[None]],
        ip: str | None = None,
        agent: bytes = b"",
        language: str = "en",
    ) -> None:
        self.user = user
        self._send = send
        self.sent_at = time.monotonic()  # when this socket was last sent a frame
        self.ip = ip
        self.agent = agent
        self.language = language  # the page's: refusals are told in it (issue 29)
        self.corner: int | None = None
        # The corner whose private view this socket sends: the seat's, or None when the user
        # holds several seats (local play), so that each snapshot is the seat to play's view.
        self.viewer_corner: int | None = None
        self.mine: frozenset[int] = frozenset()
        self.sent_v = -1
        self.last: dict[str, Any] | None = None  # the snapshot this socket was sent last
        self.resyncing: asyncio.Future[None] | None = None  # a full state being resent
        self.checking: asyncio.Future[None] | None = None  # a socket behind, looked at again
        self.room: Room | None = None

    async def send(self, text: str) -> None:
        self.sent_at = time.monotonic()
        await self._send(text)

    @property
    def seated(self) -> bool:
        return self.corner is not None and self.user is not None

    def seat_in(self, seats: list[Any]) -> None:
        """Where this viewer sits, from the room's seats (the one read of them)."""
        uid = self.user.pk if self.user is not None else None
        corners = sorted(s.corner for s in seats if uid is not None and s.user_id == uid)
        self.corner = corners[0] if corners else None
        # Every corner this user sits in (several in local play): their private events.
        self.mine = frozenset(corners)
        self.viewer_corner = None if len(corners) > 1 else self.corner

    def snapshot(self, loaded: Loaded, watching: int | None = None) -> dict[str, Any]:
        match, seats = loaded
        return room_snapshot(
            match,
            seats=seats,
            viewer_user=self.user,
            viewer_corner=self.viewer_corner,
            watchers=getattr(match, "watchers", 0) if watching is None else watching,
        )

    async def send_state(self, snapshot: dict[str, Any] | None = None) -> None:
        room = self.room
        if snapshot is None and room is not None:
            snapshot = await room.read_for(self)
        if snapshot is None:
            await self.send(told_frame("not_found", "The match is gone", self.language))
            return
        self.sent_v = max(self.sent_v, int(snapshot["v"]))
        self.last = snapshot
        await self.send(frame("state", snapshot["v"], snapshot))

    async def resync(self) -> bool:
        """Send the full state; on failure (a database blip) keep trying in the background
        (`resync_soon`) and tell the client. Returns whether it was sent now."""
        try:
            await self.send_state()
        except Exception:  # noqa: BLE001 - tried again until it works
            log.warning("socket: resync failed; trying again", exc_info=True)
            await self.send(told_frame("unavailable", UNAVAILABLE, self.language, self.sent_v))
            self.resync_soon()
            return False
        return True

    def resync_soon(self) -> None:
        """Resend the full state after a failed read: 0.5 s, then twice as long each time (at
        most 8 s) until it goes through or the socket closes."""
        if self.resyncing is None or self.resyncing.done():
            self.resyncing = asyncio.ensure_future(self._resync_until_sent())

    async def _resync_until_sent(self) -> None:
        wait = 0.5
        try:
            while True:
                await asyncio.sleep(wait)
                try:
                    await self.send_state()
                    return
                except Exception:  # noqa: BLE001 - still down
                    log.warning("socket: resync failed again")
                    wait = min(wait * 2, 8.0)
        finally:
            self.resyncing = None

    def cancel(self) -> None:
        for pending in (self.resyncing, self.checking):
            if pending is not None:
                pending.cancel()


# ---------------------------------------------------------------------------- one room


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
            loaded = await on_db_thread(_arrive)(
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
        load = _module_load()
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
                await self._update_one(viewer, event, v, events, news)
            except Exception:  # noqa: BLE001 - one socket's failure is not the room's
                log.warning("match %s v%s: a socket not updated; resyncing", self.match_id, v)
                viewer.resync_soon()

    async def _update_one(
        self,
        viewer: Viewer,
        event: dict[str, Any],
        v: int,
        events: list[dict[str, Any]],
        news: list[dict[str, Any]],
    ) -> None:
        game = [e for e in events if "seq" in e and int(e["seq"]) > viewer.sent_v]
        if not game:
            if not news or viewer.last is None:
                return
            snapshot = with_presence(viewer.last, news, same_v=viewer.last["v"] >= v)
            if snapshot == viewer.last:
                return  # e.g. this socket's own arrival, already in its first snapshot
            viewer.last = snapshot
            wire = [presence_wire(e) for e in news]
            await viewer.send(frame("update", snapshot["v"], {"events": wire, "state": snapshot}))
            return
        public = event.get("public")
        if isinstance(public, dict) and public.get("v") == v:
            # The change's own snapshot came with it: this viewer's, with no read (issue 14).
            snapshot = self._view(viewer, public, event.get("private") or {}, str(event.get("at")))
        else:
            try:
                snapshot = await self.read_for(viewer, v)
            except Exception:  # noqa: BLE001 - a read failed: resync until one succeeds
                log.warning("match %s v%s: no snapshot for a socket; resyncing", self.match_id, v)
                viewer.resync_soon()
                return
        if snapshot is None:
            return
        if news:
            snapshot = with_presence(snapshot, news, same_v=True)
        # Another seat's Power picks stay theirs (the snapshot hides the stock too).
        fresh = visible_events(game, mine=viewer.mine) + [presence_wire(e) for e in news]
        viewer.sent_v = max(viewer.sent_v, v)
        viewer.last = snapshot
        await viewer.send(
            frame("update", max(v, int(snapshot["v"])), {"events": fresh, "state": snapshot})
        )

    def _view(
        self, viewer: Viewer, public: dict[str, Any], private: dict[str, Any], at: str
    ) -> dict[str, Any]:
        """`viewer`'s snapshot of a change from the parts its broadcast carried, with the
        room's watchers and any seat's presence news heard after the change began (news that
        may have crossed the change's broadcast on its way)."""
        corner = (
            viewer.viewer_corner
            if viewer.viewer_corner is not None
            else viewer_of(public, viewer.mine)
        )
        snap = view_of(public, private, corner)
        snap["watchers"] = self.watchers
        later = [e for when, e in self.presence_heard.values() if when > at]
        if later:
            snap = with_presence(snap, later, same_v=False)
        return snap

    # ------------------------------------------------------------------ heartbeat

    async def beat(self, seq: int | None) -> None:
        """This room's heartbeat: to each socket the full state when the match moved on past
        what it was sent and it is still behind a moment later (an update may be on its way),
        else a ``ping`` with the socket's ``v``, unless it was sent a frame in the last half
        period (an update carries its ``v`` too; in a room being played nearly every beat
        is one: issue 27), so a socket hears a frame at least every 1.5 periods."""
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
            await on_db_thread(_restart_clock)(self.match_id, seq)
        await viewer.resync()

    def seated_counts(self) -> dict[tuple[int, int], int]:
        counts: Counter[tuple[int, int]] = Counter()
        for viewer in list(self.viewers):
            if viewer.seated:
                counts[(self.match_id, viewer.user.pk)] += 1
        return dict(counts)


def _module_load() -> Callable[[int], Awaitable[Loaded | None]]:
    """The read rooms use (looked up at call time: tests inject a failing one)."""
    return _load


# ---------------------------------------------------------------------------- the process


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
        found = await on_db_thread(_find)(code)
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
