"""The socket's own refusals (a frame it cannot read, a room code that does not exist, too
many sockets, the database away) keep their English `message` and carry `text` in the
reader's language, as the services' refusals do (issue 29)."""

from __future__ import annotations

from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.utils import translation

from accounts.models import User
from games.live.wire import WIRE_CODES, WIRE_TEXTS, told
from games.match.errors import TEXTS
from ludo_site.asgi import application
from ludo_site.settings import LANGUAGES
from tests.realtime.conftest import alice, bob, own_layer_and_timers, session_cookie, two_player

__all__ = ["alice", "bob", "own_layer_and_timers"]


def test_every_wire_code_is_told_in_every_language() -> None:
    codes = set(WIRE_CODES) | set(WIRE_TEXTS)
    for code in codes:
        assert code in WIRE_TEXTS or code in TEXTS, code
        for language, _name in LANGUAGES:
            text = told(code, "English", language)
            if language == "en":
                assert text == "English"
                continue
            with translation.override("en"):
                english = str(WIRE_TEXTS.get(code) or TEXTS[code])
            assert text and text != english, (code, language, text)


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_a_bad_frame_and_an_unknown_room_are_refused_in_the_readers_language(
    alice: User, bob: User
) -> None:
    match = await database_sync_to_async(two_player)(alice, bob)
    cookie = await database_sync_to_async(session_cookie)(alice)
    headers = [(b"origin", b"http://localhost"), (b"host", b"localhost")]
    ws: Any = WebsocketCommunicator(
        application,
        f"/ws/match/{match.code}/?lang=de",
        headers=[*headers, (b"cookie", cookie.encode())],
    )
    assert (await ws.connect())[0]
    state = await ws.receive_json_from(timeout=5)
    assert state["t"] == "state"
    while not await ws.receive_nothing(timeout=0.2):
        await ws.receive_json_from(timeout=5)
    await ws.send_to(text_data='{"t": "fly"}')
    reply = await ws.receive_json_from(timeout=5)
    assert reply["d"]["code"] == "bad_message"
    assert reply["d"]["message"].startswith("Unknown frame type")  # the English, as it was
    assert reply["d"]["text"] == told("bad_message", "", "de") != reply["d"]["message"]
    await ws.disconnect()

    lost: Any = WebsocketCommunicator(
        application, "/ws/match/ZZZZZZ/", headers=[*headers, (b"accept-language", b"ar")]
    )
    assert (await lost.connect())[0]
    refused = await lost.receive_json_from(timeout=5)
    assert refused["d"]["code"] == "not_found"
    assert refused["d"]["message"] == "There is no room with that code"
    with translation.override("ar"):
        assert refused["d"]["text"] == str(WIRE_TEXTS["not_found"])
    await lost.disconnect()
