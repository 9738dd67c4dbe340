"""The match room over WebSocket (``ws/match/<room code>/``): thin, as DESIGN.md asks.

A consumer authenticates (the session, through ``AuthMiddlewareStack``), validates a frame's
shape (`games.live.wire`), calls one service and relays. It never changes a match itself: the
services lock, check, store, commit and broadcast ``match.update`` to the group
``match.<id>`` with the change's snapshot in its public and private parts; each consumer
then sends its own viewer's view of it (`selectors.view_of`) without reading the match again,
so what a viewer may not see (another player's Power stock, the legal moves of another seat)
never reaches them.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import ipaddress
import logging
import threading
from collections import Counter
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from channels.consumer import get_handler_name
from channels.db import DatabaseSyncToAsync
from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings
from django.db import connections

from games import services
from games.live import presence, watchers
from games.live.wire import RateLimit, WireError, error_frame, frame, parse
from games.match import rooms
from games.match.errors import ServiceError
from games.match.selectors import (
    match_by_code,
    match_with_seats,
    snapshot_for,
    view_of,
    viewer_of,
    visible_events,
)
from games.models import Match, Seat
from games.services import broadcast
from games.services.deadlines import room_clocks

log = logging.getLogger(__name__)
T = TypeVar("T")

# Close codes in the 4000-4999 range left to applications; 1011 is the protocol's own
# "the server met a condition it could not handle" (the browser reconnects).
CLOSE_NOT_FOUND = 4404
CLOSE_UNAVAILABLE = 1011
UNAVAILABLE = "The server cannot reach its database just now: trying again"
CLOSE_TOO_MANY = 4429

# Open sockets per session (or per address, for a visitor without one) in this process: one
# browser cannot hold thousands of sockets (SOCKETS_PER_SESSION).
_open_by_session: Counter[str] = Counter()


def _session_of(scope: dict[str, Any]) -> str:
    session = scope.get("session")
    key = getattr(session, "session_key", None) if session is not None else None
    if key:
        return f"session:{key}"
    return f"address:{_socket_ip(scope)}"


# Database work runs on a pool of threads, not channels' one shared thread: a service call
# waits on PostgreSQL for tens of milliseconds, and one thread would queue every room of the
# process behind it. Changes to one match stay in order: the services lock its row.
_db_threads = ThreadPoolExecutor(
    max_workers=int(settings.LUDO_DB_THREADS), thread_name_prefix="ludo-db"
)


def on_db_thread(func: Callable[..., T]) -> Callable[..., Awaitable[T]]:
    """`func` run on the database threads, its connection closed or kept as Django says."""

    @functools.wraps(func)
    async def run(*args: Any, **kwargs: Any) -> T:
        call = DatabaseSyncToAsync(func, thread_sensitive=False, executor=_db_threads)
        return await call(*args, **kwargs)

    return run


def finish_db_work() -> None:
    """Wait for the database threads' work in hand, close their database connections (kept
    between calls when CONN_MAX_AGE > 0) and start a fresh pool (tests: no connection
    outlives a test)."""
    global _db_threads
    old = _db_threads
    _db_threads = ThreadPoolExecutor(max_workers=old._max_workers, thread_name_prefix="ludo-db")
    # One closing call on every thread: each waits at the barrier until all have started.
    barrier = threading.Barrier(old._max_workers)

    def close_connections() -> None:
        with contextlib.suppress(threading.BrokenBarrierError):
            barrier.wait(timeout=10)
        connections.close_all()

    for _ in range(old._max_workers):
        old.submit(close_connections)
    old.shutdown(wait=True)


# ---------------------------------------------------------------------------- heartbeat
# Every HEARTBEAT_SECONDS one task per server process reads the `seq` of every match with a
# socket here (one query) and sends each socket either the full state, when the match moved
# on past what the socket was sent (an update lost: a failed read, a failed broadcast), or a
# ``ping`` frame with the socket's ``v``: a browser that hears nothing for a while knows its
# socket is dead and reconnects (static/js/room.js). It also keeps this process's socket
# counts alive (`games.live.presence.RedisStore`).
HEARTBEAT_SECONDS = 5.0
# A socket behind the match at a heartbeat is caught up only if still behind this much later:
# the update for it is usually on its way (issue 14: under load, resyncing and restarting the
# player's clock then was needless work when the site could least afford it, and it moved the
# deadline under a `v` the others had already been sent).
LATE_GRACE = 1.0
_sockets: dict[int, set[MatchConsumer]] = {}
_heartbeat: asyncio.Task[None] | None = None


def _heartbeat_seconds() -> float:
    return float(settings.LUDO_HEARTBEAT_SECONDS)


def _watch(consumer: MatchConsumer) -> None:
    global _heartbeat
    assert consumer.match_id is not None
    _sockets.setdefault(consumer.match_id, set()).add(consumer)
    loop = asyncio.get_running_loop()
    if _heartbeat is None or _heartbeat.done() or _heartbeat.get_loop() is not loop:
        _heartbeat = loop.create_task(_beat_forever(), name="ludo-heartbeat")


def _unwatch(consumer: MatchConsumer) -> None:
    if consumer.match_id is None:
        return
    room = _sockets.get(consumer.match_id)
    if room is not None:
        room.discard(consumer)
        if not room:
            del _sockets[consumer.match_id]
            _watching.pop(consumer.match_id, None)


async def _beat_forever() -> None:
    while _sockets:
        await asyncio.sleep(_heartbeat_seconds())
        try:
            await beat()
        except Exception:  # noqa: BLE001 - the next beat tries again
            log.exception("heartbeat failed")


async def beat() -> None:
    """One heartbeat of this process's sockets (see above)."""
    ids = sorted(_sockets)
    if not ids:
        return
    try:
        seqs = await _seqs(ids, _seated_counts())
    except Exception:  # noqa: BLE001 - the database is down: pings keep the browsers waiting
        log.warning("heartbeat: no seqs read (database unavailable)", exc_info=True)
        seqs = {}
    for match_id in ids:
        for consumer in list(_sockets.get(match_id, ())):
            await consumer.heartbeat(seqs.get(match_id))


def _seated_counts() -> dict[tuple[int, int], int]:
    """(match id, user id) -> this process's open sockets of seated players."""
    counts: Counter[tuple[int, int]] = Counter()
    for match_id, consumers in list(_sockets.items()):
        for consumer in list(consumers):
            if consumer.corner is not None and consumer.user is not None:
                counts[(match_id, consumer.user.pk)] += 1
    return dict(counts)


@on_db_thread
def _seqs(ids: list[int], counts: dict[tuple[int, int], int]) -> dict[int, int]:
    try:
        # This process's socket counts live on (and come back if Redis lost them).
        presence.store().heartbeat(counts)
    except Exception:  # noqa: BLE001 - Redis down: the next beat writes them
        log.warning("heartbeat: socket counts not refreshed (Redis unavailable)")
    return dict(Match.objects.filter(pk__in=ids).values_list("pk", "seq"))


def _rate() -> tuple[float, int]:
    return (
        float(settings.LUDO_WS_RATE),
        int(settings.LUDO_WS_BURST),
    )


class MatchConsumer(AsyncWebsocketConsumer):
    """One socket of one viewer (a seated player or a spectator) in one room."""

    match_id: int | None = None
    corner: int | None = None
    # The corner whose private view this socket sends: the seat's, or None when the user
    # holds several seats (local play), so that each snapshot is the seat to play's view.
    viewer_corner: int | None = None
    group: str = ""
    sent_v: int = -1
    mine: frozenset[int] = frozenset()
    session: str = ""  # the key this socket is counted under in _open_by_session
    resyncing: asyncio.Future[None] | None = None  # a full state being resent (`resync_soon`)
    checking: asyncio.Future[None] | None = None  # a socket behind, looked at again (`heartbeat`)
    last: dict[str, Any] | None = None  # the snapshot this socket was sent last

    async def dispatch(self, message: dict[str, Any]) -> None:
        """Hand `message` to its handler. Channels' own dispatch first closes old database
        connections on the one shared sync thread, for every message of every socket: under
        load that hop queued every socket of the process behind one thread (issue 14). This
        consumer touches the database only through `on_db_thread`, whose calls close their
        own connections."""
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"No handler for message type {message['type']}")
        await handler(message)

    async def send(
        self, text_data: str | None = None, bytes_data: bytes | None = None, close: bool = False
    ) -> None:
        """Send a frame; a client that went away while it was being prepared is not an error
        (uvicorn refuses a send once the socket closed; daphne drops it)."""
        try:
            await super().send(text_data=text_data, bytes_data=bytes_data, close=close)
        except OSError:  # uvicorn's ClientDisconnected
            log.debug("socket %s closed before a send", self.channel_name)
        except RuntimeError as exc:
            if "websocket.close" not in str(exc) and "already completed" not in str(exc):
                raise
            log.debug("socket %s closed before a send", self.channel_name)

    async def connect(self) -> None:
        self.match_id = None
        self.presence_at: dict[int, str] = {}  # corner -> time of the last presence news
        self.presence_heard: dict[int, tuple[str, dict[str, Any]]] = {}  # corner -> (at, news)
        self.limit = RateLimit(*_rate())
        self.last_limited = -1.0
        user = self.scope.get("user")
        self.user = user if user is not None and user.is_authenticated else None
        # Accept at once: the server gives a handshake a few seconds, and the lookups below
        # queue behind other database work under load.
        await self.accept()
        self.session = _session_of(self.scope)
        if _open_by_session[self.session] >= settings.SOCKETS_PER_SESSION:
            self.session = ""
            await self.send(
                error_frame("too_many_sockets", "Too many open rooms in this browser: close some")
            )
            await self.close(code=CLOSE_TOO_MANY)
            return
        _open_by_session[self.session] += 1
        code = rooms.normalise(str(self.scope["url_route"]["kwargs"].get("code", "")))
        try:
            await self._enter(code)
        except Exception:  # noqa: BLE001 - the database or Redis is down: say so, and close
            log.exception("socket to room %s: could not enter", code)
            await self.send(error_frame("unavailable", UNAVAILABLE))
            await self.close(code=CLOSE_UNAVAILABLE)

    async def _enter(self, code: str | None) -> None:
        """Find the room, join its group, count the seat connected and send the state."""
        found = await _find(code) if code else None
        if found is None:
            await self.send(error_frame("not_found", "There is no room with that code"))
            await self.close(code=CLOSE_NOT_FOUND)
            return
        match_id, self.corner = found[0], _corner_of(found[1], self.user)
        # Every corner this user sits in (several in local play): their private events.
        self.mine = frozenset(
            c for c, uid in found[1].items() if self.user is not None and uid == self.user.pk
        )
        several = self.user is not None and list(found[1].values()).count(self.user.pk) > 1
        self.viewer_corner = None if several else self.corner
        self.group = broadcast.group_name(match_id)
        # Join the group before reading the snapshot, so no change falls between the two.
        await self.channel_layer.group_add(self.group, self.channel_name)
        self.match_id = match_id
        if self.corner is not None and self.user is not None:
            # Sockets are counted per player across tabs and processes (`games.live.presence`).
            snapshot = await _arrive(
                match_id,
                self.user,
                self.corner,
                self.viewer_corner,
                _socket_ip(self.scope),
                _socket_agent(self.scope),
            )
        else:
            self.watching = True
            await self._watchers_now(await on_db_thread(watchers.opened)(match_id))
            snapshot = await self._snapshot()
        _watch(self)
        await self.send_state(snapshot)

    async def disconnect(self, code: int) -> None:
        _unwatch(self)
        for pending in (self.resyncing, self.checking):
            if pending is not None:
                pending.cancel()
        if self.session:
            _open_by_session[self.session] -= 1
            if _open_by_session[self.session] <= 0:
                del _open_by_session[self.session]
            self.session = ""
        if self.match_id is None:
            return
        await self.channel_layer.group_discard(self.group, self.channel_name)
        if getattr(self, "watching", False):
            await self._watchers_now(await on_db_thread(watchers.closed)(self.match_id))
        if self.corner is not None and self.user is not None:
            # Marks the seat disconnected only when this was the player's last socket.
            await on_db_thread(presence.seat_disconnected)(
                match_id=self.match_id, user=self.user, ip=_socket_ip(self.scope)
            )

    async def _watchers_now(self, count: int) -> None:
        """Tell every process's sockets of this room how many watch (best effort)."""
        assert self.match_id is not None
        _watching[self.match_id] = count
        try:
            await self.channel_layer.group_send(
                self.group, {"type": "match.watchers", "count": count}
            )
        except Exception:  # noqa: BLE001 - the next socket to enter reads the count anew
            log.warning("match %s: watchers count not sent", self.match_id)

    # ------------------------------------------------------------------ client -> server

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        if self.match_id is None:
            return
        if not self.limit.allow():
            # One error a second at most: answering every frame of a flood would be a flood.
            now = self.limit.last
            if now - self.last_limited >= 1.0:
                self.last_limited = now
                await self.send(error_frame("rate_limited", "Too many frames; slow down"))
            return
        try:
            intent = parse(text_data, bytes_data)
        except WireError as e:
            await self.send(error_frame(e.code, e.message))
            return
        if intent.t == "resync":
            await self.resync()
            return
        if self.corner is None or self.user is None:
            await self.send(error_frame("not_seated", "You are watching: only seated players act"))
            return
        try:
            result = await _act(match_id=self.match_id, user=self.user, intent=intent)
        except ServiceError as e:
            await self.send(error_frame(e.code, e.message, self.sent_v))
            return
        except Exception:  # noqa: BLE001 - a dependency failed: the action did not happen
            log.exception("match %s: %s failed", self.match_id, intent.t)
            await self.send(error_frame("unavailable", UNAVAILABLE, self.sent_v))
            return
        if result is not None and result.repeated:
            # A client retrying after a lost answer: the action counted once; here is now.
            await self.send(error_frame("stale", "That action was already played", self.sent_v))
            await self.send_state()

    # ------------------------------------------------------------------ server -> client

    async def match_update(self, event: dict[str, Any]) -> None:
        """A committed change (from `games.services.broadcast`): send it with this viewer's
        snapshot.

        Game events carry their ``seq``; one this socket's last snapshot already holds is not
        sent again. Presence events (connected, disconnected, away, back) carry none: they
        change the seats (and an away seat's deadline) but not ``v``, so they are never a gap
        or stale; each carries the seat's flags and its database time ``at``, so this socket
        marks its last snapshot without a read and an older one arriving late is ignored.
        """
        v = int(event["v"])
        events = event.get("events", [])
        presence_events = [e for e in events if "seq" not in e]
        game = [e for e in events if "seq" in e and int(e["seq"]) > self.sent_v]
        if presence_events:
            # A snapshot this process read for a change before this news is out of date.
            _forget_loaded(self.match_id)
            presence_events = [e for e in presence_events if self._newer(e)]
        if not game:
            if not presence_events or self.last is None:
                return
            snapshot = _with_presence(self.last, presence_events, same_v=self.last["v"] >= v)
            if snapshot == self.last:
                return  # e.g. this socket's own arrival, already in its first snapshot
            self.last = snapshot
            news = [_presence_wire(e) for e in presence_events]
            await self.send(frame("update", snapshot["v"], {"events": news, "state": snapshot}))
            return
        public = event.get("public")
        if isinstance(public, dict) and public.get("v") == v:
            # The change's own snapshot came with it: this viewer's, with no read (issue 14).
            snapshot = self._view(public, event.get("private") or {}, str(event.get("at", "")))
        else:
            try:
                snapshot = await self._snapshot(v=v)
            except Exception:  # noqa: BLE001 - a read failed: resync until one succeeds
                log.warning("match %s v%s: no snapshot for a socket; resyncing", self.match_id, v)
                self.resync_soon()
                return
        if snapshot is None:
            return
        if presence_events:
            snapshot = _with_presence(snapshot, presence_events, same_v=True)
        # Another seat's Power picks stay theirs (the snapshot hides the stock too).
        fresh = visible_events(game, mine=self.mine) + [_presence_wire(e) for e in presence_events]
        self.sent_v = max(self.sent_v, v)
        self.last = snapshot
        await self.send(
            frame("update", max(v, int(snapshot["v"])), {"events": fresh, "state": snapshot})
        )

    def _view(self, public: dict[str, Any], private: dict[str, Any], at: str) -> dict[str, Any]:
        """This viewer's snapshot of a change from the parts its broadcast carried, with the
        room's watchers and any seat's presence news this socket heard after the change began
        (news that may have crossed the change's broadcast on its way)."""
        viewer = (
            self.viewer_corner if self.viewer_corner is not None else viewer_of(public, self.mine)
        )
        snap = view_of(public, private, viewer)
        snap["watchers"] = _watching.get(self.match_id or 0, 0)
        later = [e for when, e in self.presence_heard.values() if when > at]
        if later:
            snap = _with_presence(snap, later, same_v=False)
        return snap

    async def match_watchers(self, event: dict[str, Any]) -> None:
        """How many watch the room now (a spectator came or went, in any process): kept for
        the room's next update."""
        if self.match_id is not None:
            _watching[self.match_id] = int(event.get("count", 0))

    async def match_resync(self, event: dict[str, Any]) -> None:
        """A change whose update could not be broadcast (`games.services.broadcast` retrying
        it): send the full state when this socket was not sent `v` yet."""
        if int(event.get("v", 0)) > self.sent_v:
            await self.resync()

    async def heartbeat(self, seq: int | None) -> None:
        """The process's heartbeat (`beat`): the full state when the match moved on past what
        this socket was sent and it is still behind a moment later (an update may be on its
        way: under load one often is), else a ``ping`` with the socket's ``v``."""
        if seq is not None and seq > self.sent_v and self.resyncing is None:
            if self.checking is None or self.checking.done():
                self.checking = asyncio.ensure_future(self._catch_up_if_behind(seq))
            return
        await self.send(frame("ping", self.sent_v, {}))

    async def _catch_up_if_behind(self, seq: int) -> None:
        await asyncio.sleep(min(LATE_GRACE, _heartbeat_seconds()))
        if seq <= self.sent_v or self.resyncing is not None:
            return  # it was on its way
        log.info("match %s: socket at v%s, match at v%s: resync", self.match_id, self.sent_v, seq)
        if self.corner is not None:
            # This player's screen was stale: their clock starts again (if it is theirs).
            await on_db_thread(_restart_clock)(self.match_id, seq)
        await self.resync()

    async def resync(self) -> bool:
        """Send the full state; on failure (a database blip) keep trying in the background
        (`resync_soon`) and tell the client. Returns whether it was sent now."""
        try:
            await self.send_state()
        except Exception:  # noqa: BLE001 - tried again until it works
            log.warning("match %s: resync failed; trying again", self.match_id, exc_info=True)
            await self.send(error_frame("unavailable", UNAVAILABLE, self.sent_v))
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
                    log.warning("match %s: resync failed again", self.match_id)
                    wait = min(wait * 2, 8.0)
        finally:
            self.resyncing = None

    def _newer(self, e: dict[str, Any]) -> bool:
        """Whether presence event `e` is the latest this socket heard for its seat."""
        at, corner = e.get("at"), e.get("corner")
        if not isinstance(at, str) or not isinstance(corner, int):
            return True
        if self.presence_at.get(corner, "") > at:
            return False
        self.presence_at[corner] = at
        self.presence_heard[corner] = (at, e)
        return True

    async def send_state(self, snapshot: dict[str, Any] | None = None) -> None:
        if snapshot is None:
            snapshot = await self._snapshot()
        if snapshot is None:
            await self.send(error_frame("not_found", "The match is gone"))
            return
        self.sent_v = max(self.sent_v, int(snapshot["v"]))
        self.last = snapshot
        await self.send(frame("state", snapshot["v"], snapshot))

    async def _snapshot(self, v: int | None = None) -> dict[str, Any] | None:
        """This viewer's snapshot; for a change `v`, from the match as loaded once for every
        socket of this process that is sent the same change."""
        assert self.match_id is not None
        loaded = await _loaded(self.match_id, v)
        if loaded is None:
            return None
        match, seats = loaded
        # No query here: the seats come with their users.
        snap = snapshot_for(
            match, viewer_user=self.user, viewer_corner=self.viewer_corner, seats=seats
        )
        return _with_room(snap, match)


def _with_room(snap: dict[str, Any], match: Any) -> dict[str, Any]:
    """The snapshot with what the room draws beyond the game: its clocks and how many
    watch (read with the match)."""
    snap.update(room_clocks(match))
    snap["watchers"] = getattr(match, "watchers", 0)
    return snap


def _presence_wire(e: dict[str, Any]) -> dict[str, Any]:
    """A presence event as clients get it: what happened to which seat (the seat's flags and
    the deadline are in the snapshot sent with it)."""
    return {"kind": e.get("kind"), "corner": e.get("corner")}


def _with_presence(
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


def _socket_ip(scope: dict[str, Any]) -> str | None:
    """The address the socket came from (the server's view: no proxy header is trusted)."""
    client = scope.get("client") or (None,)
    try:
        return str(ipaddress.ip_address(client[0]))
    except ValueError:
        return None


def _socket_agent(scope: dict[str, Any]) -> bytes:
    """The browser's User-Agent header on the socket's handshake (empty if none)."""
    return next((v for k, v in scope.get("headers") or () if k == b"user-agent"), b"")


def _corner_of(seats: dict[int, int | None], user: Any) -> int | None:
    """The corner `user` sits in, from {corner: user id}."""
    if user is None:
        return None
    for corner, user_id in sorted(seats.items()):
        if user_id == user.pk:
            return corner
    return None


@on_db_thread
def _find(code: str) -> tuple[int, dict[int, int | None]] | None:
    """The room's match id and {corner: user id} of its seats, in one query (a room without
    seats yet: two)."""
    cleaned = rooms.normalise(code)
    if cleaned is None:
        return None
    rows = list(
        Seat.objects.filter(match__code=cleaned)
        .order_by()
        .values_list("match_id", "corner", "user_id")
    )
    if rows:
        return rows[0][0], {corner: user_id for _, corner, user_id in rows}
    try:
        return match_by_code(cleaned).pk, {}
    except ServiceError:
        return None


Loaded = tuple[Any, list[Any]]
# (match id) -> how many watch it, as this process last heard (`match.watchers`, a read).
_watching: dict[int, int] = {}
# (match id, v) -> the match and its seats as read for that change, shared by the sockets of
# this process for a few seconds: a change in a 4-seat room costs one read, not four.
_changes: dict[tuple[int, int], asyncio.Future[Loaded | None]] = {}
CHANGE_TTL = 5.0


def _forget_loaded(match_id: int | None) -> None:
    """Drop this process's shared reads of `match_id` (presence changed since)."""
    for key in [k for k in _changes if k[0] == match_id]:
        _changes.pop(key, None)


async def _loaded(match_id: int, v: int | None) -> Loaded | None:
    if v is None:
        return await _load(match_id)
    key = (match_id, v)
    future = _changes.get(key)
    if future is None:
        future = asyncio.ensure_future(_load(match_id))
        _changes[key] = future
        asyncio.get_running_loop().call_later(CHANGE_TTL, _changes.pop, key, None)
        # A failed read is not kept: the next socket tries again.
        future.add_done_callback(
            lambda f: _changes.pop(key, None) if f.cancelled() or f.exception() else None
        )
    return await asyncio.shield(future)


@on_db_thread
def _arrive(
    match_id: int,
    user: Any,
    corner: int,
    viewer_corner: int | None,
    ip: str | None = None,
    user_agent: bytes = b"",
) -> dict[str, Any] | None:
    """Mark the seat connected (grace over) and read the snapshot, in one trip to the
    database thread."""
    presence.seat_connected(match_id=match_id, user=user, ip=ip, user_agent=user_agent)
    loaded = _load_now(match_id)
    if loaded is None:
        return None
    snap = snapshot_for(loaded[0], viewer_user=user, viewer_corner=viewer_corner, seats=loaded[1])
    return _with_room(snap, loaded[0])


def _load_now(match_id: int) -> Loaded | None:
    loaded = match_with_seats(match_id)  # one query
    if loaded is not None:
        # How many watch, read with the match (and kept for the updates that need no read).
        loaded[0].watchers = _watching[match_id] = watchers.count(match_id)
    return loaded


_load = on_db_thread(_load_now)


def _restart_clock(match_id: int, seq: int) -> None:
    with contextlib.suppress(Exception):  # the database is down: no sweep runs either
        services.match_clock_restart(match_id=match_id, seq=seq)


_act = on_db_thread(services.match_act)
