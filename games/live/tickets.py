"""Short-lived signed tickets for the match socket (issue 27: sockets open fast).

The room page is rendered for a signed-in viewer, so it can give the page's socket a ticket
saying who it is: ``/ws/match/<code>/?ticket=...``, signed with the site's key, naming the
account and the room, good for `TICKET_SECONDS`. A socket that brings a good ticket is
authenticated with one primary-key read on the database threads, instead of the session
and user load that channels' auth middleware runs on its one shared thread for every socket
(which queued the sockets of a whole process behind each other at 1,000 rooms).

A ticket that is not the site's (forged, altered, for another room) is refused: the socket
is told ``bad_ticket`` and closed (4401). One that is only too old is ignored: the socket is
authenticated by its session cookie as before (the page's reconnect after a long outage).
"""

from __future__ import annotations

import logging
from typing import Any
from urllib.parse import parse_qs

from django.contrib.auth import get_user_model
from django.core import signing

from games.live.dbthreads import on_db_thread

log = logging.getLogger(__name__)

SALT = "ludo.live.ticket"
TICKET_SECONDS = 120


def issue(user: Any, code: str) -> str:
    """A ticket for `user`'s socket to room `code`."""
    return signing.dumps([int(user.pk), code], salt=SALT, compress=False)


class TicketRefused(Exception):
    """Not a ticket of this site for this room."""


def read(ticket: str, code: str, *, max_age: float | None = None) -> int | None:
    """The account id `ticket` names for room `code`; None when it is only expired;
    `TicketRefused` when it is not a good ticket for this room."""
    age = TICKET_SECONDS if max_age is None else max_age
    try:
        user_id, for_code = signing.loads(ticket, salt=SALT, max_age=age)
    except signing.SignatureExpired:
        return None
    except (signing.BadSignature, ValueError, TypeError):
        raise TicketRefused from None
    if not isinstance(user_id, int) or for_code != code:
        raise TicketRefused
    return user_id


def ticket_of(scope: dict[str, Any]) -> str | None:
    query = scope.get("query_string") or b""
    values = parse_qs(query.decode("latin-1")).get("ticket")
    return values[0] if values else None


class TicketAuth:
    """ASGI middleware for the match socket: a good ticket sets ``scope["user"]`` (read on the
    database threads) and skips the session stack; otherwise `fallback` (channels'
    `AuthMiddlewareStack`) authenticates by the session cookie."""

    def __init__(self, inner: Any, fallback: Any) -> None:
        self.inner = inner
        self.fallback = fallback

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> Any:
        ticket = ticket_of(scope) if scope.get("type") == "websocket" else None
        if ticket:
            code = _code_of(scope.get("path", ""))
            try:
                user_id = read(ticket, code)
            except TicketRefused:
                log.info("socket to %s: ticket refused", code)
                scope = {**scope, "ticket_refused": True}
                return await self.inner(scope, receive, send)
            if user_id is not None:
                # The account is read by the socket once it is accepted (`user_of`), on the
                # database threads, where a database away is answered with a coded error.
                scope = {**scope, "ticket_user": user_id}
                return await self.inner(scope, receive, send)
        return await self.fallback(scope, receive, send)


def _code_of(path: str) -> str:
    """The room code of ``/ws/match/<code>/``."""
    parts = [p for p in path.split("/") if p]
    return parts[2] if len(parts) >= 3 and parts[:2] == ["ws", "match"] else ""


async def user_of(scope: dict[str, Any]) -> Any:
    """The signed-in account of a socket: its ticket's (one read on the database threads), else
    the session's; None for a visitor (or an account no longer active)."""
    user_id = scope.get("ticket_user")
    if user_id:

        def get() -> Any:
            return get_user_model().objects.filter(pk=user_id, is_active=True).first()

        return await on_db_thread(get)()
    user = scope.get("user")
    return user if user is not None and user.is_authenticated else None
