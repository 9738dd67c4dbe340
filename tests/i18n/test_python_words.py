"""What the Python layers say, in the reader's language (issue 29): refusals beside their codes
(the English `message` kept for outside clients, `text` added), a bot's reason from its code
and data, the history lines and the rules page's facts, the level picker's figures per locale;
and two players of one room reading the same room in two languages."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import Client
from django.utils import translation

from accounts.models import User
from games import services
from games.bots import BOTS
from games.bots.words import Reason
from games.engine import RULESETS, YARD, roll, setup
from games.match import names
from games.match.errors import ServiceError
from games.match.saying import bot_reason
from games.models import Match, MatchEvent, Status
from games.web import ladder
from games.web.pages import _facts
from games.web.rules_page import narrate
from ludo_site.asgi import application
from tests.i18n.pseudo import english_words, pseudo_locale
from tests.realtime.conftest import alice, bob, own_layer_and_timers, session_cookie, two_player

# The real-time tests' fixtures, for the room test below.
__all__ = ["alice", "bob", "own_layer_and_timers"]


def test_a_refusal_keeps_its_english_message_and_tells_the_reader_in_theirs() -> None:
    with translation.override("de"):  # raised while a German page is being served
        error = ServiceError("not_your_turn", "It is not your turn")
        marked = ServiceError("illegal", services_said("Roll the die first"))
    assert error.message == "It is not your turn" and marked.message == "Roll the die first"
    assert error.text("de") == "Du bist nicht am Zug"
    assert error.text("ar") == "ليس دورك"
    assert error.text("en") == "It is not your turn"
    # A marked message is itself translated; one left plain is told by its code's sentence.
    assert marked.text("fr") not in ("", "Roll the die first")
    plain = ServiceError("bad_request", "There is no bot level 'x'")
    assert plain.text("en") == "There is no bot level 'x'"
    assert plain.text("es") == "Esa petición no tiene sentido aquí"
    with translation.override("tr"):
        wire = error.as_dict()
    assert wire == {
        "code": "not_your_turn",
        "message": "It is not your turn",
        "text": "Sıra sende değil",
    }


def services_said(text: str) -> Any:
    from django.utils.translation import gettext_lazy

    from games.match.errors import said

    return said(gettext_lazy(text))


@pytest.mark.django_db
def test_the_api_answers_a_refusal_with_code_english_message_and_text(client: Client) -> None:
    response = client.post(
        "/api/matches/NOPE-NOPE/actions",
        data=json.dumps({"t": "roll"}),
        content_type="application/json",
        HTTP_ACCEPT_LANGUAGE="de",
    )
    body = response.json()
    assert body["code"] and body["message"]
    guest = Client()
    # Family: Red (the guest's corner) always starts; classic draws who starts.
    made = guest.post("/play/computer/", {"ruleset": "family", "players": "2"})
    code = made["Location"].strip("/").split("/")[-1]
    match = Match.objects.get(code=code)
    seq = match.seq
    answer = guest.post(
        f"/api/matches/{code}/actions?lang=de",
        data=json.dumps({"t": "move", "v": seq, "id": "x1", "d": {"pawn": 0}}),
        content_type="application/json",
    ).json()
    assert answer["code"] == "illegal"
    assert answer["message"] == "Roll the die first"
    assert answer["text"] == "Erst würfeln"


def test_a_bots_reason_is_english_text_and_data_told_in_each_language() -> None:
    rules = RULESETS["classic"]
    state, _ = roll(setup(rules, {0: [15, Y, Y, Y], 1: [7, Y, Y, Y]}), 5)
    move, reason = BOTS["hard"].choose(state, random.Random(0))
    assert isinstance(reason, Reason)
    assert reason == "captures Green's pawn"  # the English the tools and clients read
    why = reason.wire()
    assert why == {"code": "capture", "pawn": 1, "of": None, "captured": [[1, 1]]}
    with translation.override("de"):
        assert bot_reason(rules, why) == "schlägt die Figur von Grün"
    with translation.override("hi"):
        assert bot_reason(rules, why) == "हरा की गोटी काटता है"
    with translation.override("en"):
        assert bot_reason(rules, why) == str(reason)
    # Every level's every kind of reason has words in every language (none falls to "").
    for level in ("beginner", "easy", "greedy", "expert"):
        for seed in range(30):
            rng = random.Random(seed)
            pawns = {
                0: [rng.choice([YARD, 3, 10, 30, 50]) for _ in range(4)],
                2: [20, 44, YARD, YARD],
            }
            try:
                state, _ = roll(setup(rules, pawns), rng.randint(1, 6))
            except ValueError:
                continue
            if state.phase != "move":
                continue
            _move, said = BOTS[level].choose(state, rng)
            why = said.wire()
            counted = "steps" in (why["code"], why.get("base", {}).get("code"))
            with translation.override("en"):  # the English text spells a count out ("five")
                assert counted or bot_reason(rules, why) == str(said), (level, said)
            with translation.override("ur"):
                assert bot_reason(rules, said.wire()) not in ("", str(said)), (level, said)


Y = YARD


@pytest.mark.django_db
def test_a_bot_said_event_carries_the_reasons_code_and_data() -> None:
    match = services.match_create(
        ruleset="duel",
        players=2,
        mode="practice",
        bots={0: "hard", 2: "easy"},
        server_seed="5" * 64,
    )
    for _ in range(400):
        match.refresh_from_db()
        if (
            match.status != Status.ACTIVE
            or MatchEvent.objects.filter(match=match, kind="bot_said").exists()
        ):
            break
        services.bot_act(match_id=match.pk, turn_seq=match.turn_seq)
    said = MatchEvent.objects.filter(match=match, kind="bot_said").first()
    assert said is not None
    assert said.data["text"] and said.data["why"]["code"]
    with translation.override("en"):
        assert bot_reason(match.rules, said.data["why"]) == said.data["text"]


def test_history_lines_and_facts_are_in_the_readers_language() -> None:
    rules = RULESETS["classic"]
    state = setup(rules, {0: [YARD] * 4, 2: [YARD] * 4})
    _state, events = roll(state, 3)
    with translation.override("de"):
        lines = [narrate(rules, e) for e in events]
        facts = dict(_facts(RULESETS["quick"]))
    assert lines[0] == "Rot würfelt 3"
    assert (
        lines[1]
        == "Rot kann nicht ziehen: keine Figur ist draußen, und nur eine 6 bringt eine aus dem Haus"
    )
    assert facts["Zeit pro Zug"] == "12 Sekunden"
    with translation.override("en"):
        assert [narrate(rules, e) for e in events][1] == (
            "Red cannot move: no pawn is out, and only a 6 brings one out of the yard"
        )
        assert dict(_facts(RULESETS["quick"]))["Turn clock"] == "12 seconds"


def test_names_and_shares_follow_the_locale() -> None:
    with translation.override("tr"):
        assert names.preset("quick") == "Hızlı" and names.level("hard") == "Zor"
        assert ladder.percent(0.56) == "%56"
    with translation.override("de"):
        assert names.preset("mensch") == "Mensch"  # mensch keeps its German name everywhere
        # A no-break space: the sign stays on the number's line.
        assert ladder.percent(0.56) == "56\u00a0%"
    with translation.override("ar"):
        assert ladder.percent(0.56) == "56٪"
    with translation.override("en"):
        assert ladder.percent(0.56) == "56%"


@pytest.mark.django_db
def test_the_pseudo_locale_reaches_the_python_strings(client: Client, monkeypatch: Any) -> None:
    """Rendered in the pseudo-locale, a refusal, a reason, a history line and a level's text
    keep no plain English word but their data."""
    rules = RULESETS["classic"]
    state, events = roll(setup(rules, {0: [15, Y, Y, Y], 1: [7, Y, Y, Y]}), 5)
    _move, reason = BOTS["expert"].choose(state, random.Random(0))
    with pseudo_locale(monkeypatch), translation.override("xx"):
        said = [
            ServiceError("full", "Every seat in this match is taken").text(),
            bot_reason(rules, reason.wire()),
            *(narrate(rules, e) for e in events),
            ladder.level_text("medium"),
            *(f"{k} {v}" for k, v in _facts(RULESETS["party"])),
        ]
    left = english_words(" ".join(f"<p>{s}</p>" for s in said))
    assert left == set(), left


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_two_players_of_one_room_read_it_in_two_languages(alice: User, bob: User) -> None:
    """Alice's page is German (the socket's ``?lang=``, as the room page writes it), Bob's
    browser asks for Arabic: each refusal reaches its player in their own language, beside
    the same English message."""
    match = await database_sync_to_async(two_player)(alice, bob)

    async def socket(user: User, path: str, *extra: tuple[bytes, bytes]) -> Any:
        cookie = await database_sync_to_async(session_cookie)(user)
        headers = [(b"origin", b"http://localhost"), (b"host", b"localhost")]
        return WebsocketCommunicator(
            application, path, headers=[*headers, (b"cookie", cookie.encode()), *extra]
        )

    ws_a = await socket(alice, f"/ws/match/{match.code}/?lang=de")
    ws_b = await socket(bob, f"/ws/match/{match.code}/", (b"accept-language", b"ar,en;q=0.5"))
    # One socket in at a time, each reading its state first (as the room tests do): on
    # SQLite, two arrivals at once meet "database table is locked".
    states = []
    for ws in (ws_a, ws_b):
        connected, _ = await ws.connect()
        assert connected
        states.append(json.loads(await ws.receive_from(timeout=5)))
    v = states[0]["v"]

    async def error_of(ws: Any) -> dict[str, Any]:
        while True:
            got = json.loads(await ws.receive_from(timeout=5))
            if got["t"] == "error":
                return dict(got["d"])

    await ws_b.send_to(text_data=json.dumps({"t": "roll", "v": v, "id": "b1"}))
    await ws_a.send_to(text_data=json.dumps({"t": "move", "v": v, "id": "a1", "d": {"pawn": 0}}))
    to_bob, to_alice = await error_of(ws_b), await error_of(ws_a)
    assert to_bob == {
        "code": "not_your_turn",
        "message": "It is not your turn",
        "text": "ليس دورك",
    }
    assert to_alice["code"] == "illegal" and to_alice["message"] == "Roll the die first"
    assert to_alice["text"] == "Erst würfeln"
    for ws in (ws_a, ws_b):
        await ws.disconnect()


@pytest.mark.django_db
def test_the_room_page_gives_its_socket_the_pages_language(client: Client) -> None:
    made = client.post("/play/computer/", {"ruleset": "classic", "players": "2"})
    html = client.get(made["Location"], {"lang": "bn"}).content.decode()
    config = json.loads(
        html.split('id="room-config" type="application/json">', 1)[1].split("</script>")[0]
    )
    assert "lang=bn" in config["ws"]
