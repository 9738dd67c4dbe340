"""How many people watch a room without a seat: counted like the players' sockets
(`games.presence`: Redis when configured, shared by every server process), under user id 0,
and told to the room as a presence-like event ``{"kind": "watchers", "count": n}`` (no
``seq``: it changes no game)."""

from __future__ import annotations

from . import broadcast, presence

WATCHER = 0  # no user has id 0: the spectators' shared key


def _tell(match_id: int, count: int) -> int:
    broadcast.match_changed(match_id, 0, [{"kind": "watchers", "count": count}])
    return count


def opened(match_id: int) -> int:
    """A spectator's socket opened; the room hears the new count."""
    return _tell(match_id, presence.store().opened(match_id, WATCHER))


def closed(match_id: int) -> int:
    return _tell(match_id, presence.store().closed(match_id, WATCHER))


def count(match_id: int) -> int:
    return presence.store().count(match_id, WATCHER)
