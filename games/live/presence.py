"""Who is connected to a room, and the disconnect grace (RULES.md "disconnect").

The state is on the seat, written by the services only (`games.services`, "presence"):
``connected``, ``disconnected_at`` (when the seat's last connection closed) and ``away`` (the
computer plays the seat until the player is back). The clock sweep finds the graces that ran
out with a database query (`sweep_grace`) and hands each to `services.seat_grace_expired`;
the computer's steps for an away seat are the match's ordinary deadline
(`games.services.kernel`), so the turn sweep plays them.

What is kept here is how many sockets each player has open in a room, so that a second tab
closing does not start the grace while another is open: a Redis counter when Redis is
configured (every server process shares it), else a dictionary in the one server process
of the embedded default.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from collections import Counter
from typing import Any, Protocol

from django.conf import settings

from games import services
from games.match.errors import ServiceError

log = logging.getLogger(__name__)

# A socket's count outlives a crashed server process by this long at most (seconds).
COUNT_TTL = 24 * 3600


class Store(Protocol):
    def opened(self, match_id: int, user_id: int) -> int: ...
    def closed(self, match_id: int, user_id: int) -> int: ...
    def count(self, match_id: int, user_id: int) -> int: ...


class MemoryStore:
    """One process's socket counts (the embedded default: one server process)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.sockets: Counter[tuple[int, int]] = Counter()

    def opened(self, match_id: int, user_id: int) -> int:
        with self.lock:
            self.sockets[(match_id, user_id)] += 1
            return self.sockets[(match_id, user_id)]

    def closed(self, match_id: int, user_id: int) -> int:
        with self.lock:
            key = (match_id, user_id)
            self.sockets[key] -= 1
            left = self.sockets[key]
            if left <= 0:
                del self.sockets[key]
            return max(left, 0)

    def count(self, match_id: int, user_id: int) -> int:
        with self.lock:
            return self.sockets.get((match_id, user_id), 0)


class RedisStore:
    """Socket counts every server process shares."""

    def __init__(self, url: str, namespace: str) -> None:
        # Here, not at the top: the embedded default (no Redis) never loads the client.
        import redis

        self.client: Any = redis.Redis.from_url(url, socket_timeout=10)
        self.prefix = f"ludo:{namespace}:sockets"

    def _key(self, match_id: int, user_id: int) -> str:
        return f"{self.prefix}:{match_id}:{user_id}"

    def opened(self, match_id: int, user_id: int) -> int:
        pipe = self.client.pipeline()
        pipe.incr(self._key(match_id, user_id))
        pipe.expire(self._key(match_id, user_id), COUNT_TTL)
        return int(pipe.execute()[0])

    def closed(self, match_id: int, user_id: int) -> int:
        left = int(self.client.decr(self._key(match_id, user_id)))
        if left <= 0:
            self.client.delete(self._key(match_id, user_id))
        return max(left, 0)

    def count(self, match_id: int, user_id: int) -> int:
        return max(int(self.client.get(self._key(match_id, user_id)) or 0), 0)


_store: Store | None = None
_store_lock = threading.Lock()


def store() -> Store:
    """The socket counts for this configuration (made once per process)."""
    global _store
    with _store_lock:
        if _store is None:
            url = getattr(settings, "REDIS_URL", None)
            if url:
                # Matches are numbered per database: keep two databases' counts apart.
                _store = RedisStore(url, str(settings.DATABASES["default"]["NAME"]))
            else:
                _store = MemoryStore()
        return _store


def reset_store(new: Store | None = None) -> None:
    """Forget the store (tests: a fresh one per test)."""
    global _store
    with _store_lock:
        _store = new


# ---------------------------------------------------------------------------- connections


def seat_connected(
    *, match_id: int, user: Any, ip: str | None = None, user_agent: bytes | str = b""
) -> None:
    """A seated player's socket opened: they are back in their seat (grace over, and a seat
    the computer played is theirs again)."""
    store().opened(match_id, user.pk)
    # A seat that is gone (the match was deleted) has nothing to mark.
    with contextlib.suppress(ServiceError):
        services.seat_set_connected(
            match_id=match_id, user=user, connected=True, ip=ip, user_agent=user_agent
        )


def seat_disconnected(*, match_id: int, user: Any, ip: str | None = None) -> None:
    """A seated player's socket closed; if it was their last one in the room, the seat is
    marked disconnected and its grace starts."""
    if store().closed(match_id, user.pk) > 0:
        return
    try:
        services.seat_set_connected(match_id=match_id, user=user, connected=False, ip=ip)
        if store().count(match_id, user.pk) > 0:
            # A socket opened while this one was being marked gone: connected after all.
            services.seat_set_connected(match_id=match_id, user=user, connected=True, ip=ip)
    except ServiceError:
        return
