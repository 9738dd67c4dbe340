"""One socket of one viewer in a live room: a seated player or a spectator, what it was sent
last, and the view it is sent of each change (`selectors.view_of`): what a viewer may not see
(another player's Power stock, the legal moves of another seat) never reaches them.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from games.live.reads import Loaded
from games.live.wire import frame, told_frame
from games.match.selectors import room_snapshot, view_of, viewer_of, visible_events

if TYPE_CHECKING:
    from games.live.room import Room

log = logging.getLogger(__name__)

UNAVAILABLE = "The server cannot reach its database just now: trying again"


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
        self.language = language  # the page's: refusals are told in it
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

    # ------------------------------------------------------------------ a change

    async def update(
        self,
        room: Room,
        event: dict[str, Any],
        v: int,
        events: list[dict[str, Any]],
        news: list[dict[str, Any]],
    ) -> None:
        """Send this socket a committed change of `room`: its game events not sent yet and the
        presence `news`, with this viewer's snapshot."""
        game = [e for e in events if "seq" in e and int(e["seq"]) > self.sent_v]
        if not game:
            if not news or self.last is None:
                return
            snapshot = with_presence(self.last, news, same_v=self.last["v"] >= v)
            if snapshot == self.last:
                return  # e.g. this socket's own arrival, already in its first snapshot
            self.last = snapshot
            wire = [presence_wire(e) for e in news]
            await self.send(frame("update", snapshot["v"], {"events": wire, "state": snapshot}))
            return
        public = event.get("public")
        if isinstance(public, dict) and public.get("v") == v:
            # The change's own snapshot came with it: this viewer's, with no read.
            snapshot = self.view(room, public, event.get("private") or {}, str(event.get("at")))
        else:
            try:
                snapshot = await room.read_for(self, v)
            except Exception:  # noqa: BLE001 - a read failed: resync until one succeeds
                log.warning("match %s v%s: no snapshot for a socket; resyncing", room.match_id, v)
                self.resync_soon()
                return
        if snapshot is None:
            return
        if news:
            snapshot = with_presence(snapshot, news, same_v=True)
        # Another seat's Power picks stay theirs (the snapshot hides the stock too).
        fresh = visible_events(game, mine=self.mine) + [presence_wire(e) for e in news]
        self.sent_v = max(self.sent_v, v)
        self.last = snapshot
        await self.send(
            frame("update", max(v, int(snapshot["v"])), {"events": fresh, "state": snapshot})
        )

    def view(
        self, room: Room, public: dict[str, Any], private: dict[str, Any], at: str
    ) -> dict[str, Any]:
        """This viewer's snapshot of a change from the parts its broadcast carried, with the
        room's watchers and any seat's presence news heard after the change began (news that
        may have crossed the change's broadcast on its way)."""
        corner = (
            self.viewer_corner if self.viewer_corner is not None else viewer_of(public, self.mine)
        )
        snap = view_of(public, private, corner)
        snap["watchers"] = room.watchers
        later = [e for when, e in room.presence_heard.values() if when > at]
        if later:
            snap = with_presence(snap, later, same_v=False)
        return snap
