"""Malformed input gets a coded error, never a 500 or a socket dropped without an error frame
(issue 12: deeply nested JSON within the 2 KB limit closed the socket with a traceback; NUL
characters or lone surrogates in an id, a path or a body gave database errors and 500s)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.test import Client

from accounts.models import User
from games.live.wire import MAX_FRAME_BYTES, WireError, parse

from .conftest import socket, two_player

DEEP = '{"t":"roll","v":1,"id":"x","d":' + "[" * 900 + "]" * 900 + "}"
BAD_FRAMES = {
    "deep": DEEP,
    "deep object": '{"t":"roll","v":1,"id":"x","d":' + '{"a":' * 300 + "1" + "}" * 300 + "}",
    "NUL in id": '{"t":"roll","v":1,"id":"a\\u0000b"}',
    "lone surrogate in id": '{"t":"roll","v":1,"id":"\\ud800"}',
    "lone surrogate in a key": '{"t":"roll","v":1,"id":"a","d":{"\\udfff":1}}',
}


@pytest.mark.parametrize("name", sorted(BAD_FRAMES))
def test_parse_refuses_with_a_code(name: str) -> None:
    text = BAD_FRAMES[name]
    assert len(text.encode()) <= MAX_FRAME_BYTES
    with pytest.raises(WireError) as refused:
        parse(text)
    assert refused.value.code == "bad_message"


@pytest.mark.asyncio
async def test_socket_answers_every_bad_frame_and_stays_open(alice: User, bob: User) -> None:
    from channels.db import database_sync_to_async

    match = await database_sync_to_async(two_player)(alice, bob)
    ws = await socket(match.code, alice)
    assert (await ws.connect())[0]
    state = await ws.receive_json_from(timeout=5)
    while not await ws.receive_nothing(timeout=0.2):
        await ws.receive_json_from(timeout=5)  # the others' presence news
    for text in BAD_FRAMES.values():
        await ws.send_to(text_data=text)
        reply = await ws.receive_json_from(timeout=5)
        assert reply["t"] == "error" and reply["d"]["code"] == "bad_message", reply
    # Still open and playing: a good roll goes through.
    await ws.send_to(text_data=json.dumps({"t": "roll", "v": state["v"], "id": "r1"}))
    update = await ws.receive_json_from(timeout=5)
    assert update["t"] == "update", update
    await ws.disconnect()


@pytest.fixture
def api_user(db: Any) -> Client:
    user = User.objects.create(username="poke")
    client = Client()
    client.force_login(user)
    return client


@pytest.mark.parametrize(
    "body",
    [
        '{"ruleset":"classic","players":2,"mode":"friendly","x":' + "[" * 900 + "]" * 900 + "}",
        '{"ruleset":"classic\\u0000","players":2,"mode":"friendly"}',
        '{"ruleset":"\\ud800","players":2,"mode":"friendly"}',
    ],
)
def test_api_bodies_are_refused_with_a_code(api_user: Client, body: str) -> None:
    response = api_user.post("/api/matches", body, content_type="application/json")
    assert response.status_code == 400, response.content
    assert response.json()["code"] == "bad_message"


def test_api_action_ids_with_nul_or_surrogates_are_refused(api_user: Client) -> None:
    created = api_user.post(
        "/api/matches",
        {"ruleset": "classic", "players": 2, "mode": "practice", "bots": {"2": "easy"}},
        content_type="application/json",
    )
    code = created.json()["code"]
    for action_id in ("a\\u0000", "\\udc80"):
        body = '{"t":"roll","v":1,"id":"' + action_id + '"}'
        response = api_user.post(
            f"/api/matches/{code}/actions", body, content_type="application/json"
        )
        assert response.status_code == 400 and response.json()["code"] == "bad_message"


@pytest.mark.parametrize(
    "path",
    [
        "/api/matches/AB%00CD",
        "/api/matches/%00/replay",
        "/r/%00/",
        "/players/ann%00/",
        "/leaderboards/%00/",
        "/join/?code=%00",
        "/accounts/login/?next=%00",
    ],
)
def test_paths_and_queries_with_nul_are_a_coded_400(db: Any, path: str) -> None:
    response = Client(raise_request_exception=False).get(path)
    assert response.status_code == 400, (path, response.status_code)
    if path.startswith("/api/"):
        assert response.json()["code"] == "bad_request"


def test_form_fields_with_nul_are_a_coded_400(db: Any) -> None:
    response = Client(raise_request_exception=False).post(
        "/accounts/login/", {"username": "ann\x00", "password": "x"}
    )
    assert response.status_code == 400


@pytest.mark.asyncio
async def test_a_handshake_whose_accept_language_is_not_utf8_opens_the_socket(
    alice: User, bob: User
) -> None:
    from channels.db import database_sync_to_async
    from channels.testing import WebsocketCommunicator

    from ludo_site.asgi import application

    match = await database_sync_to_async(two_player)(alice, bob)
    headers = [
        (b"origin", b"http://localhost"),
        (b"host", b"localhost"),
        (b"accept-language", b"de-\xff\xfe;q=0.9, fr"),
    ]
    ws = WebsocketCommunicator(application, f"/ws/match/{match.code}/", headers=headers)
    assert (await ws.connect())[0]
    state = await ws.receive_json_from(timeout=5)
    assert state["t"] == "state", state
    await ws.disconnect()
