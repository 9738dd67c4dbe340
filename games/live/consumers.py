"""The match room over WebSocket (``ws/match/<room code>/``): a thin adapter
(docs/architecture.md, "The layers").

A consumer authenticates (a signed ticket the room page gives, `games.live.tickets`, else
the session), validates a frame's shape (`games.live.wire`) and hands it to its room
(`games.live.room`, found by `games.live.hub`): the room calls one service, and relays the
broadcasts of the match's group to its sockets. A consumer never changes a match itself.
"""

from __future__ import annotations

import contextlib
import ipaddress
import logging
from http.cookies import CookieError, SimpleCookie
from typing import Any
from urllib.parse import parse_qs

from channels.consumer import get_handler_name
from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings
from django.utils.translation.trans_real import parse_accept_lang_header

from accounts.language import supported
from accounts.models import is_guest
from games.live import tickets
from games.live.dbthreads import finish_db_work, on_db_thread
from games.live.hub import hub
from games.live.room import Room
from games.live.viewer import UNAVAILABLE, Viewer
from games.live.wire import RateLimit, WireError, parse, told_frame
from games.match.rooms import normalise

__all__ = ["MatchConsumer", "finish_db_work", "on_db_thread"]

log = logging.getLogger(__name__)

# Close codes in the 4000-4999 range left to applications; 1011 is the protocol's own
# "the server met a condition it could not handle" (the browser reconnects).
CLOSE_NOT_FOUND = 4404
CLOSE_UNAVAILABLE = 1011
CLOSE_TOO_MANY = 4429
CLOSE_BAD_TICKET = 4401


def _rate() -> tuple[float, int]:
    return float(settings.LUDO_WS_RATE), int(settings.LUDO_WS_BURST)


class MatchConsumer(AsyncWebsocketConsumer):
    """One socket of one viewer (a seated player or a spectator) in one room."""

    room: Room | None = None
    viewer: Viewer | None = None
    session: str = ""  # the key this socket is counted under (`Hub.by_session`)

    async def dispatch(self, message: dict[str, Any]) -> None:
        """Hand `message` to its handler. Channels' own dispatch first closes old database
        connections on the one shared sync thread, for every message of every socket: under
        load that hop queued every socket of the process behind one thread (issue 14). This
        consumer touches the database only through its room's database threads."""
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

    async def send_text(self, text: str) -> None:
        await self.send(text_data=text)

    async def connect(self) -> None:
        self.limit = RateLimit(*_rate())
        self.last_limited = -1.0
        # Accept at once: the server gives a handshake a few seconds, and the lookups below
        # queue behind other database work under load.
        await self.accept()
        if self.scope.get("ticket_refused"):
            await self.send(self.error("bad_ticket", "This room link is not valid: reload"))
            await self.close(code=CLOSE_BAD_TICKET)
            return
        code = normalise(str(self.scope["url_route"]["kwargs"].get("code", "")))
        try:
            user = await tickets.user_of(self.scope)
            session = _session_of(self.scope, user)
            if not hub().open_session(session):
                await self.send(
                    self.error(
                        "too_many_sockets", "Too many open rooms in this browser: close some"
                    )
                )
                await self.close(code=CLOSE_TOO_MANY)
                return
            self.session = session
            self.viewer = Viewer(
                user=user,
                send=self.send_text,
                ip=_socket_ip(self.scope),
                agent=_agent(self.scope),
                language=_language(self.scope, user),
            )
            self.room = await hub().enter(self.viewer, code) if code else None
        except Exception:  # noqa: BLE001 - the database or Redis is down: say so, and close
            log.exception("socket to room %s: could not enter", code)
            await self.send(self.error("unavailable", UNAVAILABLE))
            await self.close(code=CLOSE_UNAVAILABLE)
            return
        if self.room is None:
            await self.send(self.error("not_found", "There is no room with that code"))
            await self.close(code=CLOSE_NOT_FOUND)

    def error(self, code: str, message: str) -> str:
        """An error frame for this socket: the English `message` and its text in the reader's
        language (the socket's, else the handshake's)."""
        language = self.viewer.language if self.viewer is not None else ""
        return told_frame(code, message, language or _language(self.scope, None))

    async def disconnect(self, code: int) -> None:
        if self.session:
            hub().close_session(self.session)
            self.session = ""
        room, self.room = self.room, None
        if room is not None and self.viewer is not None:
            await room.leave(self.viewer)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        if self.room is None or self.viewer is None:
            return
        if not self.limit.allow():
            # One error a second at most: answering every frame of a flood would be a flood.
            now = self.limit.last
            if now - self.last_limited >= 1.0:
                self.last_limited = now
                await self.send(self.error("rate_limited", "Too many frames; slow down"))
            return
        try:
            intent = parse(text_data, bytes_data)
        except WireError as e:
            await self.send(self.error(e.code, e.message))
            return
        await self.room.act(self.viewer, intent)


def _session_of(scope: dict[str, Any], user: Any) -> str:
    """What this socket is counted under: the browser's session, else the ticket's account,
    else (a visitor) the address."""
    session = scope.get("session")
    key = getattr(session, "session_key", None) if session is not None else None
    if key:
        return f"session:{key}"
    if scope.get("ticket_user") and user is not None:
        return f"user:{user.pk}"
    return f"address:{_socket_ip(scope)}"


def _socket_ip(scope: dict[str, Any]) -> str | None:
    """The address the socket came from (the server's view: no proxy header is trusted)."""
    client = scope.get("client") or (None,)
    try:
        return str(ipaddress.ip_address(client[0]))
    except ValueError:
        return None


def _language(scope: dict[str, Any], user: Any) -> str:
    """The reader's language for the socket (issue 29): the page's (``?lang=`` on the socket's
    URL, which the room page writes), else a signed-in player's setting, else the language
    cookie, else the handshake's Accept-Language, else English."""
    query = parse_qs((scope.get("query_string") or b"").decode("latin-1"))
    headers = dict(scope.get("headers") or ())
    cookies = SimpleCookie()
    with contextlib.suppress(CookieError):
        cookies.load(headers.get(b"cookie", b"").decode("latin-1"))
    cookie = cookies.get(settings.LANGUAGE_COOKIE_NAME)
    saved = getattr(user, "language", "") if user is not None and not is_guest(user) else ""
    for code in ((query.get("lang") or [""])[0], saved, cookie.value if cookie else ""):
        found = supported(code)
        if found:
            return found
    for code, _q in parse_accept_lang_header(
        headers.get(b"accept-language", b"").decode("latin-1")
    ):
        found = supported(code) if code != "*" else None
        if found:
            return found
    return str(settings.LANGUAGE_CODE)


def _agent(scope: dict[str, Any]) -> bytes:
    """The browser's User-Agent header on the socket's handshake (empty if none)."""
    return next((v for k, v in scope.get("headers") or () if k == b"user-agent"), b"")
