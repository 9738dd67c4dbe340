"""Bounds for the sockets that mostly listen: the lobby's (``ws/lobby/``) and an event's
standings (``ws/tournaments/<code>/``). Like the match socket, each holds a bound on the
frames a client may send (`FRAME_BYTES` each, `RATE` a second in bursts of `BURST`: a status
request reads the database, so a flood of them would slow every page) and on how many of its
kind one account (a visitor: one address) may hold open in one server process
(``SOCKETS_PER_SESSION``; then the error ``too_many_sockets`` and close code 4429)."""

from __future__ import annotations

import ipaddress
from collections import Counter
from typing import Any

from django.conf import settings

from games.live.wire import RateLimit

FRAME_BYTES = 512
RATE = 1.0
BURST = 5
CLOSE_TOO_MANY = 4429

_open: Counter[str] = Counter()


def holder(scope: dict[str, Any]) -> str:
    """Whom a socket is counted under: its signed-in account (the session already read by the
    auth middleware: a made-up session cookie names nobody), else the address it came from
    (the server's view of it)."""
    user = scope.get("user")
    if user is not None and getattr(user, "is_authenticated", False):
        return f"user:{user.pk}"
    client = scope.get("client") or ("",)
    try:
        return f"address:{ipaddress.ip_address(client[0])}"
    except ValueError:
        return "address:unknown"


class Bounds:
    """One listening socket's bounds: `admit` when it connects, `release` when it closes,
    `refusal` for each frame it sends."""

    def __init__(self, scope: dict[str, Any], route: str) -> None:
        self.key = f"{route}:{holder(scope)}"
        self.admitted = False
        self.bucket = RateLimit(RATE, BURST)
        self.last_limited = -1.0

    def admit(self) -> bool:
        """Counted in, unless its holder has as many of its kind open here as allowed."""
        if _open[self.key] >= int(settings.SOCKETS_PER_SESSION):
            return False
        _open[self.key] += 1
        self.admitted = True
        return True

    def release(self) -> None:
        if self.admitted:
            self.admitted = False
            _open[self.key] -= 1
            if _open[self.key] <= 0:
                del _open[self.key]

    def refusal(self, text_data: str | None, bytes_data: bytes | None) -> str | None:
        """The error code a frame is refused with (``too_large``, ``rate_limited``), "" for a
        refused one to drop without an answer (a flood gets one answer a second), or None
        when it may be handled."""
        if not self.bucket.allow():
            now = self.bucket.last
            if now - self.last_limited >= 1.0:
                self.last_limited = now
                return "rate_limited"
            return ""
        size = len(bytes_data) if bytes_data is not None else len((text_data or "").encode())
        if size > FRAME_BYTES:
            return "too_large"
        return None
