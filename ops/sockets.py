"""The WebSockets as an operator sees them, from outside the consumers: an ASGI wrapper
around the socket routes (`ludo_site.asgi`) that counts sockets open and accepted, the
frames clients send by type, the error frames sent by code, and the time from a client's
action to the next update that socket is sent; and that gives each socket a request id and
its room code for the log lines logged while it runs (`ops.logs`).

It reads frames and never changes them: the consumers' wire format is theirs."""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from ops import logs, metrics

log = logging.getLogger("ludo.sockets")

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]

ROOM = re.compile(r"^/ws/match/([^/]+)/?$")
# A client frame's type: frames start {"t": "..." (wire.loads parses them properly later).
FRAME_TYPE = re.compile(r'^\s*\{\s*"t"\s*:\s*"([a-z_]{1,16})"')
SERVER_TYPE = re.compile(r'^\{"t":"([a-z_]{1,16})"')
ERROR_CODE = re.compile(r'"code":"([a-z_]{1,32})"')
ACTIONS = frozenset({"roll", "move", "undo", "resign", "react"})
KNOWN = ACTIONS | {"resync", "hello", "ping", "pong"}


def _route(path: str) -> str:
    if ROOM.match(path):
        return "match"
    if path.startswith("/ws/lobby"):
        return "lobby"
    return "other"


class SocketWatch:
    """Wraps the WebSocket app; HTTP and lifespan pass straight through."""

    def __init__(self, app: App) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope.get("type") != "websocket":
            await self.app(scope, receive, send)
            return
        path = str(scope.get("path", ""))
        room = ROOM.match(path)
        logs.request_id.set(logs.new_id(_header(scope, b"x-request-id")))
        logs.room.set(room.group(1) if room else "")
        route = _route(path)
        state: dict[str, Any] = {"accepted": False, "acted": None, "opened": 0.0}

        async def watched_receive() -> Message:
            message = await receive()
            text = message.get("text")
            if message.get("type") == "websocket.receive" and isinstance(text, str):
                found = FRAME_TYPE.match(text)
                t = found.group(1) if found and found.group(1) in KNOWN else "other"
                metrics.frame_received(t)
                if t in ACTIONS and state["acted"] is None:
                    state["acted"] = time.perf_counter()
            return message

        async def watched_send(message: Message) -> None:
            kind = message.get("type")
            if kind == "websocket.accept" and not state["accepted"]:
                state["accepted"] = True
                state["opened"] = time.monotonic()
                metrics.socket_opened(route)
            elif kind == "websocket.send":
                _sent(message.get("text"), state)
            await send(message)

        try:
            await self.app(scope, watched_receive, watched_send)
        finally:
            if state["accepted"]:
                metrics.socket_closed()
                log.info("socket closed after %.1f s", time.monotonic() - state["opened"])


def _sent(text: Any, state: dict[str, Any]) -> None:
    if not isinstance(text, str):
        return
    found = SERVER_TYPE.match(text)
    t = found.group(1) if found else ""
    if t == "error":
        code = ERROR_CODE.search(text)
        metrics.error_frame(code.group(1) if code else "unknown")
        state["acted"] = None  # the action was refused: no update follows it
    elif t in ("update", "state") and state["acted"] is not None:
        metrics.update_sent(time.perf_counter() - state["acted"])
        state["acted"] = None


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers") or ():
        if key == name:
            return bytes(value).decode("latin-1")
    return None
