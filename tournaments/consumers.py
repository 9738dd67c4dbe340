"""An event's standings socket (``ws/tournaments/<code>/``): anyone may listen. On connect it
sends the standings; then it relays each ``tournament.standings`` the services send after a
change commits, as ``{"t": "standings", "d": {...}}`` (the JSON endpoint's shape, without the
viewer's own part, which the page asks the endpoint for). It takes no intents; its frames and
how many one session holds open are bounded (`ops.listening`)."""

from __future__ import annotations

import json
from typing import Any

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer

from ops.listening import CLOSE_TOO_MANY, Bounds

from .models import Tournament
from .selectors import group_name, standings_data

CLOSE_NOT_FOUND = 4404


@database_sync_to_async
def _standings(code: str) -> dict[str, Any] | None:
    t = Tournament.objects.filter(code=code).first()
    return standings_data(t) if t is not None else None


MESSAGES = {
    "bad_request": "This socket only listens",
    "too_large": "Frames are at most 512 bytes",
    "rate_limited": "Too many frames; slow down",
    "too_many_sockets": "Too many standings sockets in this browser: close some",
}


def _error(code: str) -> str:
    return json.dumps({"t": "error", "d": {"code": code, "message": MESSAGES[code]}})


class StandingsConsumer(AsyncWebsocketConsumer):
    group: str = ""
    bounds: Bounds | None = None

    async def connect(self) -> None:
        code = str(self.scope["url_route"]["kwargs"]["code"]).upper()
        await self.accept()
        self.bounds = Bounds(self.scope, "standings")
        if not self.bounds.admit():
            await self.send(_error("too_many_sockets"))
            await self.close(code=CLOSE_TOO_MANY)
            return
        data = await _standings(code)
        if data is None:
            await self.send(json.dumps({"t": "error", "d": {"code": "not_found", "message": code}}))
            await self.close(code=CLOSE_NOT_FOUND)
            return
        self.group = group_name(code)
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.send(json.dumps({"t": "standings", "d": data}))

    async def disconnect(self, code: int) -> None:
        if self.bounds is not None:
            self.bounds.release()
        if self.group:
            await self.channel_layer.group_discard(self.group, self.channel_name)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        refused = self.bounds.refusal(text_data, bytes_data) if self.bounds else ""
        if refused is None:
            refused = "bad_request"
        if refused:
            await self.send(_error(refused))

    async def tournament_standings(self, event: dict[str, Any]) -> None:
        await self.send(json.dumps({"t": "standings", "d": event["d"]}))
