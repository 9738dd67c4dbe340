"""An event's standings socket (``ws/tournaments/<code>/``): anyone may listen. On connect it
sends the standings; then it relays each ``tournament.standings`` the services send after a
change commits, as ``{"t": "standings", "d": {...}}`` (the JSON endpoint's shape, without the
viewer's own part, which the page asks the endpoint for). It takes no intents."""

from __future__ import annotations

import json
from typing import Any

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer

from .models import Tournament
from .selectors import group_name, standings_data

CLOSE_NOT_FOUND = 4404


@database_sync_to_async
def _standings(code: str) -> dict[str, Any] | None:
    t = Tournament.objects.filter(code=code).first()
    return standings_data(t) if t is not None else None


class StandingsConsumer(AsyncWebsocketConsumer):
    group: str = ""

    async def connect(self) -> None:
        code = str(self.scope["url_route"]["kwargs"]["code"]).upper()
        await self.accept()
        data = await _standings(code)
        if data is None:
            await self.send(json.dumps({"t": "error", "d": {"code": "not_found", "message": code}}))
            await self.close(code=CLOSE_NOT_FOUND)
            return
        self.group = group_name(code)
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.send(json.dumps({"t": "standings", "d": data}))

    async def disconnect(self, code: int) -> None:
        if self.group:
            await self.channel_layer.group_discard(self.group, self.channel_name)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        await self.send(
            json.dumps(
                {"t": "error", "d": {"code": "bad_request", "message": "This socket only listens"}}
            )
        )

    async def tournament_standings(self, event: dict[str, Any]) -> None:
        await self.send(json.dumps({"t": "standings", "d": event["d"]}))
