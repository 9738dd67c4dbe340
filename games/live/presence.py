"""Who is connected to a room, and the disconnect grace (docs/rules.md, "Clocks and absent
players").

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
import os
import socket
import threading
import time
import uuid
from collections import Counter
from typing import Any, Protocol

from django.conf import settings

from accounts.models import User
from games import services
from games.match.errors import ServiceError
from games.models import Mode, Seat, Status

log = logging.getLogger(__name__)

# A player's socket counts are dropped this long after their last socket opened (seconds);
# a killed process's counts stop counting much sooner (PROCESS_TTL).
COUNT_TTL = 24 * 3600
# A server process's sockets count while it refreshes its liveness key: every
# `LUDO_HEARTBEAT_SECONDS` (5, `games.live.hub.Hub.beat`), so a process killed stops
# counting within this.
PROCESS_TTL = 15
# A process writes all its counts again at least this often (`RedisStore.heartbeat`).
REWRITE_SECONDS = 60
# This process, among those sharing the counts.
PROCESS = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


class Store(Protocol):
    def opened(self, match_id: int, user_id: int) -> int: ...
    def closed(self, match_id: int, user_id: int) -> int: ...
    def count(self, match_id: int, user_id: int) -> int: ...
    def heartbeat(self, counts: dict[tuple[int, int], int] | None = None) -> None: ...


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

    def heartbeat(self, counts: dict[tuple[int, int], int] | None = None) -> None:
        """Nothing to refresh: the counts die with the one process that holds them."""


class RedisStore:
    """Socket counts every server process shares, each process's own: a hash per player and
    room holds one count per process, and a process counts only while its liveness key lives
    (`PROCESS_TTL` seconds, refreshed by `heartbeat` from the sockets' heartbeat). A process
    killed with its sockets stops counting within `PROCESS_TTL` seconds (issue 12: its counts
    lived 24 hours, and a player who then left was never marked disconnected)."""

    def __init__(self, url: str, prefix: str, process: str | None = None) -> None:
        # Here, not at the top: the embedded default (no Redis) never loads the client.
        import redis

        self.client: Any = redis.Redis.from_url(url, socket_timeout=10)
        self.prefix = f"{prefix}:sockets"
        self.process = process or PROCESS

    def _key(self, match_id: int, user_id: int) -> str:
        return f"{self.prefix}:{match_id}:{user_id}"

    def _alive(self, process: str) -> str:
        return f"{self.prefix}:process:{process}"

    def heartbeat(self, counts: dict[tuple[int, int], int] | None = None) -> None:
        """This process is alive: its counts go on counting for `PROCESS_TTL` seconds. With
        `counts` ((match id, user id) -> sockets open here), they are written again when
        Redis no longer has this process's mark of its last full write (`REWRITE_SECONDS`
        old, or lost with Redis restarted without its data): counts lost come back within a
        beat, a count gone wrong within `REWRITE_SECONDS`, and the beats between write one
        key, not two per player (issue 27: at 1,000 rooms, 4,000 commands a beat)."""
        pipe = self.client.pipeline()
        pipe.set(self._alive(self.process), 1, ex=PROCESS_TTL)
        if counts:
            pipe.set(self._written(self.process), 1, ex=REWRITE_SECONDS, nx=True)
        done = pipe.execute()
        if not counts or not done[-1]:
            return  # nothing to write, or written in the last REWRITE_SECONDS
        pipe = self.client.pipeline()
        for (match_id, user_id), n in counts.items():
            pipe.hset(self._key(match_id, user_id), self.process, n)
            pipe.expire(self._key(match_id, user_id), COUNT_TTL)
        pipe.execute()

    def _written(self, process: str) -> str:
        return f"{self.prefix}:written:{process}"

    def opened(self, match_id: int, user_id: int) -> int:
        pipe = self.client.pipeline()
        pipe.set(self._alive(self.process), 1, ex=PROCESS_TTL)
        pipe.hincrby(self._key(match_id, user_id), self.process, 1)
        pipe.expire(self._key(match_id, user_id), COUNT_TTL)
        pipe.execute()
        return self.count(match_id, user_id)

    def closed(self, match_id: int, user_id: int) -> int:
        key = self._key(match_id, user_id)
        if int(self.client.hincrby(key, self.process, -1)) <= 0:
            self.client.hdel(key, self.process)
        return self.count(match_id, user_id)

    def count(self, match_id: int, user_id: int) -> int:
        key = self._key(match_id, user_id)
        counts = {p.decode(): int(n) for p, n in self.client.hgetall(key).items()}
        if not counts:
            return 0
        processes = sorted(counts)
        alive = self.client.mget([self._alive(p) for p in processes])
        dead = [p for p, flag in zip(processes, alive, strict=True) if flag is None]
        if dead:
            self.client.hdel(key, *dead)  # a killed process's sockets
        return sum(max(counts[p], 0) for p, flag in zip(processes, alive, strict=True) if flag)


_store: Store | None = None
_store_lock = threading.Lock()


def store() -> Store:
    """The socket counts for this configuration (made once per process)."""
    global _store
    with _store_lock:
        if _store is None:
            url = settings.REDIS_URL
            # Matches are numbered per database: the site's prefix (by default from the
            # database's name) keeps two sites' counts apart.
            _store = RedisStore(url, settings.REDIS_PREFIX) if url else MemoryStore()
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


# ---------------------------------------------------------------------------- the sweep

# How often (seconds, per process) the sweep looks for seats left connected by a killed
# server process.
ORPHANS_EVERY = 10.0
_orphans_at = 0.0
# (match id, user id) -> when the sweep first found no socket counting: marked only when still
# so `PROCESS_TTL` later, after every live process's heartbeat wrote its counts again (Redis
# restarted without its data loses them all at once).
_suspects: dict[tuple[int, int], float] = {}


def sweep_orphans(*, batch: int) -> int:
    """Seats marked connected whose player has no socket counting any more, because the server
    process that held it was killed: marked disconnected, so the grace starts (issue 12: such
    a player was never marked gone). Shared counts only (Redis): the embedded default's one
    process holds its sockets and its clock together. At most every `ORPHANS_EVERY` seconds;
    returns how many seats were marked."""
    global _orphans_at
    counts = store()
    if not isinstance(counts, RedisStore):
        return 0
    now = time.monotonic()
    if now - _orphans_at < ORPHANS_EVERY:
        return 0
    _orphans_at = now
    seats = set(
        Seat.objects.filter(
            match__status=Status.ACTIVE, connected=True, user__isnull=False, left=False
        )
        .exclude(match__mode=Mode.LOCAL)
        .values_list("match_id", "user_id")[:batch]
    )
    marked = 0
    for key in [k for k in _suspects if k not in seats]:
        del _suspects[key]
    for match_id, user_id in sorted(seats):
        if counts.count(match_id, user_id) > 0:
            _suspects.pop((match_id, user_id), None)
            continue
        first_seen = _suspects.setdefault((match_id, user_id), now)
        if now - first_seen < PROCESS_TTL:
            continue
        del _suspects[(match_id, user_id)]
        user = User.objects.filter(pk=user_id).first()
        if user is None:
            continue
        try:
            services.seat_set_connected(match_id=match_id, user=user, connected=False)
            if counts.count(match_id, user_id) > 0:
                # A socket opened meanwhile: connected after all.
                services.seat_set_connected(match_id=match_id, user=user, connected=True)
        except ServiceError:
            continue
        marked += 1
    if marked:
        log.info("presence: %s seats had no live socket left; marked disconnected", marked)
    return marked
