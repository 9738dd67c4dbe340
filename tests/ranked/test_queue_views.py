"""The quick-match pages, their JSON endpoints, the lobby socket, and the sweeps that Celery
beat and the in-process clock run."""

from __future__ import annotations

import itertools
import os
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.layers import channel_layers
from channels.testing import WebsocketCommunicator
from django.db import connections
from django.test import Client

from accounts.models import User
from games.clocks import sweeps as clock
from ludo_site import env
from ludo_site.asgi import application
from ludo_site.celery import app as celery_app
from ranked import matchmaking
from ranked.models import Entry

_names = itertools.count()
JSON = {"HTTP_ACCEPT": "application/json"}


@pytest.fixture(autouse=True)
def quiet(settings: Any) -> None:
    settings.QUICK_MATCH_BOT_AFTER = 1000.0


def signed_in(username: str | None = None) -> tuple[Client, User]:
    user = User.objects.create(username=username or f"v{next(_names)}")
    client = Client()
    client.force_login(user)
    return client, user


def test_the_ranked_page_asks_visitors_and_guests_to_sign_in(db: Any) -> None:
    page = Client().get("/play/ranked/")
    assert page.status_code == 200
    text = page.content.decode()
    assert "Ranked play is for accounts" in text and "/accounts/login/?next=/play/ranked/" in text
    assert "lobby.js" not in text  # no queue buttons to press
    guest, _ = signed_in(f"guest-{next(_names):08x}")
    text = guest.get("/play/ranked/").content.decode()
    assert "keeps the games you played as a guest" in text


def test_the_ranked_page_shows_the_queues_and_ratings(db: Any) -> None:
    client, _ = signed_in()
    text = client.get("/play/ranked/").content.decode()
    for queue in ("classic-2", "classic-4", "duel"):
        assert f'value="{queue}"' in text
    assert "Your ratings" in text and "provisional" in text and "lobby.js" in text


def test_the_casual_page_is_open_to_everyone_and_says_a_bot_may_step_in(db: Any) -> None:
    text = Client().get("/play/quick/").content.decode()
    assert "robot players steps in" in text and 'name="ranked" value="0"' in text


def test_join_status_cancel_as_json(db: Any) -> None:
    client, user = signed_in()
    joined = client.post("/play/queue/join", {"queue": "duel", "ranked": "1"}, **JSON)
    assert joined.status_code == 200
    body = joined.json()
    assert body["state"] == "waiting" and body["queue"] == "duel" and body["ranked"] is True
    assert body["window"] >= 3.0 and body["label"] == "Duel"
    assert client.get("/play/queue/status").json()["state"] == "waiting"
    other, _ = signed_in()
    matched = other.post("/play/queue/join", {"queue": "duel"}, **JSON).json()
    assert matched["state"] == "matched" and matched["url"].startswith("/r/")
    assert client.get("/play/queue/status").json()["url"] == matched["url"]
    # Too late to cancel: the answer is the match.
    assert client.post("/play/queue/cancel", **JSON).json()["url"] == matched["url"]


def test_join_refusals_are_clear(db: Any) -> None:
    refused = Client().post("/play/queue/join", {"queue": "duel", "ranked": "1"}, **JSON)
    assert refused.status_code == 403
    assert "accounts" in refused.json()["error"]["message"]
    client, _ = signed_in()
    bad = client.post("/play/queue/join", {"queue": "nope"}, **JSON)
    assert bad.status_code == 400 and bad.json()["error"]["code"] == "bad_request"
    assert client.get("/play/queue/join").status_code == 405


def test_a_visitor_gets_a_guest_name_for_casual_quick_match(db: Any) -> None:
    client = Client()
    body = client.post("/play/queue/join", {"queue": "classic-2", "ranked": "0"}, **JSON).json()
    assert body["state"] == "waiting" and body["ranked"] is False and body["bot_after"] == 1000.0
    entry = Entry.objects.get()
    assert entry.user.username.startswith("guest-") and entry.ranked is False


def test_forms_work_without_script(db: Any) -> None:
    client, user = signed_in()
    response = client.post("/play/queue/join", {"queue": "classic-2", "ranked": "1"})
    assert response.status_code == 302 and response["Location"] == "/play/ranked/"
    page = client.get("/play/ranked/").content.decode()
    assert "Looking for a player near your rating" in page
    assert client.post("/play/queue/cancel", {"back": "ranked"})["Location"] == "/play/ranked/"
    assert Entry.objects.get(user=user).state == Entry.State.CANCELLED
    second, _ = signed_in()
    client.post("/play/queue/join", {"queue": "classic-2"})
    done = second.post("/play/queue/join", {"queue": "classic-2"})
    assert done.status_code == 302 and done["Location"].startswith("/r/")
    refused = client.post("/play/queue/join", {"queue": "duel"}, follow=True)
    assert "already in a ranked match" in refused.content.decode()


def test_the_last_ranked_match_and_its_rating_change_show_on_the_page(db: Any) -> None:
    from games import services

    client, a = signed_in()
    _, b = signed_in()
    matchmaking.join(user=a, queue="duel")
    matchmaking.join(user=b, queue="duel")
    match = Entry.objects.get(user=a).match
    services.match_resign(match_id=match.pk, user=b)
    text = client.get("/play/ranked/").content.decode()
    assert "Your last ranked match" in text and match.code in text
    assert 'class="change up"' in text and "1st" in text


def test_beat_and_the_in_process_clock_sweep_the_queues(
    db: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    schedule = celery_app.conf.beat_schedule
    assert any(e["task"] == "ranked.sweep_queues" for e in schedule.values())
    celery_app.autodiscover_tasks(["ranked"], force=True)  # what a worker does at start
    assert "ranked.sweep_queues" in celery_app.tasks
    calls: list[str] = []
    ticker = clock.InProcessClock(every=0.01)
    monkeypatch.setattr(clock, "sweep", lambda: calls.append("clocks"))

    def queues() -> int:
        calls.append("queues")
        ticker.stopped.set()
        return 0

    monkeypatch.setattr(matchmaking, "sweep_all", queues)
    ticker.run()
    assert calls == ["clocks", "queues"]


# ---------------------------------------------------------------------------- the socket


@pytest.fixture
def layer(settings: Any) -> Iterator[None]:
    """The channel layer settings build (Redis when REDIS_URL is set), under a prefix of the
    test's own: Redis pub/sub is shared by every xdist worker."""
    settings.CHANNEL_LAYERS = env.channel_layers(
        settings.REDIS_URL, os.environ.get("CHANNEL_LAYER"), f"test-{uuid.uuid4().hex[:12]}"
    )
    channel_layers.backends = {}
    yield
    channel_layers.backends = {}


async def lobby(user: User | None) -> WebsocketCommunicator:
    headers = [(b"origin", b"http://localhost"), (b"host", b"localhost")]
    if user is not None:

        def cookie() -> str:
            client = Client()
            client.force_login(user)
            return f"sessionid={client.cookies['sessionid'].value}"

        headers.append((b"cookie", (await database_sync_to_async(cookie)()).encode()))
    return WebsocketCommunicator(application, "/ws/lobby/", headers=headers)


@pytest.mark.asyncio
async def test_the_lobby_socket_sends_matched_players_to_their_room(
    transactional_db: Any, layer: None
) -> None:
    make = database_sync_to_async(lambda name: User.objects.create(username=name))
    a, b = await make("lobby-a"), await make("lobby-b")
    sockets = [await lobby(a), await lobby(a), await lobby(b)]  # a has two tabs
    for ws in sockets:
        connected, _ = await ws.connect()
        assert connected
        assert (await ws.receive_json_from())["state"] == "idle"
    join = database_sync_to_async(matchmaking.join)
    await join(user=a, queue="classic-2")
    await sockets[0].send_json_to({"type": "status"})
    assert (await sockets[0].receive_json_from())["state"] == "waiting"
    await join(user=b, queue="classic-2")
    code = await database_sync_to_async(lambda: Entry.objects.get(user=a).match.code)()
    for ws in sockets:
        assert await ws.receive_json_from(timeout=3) == {
            "type": "matched",
            "code": code,
            "url": f"/r/{code}/",
        }
    await sockets[1].send_to(text_data="roll")
    assert (await sockets[1].receive_json_from())["code"] == "bad_request"
    for ws in sockets:
        await ws.disconnect()
    await database_sync_to_async(connections.close_all)()  # the sync thread's connection


@pytest.mark.asyncio
async def test_the_lobby_socket_refuses_a_visitor_without_a_player(
    transactional_db: Any, layer: None
) -> None:
    ws = await lobby(None)
    await ws.connect()
    message = await ws.receive_json_from()
    assert message["type"] == "error" and message["code"] == "forbidden"
    assert (await ws.receive_output())["code"] == 4401
    await database_sync_to_async(connections.close_all)()
