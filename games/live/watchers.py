"""How many people watch a room without a seat: counted like the players' sockets
(`games.live.presence`: Redis when configured, shared by every server process), under user id 0.
The count rides on the snapshots a room is sent (``watchers``), read once per change and
process with the match; a spectator coming or going sends no frame of its own."""

from __future__ import annotations

from games.live import presence

WATCHER = 0  # no user has id 0: the spectators' shared key


def opened(match_id: int) -> int:
    return presence.store().opened(match_id, WATCHER)


def closed(match_id: int) -> int:
    return presence.store().closed(match_id, WATCHER)


def count(match_id: int) -> int:
    return presence.store().count(match_id, WATCHER)
