"""Starting games from the pages, a room, a local game, a replay (through the services)."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from games import services
from games.models import Match, Seat
from tests.web.test_rules_and_accounts import _json_script

pytestmark = pytest.mark.django_db


def test_home_page_controls_all_work(client: Client) -> None:
    """No dead buttons: every form on the home page goes somewhere that answers."""
    html = client.get("/").content.decode()
    forms = re.findall(r'<form[^>]*method="(get|post)"[^>]*action="([^"]+)"', html)
    actions = {action for _, action in forms}
    assert {"/play/computer/", "/play/friends/", "/join/"} <= actions
    for method, action in forms:
        if method == "get":
            assert client.get(action, {"code": "KMN-479"}).status_code in (200, 302), action
        elif action not in ("/accounts/logout/", "/i18n/setlang/"):  # tests/i18n: the picker
            response = client.post(action, {"ruleset": "classic", "players": "2"})
            assert response.status_code == 302, action
            assert response["Location"].startswith("/r/"), action


def test_guest_practises_then_signs_up_keeping_the_game(client: Client) -> None:
    response = client.post("/play/computer/", {"ruleset": "classic", "players": "2"})
    assert response.status_code == 302
    match = Match.objects.get()
    guest = Seat.objects.get(match=match, bot__isnull=True).user
    assert guest is not None and guest.username.startswith("guest-")
    assert not guest.has_usable_password()
    assert match.mode == "practice" and match.seats.filter(bot__isnull=False).count() == 1
    client.post(
        "/accounts/signup/",
        {
            "username": "cy",
            "password1": "a-long-pass-42",
            "password2": "a-long-pass-42",
            "terms": "on",
        },
    )
    guest.refresh_from_db()
    assert guest.username == "cy" and guest.has_usable_password()


# ---------------------------------------------------------------------------- rooms


def test_practice_room_page_has_board_and_labelled_bots(client: Client) -> None:
    response = client.post("/play/computer/", {"ruleset": "mensch", "players": "4"})
    code = Match.objects.get().code
    assert response["Location"] == f"/r/{code}/"
    html = client.get(f"/r/{code}/").content.decode()
    config = _json_script(html, "room-config")
    assert isinstance(config, dict)
    assert config["board"]["size"] == 40
    # The player's socket comes with its signed ticket (games.live.tickets).
    path, _, query = config["ws"].partition("?ticket=")
    assert path == f"/ws/match/{code}/" and query
    assert len(config["mine"]) == 1
    seats = config["snapshot"]["seats"]
    assert [s["label"] for s in seats if s["bot"]] == ["BOT"] * 3
    assert 'aria-live="polite"' in html


def test_the_room_history_survives_a_reload(client: Client) -> None:
    from accounts.models import User

    ann = User.objects.create_user("ann", password="a-long-pass-42")
    client.force_login(ann)
    match = services.match_create(
        ruleset="classic", players=2, mode="practice", host=ann, bots={2: "easy"}, first=0
    )
    services.match_roll(match_id=match.pk, user=ann, seq=match.seq, action_id="r1")
    match.refresh_from_db()
    config = _json_script(client.get(f"/r/{match.code}/").content.decode(), "room-config")
    history = config["history"]
    assert [e["seq"] for e in history] == sorted(e["seq"] for e in history)
    assert history[-1]["seq"] == match.seq and history[0]["kind"] == "created"
    assert "rolled" in [e["kind"] for e in history]


def test_friend_room_join_by_code_and_start(client: Client) -> None:
    client.post("/play/friends/", {"ruleset": "classic", "players": "2", "compulsory_capture": "1"})
    match = Match.objects.get()
    assert match.mode == "friendly" and match.rules.compulsory_capture
    html = client.get(f"/r/{match.code}/").content.decode()
    assert "Waiting for players" in html and "Take a seat" not in html
    qr = re.search(r'<figure class="qr"[^>]*>(.*?)</figure>', html, re.S)
    assert qr and qr.group(1).lstrip().startswith("<svg"), "the join link's QR code, inline"
    friend = Client()
    spoken = f"{match.code[:3]}-{match.code[3:].lower()}"
    assert friend.get("/join/", {"code": spoken})["Location"] == f"/r/{match.code}/"
    assert "Take a seat" in friend.get(f"/r/{match.code}/").content.decode()
    friend.post(f"/r/{match.code}/join/")
    match.refresh_from_db()
    assert match.seats.count() == 2 and match.status == 20  # full: started


def test_host_starts_with_bots_in_empty_seats(client: Client) -> None:
    client.post("/play/friends/", {"ruleset": "family", "players": "3"})
    match = Match.objects.get()
    client.post(f"/r/{match.code}/start/", {"level": services.BOT_LEVELS[0]})
    match.refresh_from_db()
    assert match.seats.filter(bot__isnull=False).count() == 2 and match.status == 20


def test_join_refuses_a_bad_code_and_unknown_rooms_are_404(client: Client) -> None:
    response = client.get("/join/", {"code": "?!"}, follow=True)
    assert "A room code is six letters and digits" in response.content.decode()
    assert client.get("/r/ZZZZZZ/").status_code == 404
    assert client.get("/r/ZZZZZZ/replay/").status_code == 404


def test_local_game_seats_people_and_computers(client: Client) -> None:
    assert "A game on this device" in client.get("/play/local/").content.decode()
    level = services.BOT_LEVELS[0]
    client.post(
        "/play/local/",
        {
            "ruleset": "family",
            "players": "4",
            "seat0": "person",
            "seat1": level,
            "seat2": "person",
            "seat3": level,
        },
    )
    match = Match.objects.get()
    assert match.mode == "local"
    people = match.seats.filter(bot__isnull=True)
    assert sorted(s.corner for s in people) == [0, 2]
    assert len({s.user_id for s in people}) == 1


def test_replay_of_a_finished_match_reveals_the_seed_and_every_step(client: Client) -> None:
    client.post("/play/computer/", {"ruleset": "duel", "players": "2"})
    match = Match.objects.get()
    html = client.get(f"/r/{match.code}/replay/").content.decode()
    assert "The replay opens when the match is over" in html
    assert match.server_seed not in html
    guest = Seat.objects.get(match=match, bot__isnull=True).user
    services.match_resign(match_id=match.pk, user=guest)
    match.refresh_from_db()
    html = client.get(f"/r/{match.code}/replay/").content.decode()
    config = _json_script(html, "replay-config")
    assert isinstance(config, dict)
    assert config["proof"]["server_seed"] == match.server_seed
    assert config["proof"]["commitment"] == match.commitment
    words, said = config["words"], config["steps"]["said"]
    assert words[said[0][0]] == "The start" and len(said) >= 2
    assert any("is out" in words[w] for step in said for w in step)


def test_party_options_from_the_create_forms(client: Client) -> None:
    page = client.get("/").content.decode()
    assert 'name="power"' in page and 'name="pairs"' in page
    client.post("/play/friends/", {"ruleset": "party", "players": "4", "pairs": "1", "power": "1"})
    friendly = Match.objects.get()
    assert friendly.rules.pairs and friendly.rules.power
    client.post("/play/computer/", {"ruleset": "party", "players": "3", "power": "1"})
    practice = Match.objects.get(mode="practice")
    assert practice.rules.power and not practice.rules.pairs
    client.post("/play/local/", {"ruleset": "classic", "players": "2", "power": "1"})
    local = Match.objects.get(mode="local")
    assert not local.rules.power, "Power is a party option: ignored for classic"
    refused = client.post(
        "/play/friends/", {"ruleset": "party", "players": "2", "pairs": "1"}, follow=True
    )
    assert Match.objects.count() == 3
    assert "4" in " ".join(str(m) for m in refused.context["messages"])


def test_computer_level_defaults_to_the_services_default(client: Client) -> None:
    home = client.get("/").content.decode()
    assert '<option value="medium" selected data-about="Medium — ' in home
    # Its description is on the page before any script runs (the script follows the choice).
    assert '<p class="level-about" id="level-about" aria-live="polite">Medium — ' in home
    # One device: the computer seats are the beginner computer by default.
    local = client.get("/play/local/").content.decode()
    assert local.count('value="beginner" selected data-about="Beginner — ') == 3  # not seat 1
    # Each option is short ("Computer: Beginner · strength 1 of 6"); the chosen level's description
    # is written once under the seats.
    assert '<p class="level-about" id="seat-level-about" aria-live="polite">Beginner — ' in local
    options = re.findall(r">(Computer: [^<]*)</option>", local)
    assert options and all(" — " not in text and len(text) < 40 for text in options)
    assert "Computer: Medium · strength 3 of 6" in options
    assert not any("wins" in text for text in options)
