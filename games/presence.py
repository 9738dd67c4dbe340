"""Who is connected to a room, and the disconnect grace (RULES.md "disconnect").

The seat's ``connected`` flag is stored by the services (`services.seat_set_connected`); the
database stays the truth and every action re-checks it. What is kept here is only the grace
timer and the "computer plays for them" mark, where the clock sweep can find them each second:
a Redis sorted set (score: when the grace runs out) when Redis is configured, so that any
worker may sweep it, else a dictionary in the one server process of the embedded default.

- ``forfeit`` (classic, duel): after the grace the player forfeits.
- ``computer`` (mensch online, 45 s) and ``bot`` (party, at once): after the grace the
  computer plays that seat's turns, at a bot's pace, until the player is back.
"""

from __future__ import annotations

import contextlib
import threading
import time
from typing import Any, Protocol

from django.conf import settings

from .errors import ServiceError


def _key(match_id: int, corner: int) -> str:
    return f"{match_id}:{corner}"


def _parse(member: str | bytes) -> tuple[int, int]:
    text = member.decode() if isinstance(member, bytes) else member
    match_id, corner = text.split(":")
    return int(match_id), int(corner)


class Store(Protocol):
    def start_grace(self, match_id: int, corner: int, seconds: float) -> None: ...
    def back(self, match_id: int, corner: int) -> None: ...
    def due(self, limit: int) -> list[tuple[int, int]]: ...
    def drop_grace(self, match_id: int, corner: int) -> None: ...
    def set_away(self, match_id: int, corner: int) -> None: ...
    def is_away(self, match_id: int, corner: int) -> bool: ...
    def away(self) -> list[tuple[int, int]]: ...


class MemoryStore:
    """One process's timers (the embedded default: the server sweeps its own clocks)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.grace: dict[str, float] = {}
        self.away_seats: set[str] = set()

    def start_grace(self, match_id: int, corner: int, seconds: float) -> None:
        with self.lock:
            self.grace[_key(match_id, corner)] = time.monotonic() + seconds

    def back(self, match_id: int, corner: int) -> None:
        with self.lock:
            self.grace.pop(_key(match_id, corner), None)
            self.away_seats.discard(_key(match_id, corner))

    def due(self, limit: int) -> list[tuple[int, int]]:
        now = time.monotonic()
        with self.lock:
            keys = sorted((t, k) for k, t in self.grace.items() if t <= now)[:limit]
        return [_parse(k) for _, k in keys]

    def drop_grace(self, match_id: int, corner: int) -> None:
        with self.lock:
            self.grace.pop(_key(match_id, corner), None)

    def set_away(self, match_id: int, corner: int) -> None:
        with self.lock:
            self.away_seats.add(_key(match_id, corner))

    def is_away(self, match_id: int, corner: int) -> bool:
        with self.lock:
            return _key(match_id, corner) in self.away_seats

    def away(self) -> list[tuple[int, int]]:
        with self.lock:
            return [_parse(k) for k in sorted(self.away_seats)]


class RedisStore:
    """Timers every process shares; times from Redis' own clock so that hosts agree."""

    def __init__(self, url: str, namespace: str) -> None:
        import redis

        self.client: Any = redis.Redis.from_url(url, socket_timeout=10)
        self.grace = f"ludo:{namespace}:grace"
        self.away_seats = f"ludo:{namespace}:away"

    def _now(self) -> float:
        seconds, micros = self.client.time()
        return float(seconds) + micros / 1e6

    def start_grace(self, match_id: int, corner: int, seconds: float) -> None:
        self.client.zadd(self.grace, {_key(match_id, corner): self._now() + seconds})

    def back(self, match_id: int, corner: int) -> None:
        pipe = self.client.pipeline()
        pipe.zrem(self.grace, _key(match_id, corner))
        pipe.srem(self.away_seats, _key(match_id, corner))
        pipe.execute()

    def due(self, limit: int) -> list[tuple[int, int]]:
        members = self.client.zrangebyscore(self.grace, "-inf", self._now(), start=0, num=limit)
        return [_parse(m) for m in members]

    def drop_grace(self, match_id: int, corner: int) -> None:
        self.client.zrem(self.grace, _key(match_id, corner))

    def set_away(self, match_id: int, corner: int) -> None:
        self.client.sadd(self.away_seats, _key(match_id, corner))

    def is_away(self, match_id: int, corner: int) -> bool:
        return bool(self.client.sismember(self.away_seats, _key(match_id, corner)))

    def away(self) -> list[tuple[int, int]]:
        return sorted(_parse(m) for m in self.client.smembers(self.away_seats))


_store: Store | None = None
_store_lock = threading.Lock()


def store() -> Store:
    """The store for this configuration (made once per process)."""
    global _store
    with _store_lock:
        if _store is None:
            url = getattr(settings, "REDIS_URL", None)
            if url:
                # Matches are numbered per database: keep two databases' timers apart.
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


def seat_connected(*, match_id: int, user: Any, corner: int) -> None:
    """A seated player's socket opened: they are back in their seat."""
    from . import services

    store().back(match_id, corner)
    # A seat that is gone (the match ended) has nothing to mark.
    with contextlib.suppress(ServiceError):
        services.seat_set_connected(match_id=match_id, user=user, connected=True)


def seat_disconnected(*, match_id: int, user: Any, corner: int) -> None:
    """A seated player's last socket closed: the grace starts, if the preset has one."""
    from . import services
    from .clock import scaled
    from .models import Match, Status

    try:
        services.seat_set_connected(match_id=match_id, user=user, connected=False)
    except ServiceError:
        return
    match = Match.objects.filter(pk=match_id).only("ruleset", "options", "status", "mode").first()
    if match is None or match.status not in (Status.WAITING, Status.ACTIVE):
        return
    rules = match.rules
    if rules.on_disconnect == "none" or rules.disconnect_seconds is None or match.mode == "local":
        return
    store().start_grace(match_id, corner, scaled(rules.disconnect_seconds).total_seconds())


# ---------------------------------------------------------------------------- the sweep


def sweep_grace(*, batch: int) -> int:
    """Act on every grace that ran out, then let the computer step for seats marked away."""
    from . import services_presence

    acted = 0
    keeper = store()
    for match_id, corner in keeper.due(batch):
        outcome = services_presence.grace_expired(match_id=match_id, corner=corner)
        keeper.drop_grace(match_id, corner)
        if outcome == "away":
            keeper.set_away(match_id, corner)
        if outcome is not None:
            acted += 1
    for match_id, corner in keeper.away()[:batch]:
        outcome = services_presence.away_act(match_id=match_id, corner=corner)
        if outcome == "gone":
            keeper.back(match_id, corner)  # forget it: the match ended or the seat left
        elif outcome == "acted":
            acted += 1
    return acted
