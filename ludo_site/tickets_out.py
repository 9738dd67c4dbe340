"""A room socket's ticket (`games.live.tickets`) stops opening the seat when its account signs
out: one issued at or before the account's last sign-out (`accounts.signout`) is taken off the
socket's address before the ticket check, so the socket is whatever its session says (after
the sign-out, a visitor who only watches). Without this, a ticket copied from the page would
open the seat for the rest of its two minutes."""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qsl, urlencode

from asgiref.sync import sync_to_async
from django.core import signing

from accounts.signout import signed_out_at
from games.live import tickets


def issued(ticket: str) -> tuple[int, int] | None:
    """(account id, second it was issued) of a good, unexpired ticket; None otherwise (the
    ticket check decides what to do with it)."""
    try:
        user_id, _code = signing.loads(ticket, salt=tickets.SALT, max_age=tickets.TICKET_SECONDS)
        stamp = signing.b62_decode(ticket.rsplit(":", 2)[1])
    except (signing.BadSignature, ValueError, TypeError, IndexError):
        return None
    return (user_id, stamp) if isinstance(user_id, int) else None


class SignedOutTickets:
    """ASGI middleware, just outside the ticket check."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> Any:
        ticket = tickets.ticket_of(scope) if scope.get("type") == "websocket" else None
        found = issued(ticket) if ticket else None
        if found is not None:
            user_id, stamp = found
            # Off the shared thread: the cache is a network read.
            out = await sync_to_async(signed_out_at, thread_sensitive=False)(user_id)
            if out is not None and stamp <= out:
                query = (scope.get("query_string") or b"").decode("latin-1")
                kept = [(k, v) for k, v in parse_qsl(query) if k != "ticket"]
                scope = {**scope, "query_string": urlencode(kept).encode()}
        return await self.inner(scope, receive, send)
