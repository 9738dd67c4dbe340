"""The lobby socket (``ws/lobby/``): tells a player waiting in a quick-match queue where their
match is. Thin: it joins the player's group (`matchmaking.lobby_group`, one per account, every
tab), sends the queue status on connect and on request, and relays ``lobby.matched``, which
the matchmaker sends after it has seated the player. Joining and cancelling are HTTP
(`ranked.views`); the page polls the status endpoint too when the socket is down. Its frames
and how many one session holds open are bounded (`ops.listening`).
"""

from __future__ import annotations

import json
from typing import Any

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer

from games.live.wire import WireError, loads
from ops.listening import CLOSE_TOO_MANY, Bounds

from . import matchmaking

CLOSE_NO_PLAYER = 4401


@database_sync_to_async
def _status(user: Any) -> dict[str, Any]:
    return matchmaking.status(user)


MESSAGES = {
    "too_large": "Frames are at most 512 bytes",
    "rate_limited": "Too many frames; slow down",
    "too_many_sockets": "Too many lobby sockets in this browser: close some",
}


def _error(code: str) -> str:
    return json.dumps({"type": "error", "code": code, "message": MESSAGES[code]})


class LobbyConsumer(AsyncWebsocketConsumer):
    group: str = ""
    bounds: Bounds | None = None

    async def connect(self) -> None:
        user = self.scope.get("user")
        await self.accept()
        self.bounds = Bounds(self.scope, "lobby")
        if not self.bounds.admit():
            await self.send(_error("too_many_sockets"))
            await self.close(code=CLOSE_TOO_MANY)
            return
        if user is None or not user.is_authenticated:
            await self.send(
                json.dumps(
                    {"type": "error", "code": "forbidden", "message": "Open the queue page first"}
                )
            )
            await self.close(code=CLOSE_NO_PLAYER)
            return
        self.user = user
        self.group = matchmaking.lobby_group(user.pk)
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.send_status()

    async def disconnect(self, code: int) -> None:
        if self.bounds is not None:
            self.bounds.release()
        if self.group:
            await self.channel_layer.group_discard(self.group, self.channel_name)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        refused = self.bounds.refusal(text_data, bytes_data) if self.bounds else ""
        if refused is not None:
            if refused:
                await self.send(_error(refused))
            return
        if not self.group:
            return  # refused at connect: closing
        try:
            message = loads(text_data or "")
        except WireError:
            message = None
        if not isinstance(message, dict) or message.get("type") != "status":
            await self.send(
                json.dumps(
                    {"type": "error", "code": "bad_request", "message": 'Send {"type": "status"}'}
                )
            )
            return
        await self.send_status()

    async def send_status(self) -> None:
        status = await _status(self.user)
        await self.send(json.dumps({"type": "status", **status}))

    async def lobby_matched(self, event: dict[str, Any]) -> None:
        await self.send(json.dumps({"type": "matched", "code": event["code"], "url": event["url"]}))
