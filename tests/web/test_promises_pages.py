"""The product descriptions' promises kept by the pages (issue 16): coming back to a game
(item 7), the invite link seating a visitor (10), the duel guides (12), the Terms of Service
and fair play page (13)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from django.test import Client

from accounts.models import User
from games import services
from games.models import Match, Seat


def practise(client: Client, ruleset: str = "classic") -> str:
    response = client.post("/play/computer/", {"ruleset": ruleset, "players": "2"})
    assert response.status_code == 302
    return response["Location"].strip("/").split("/")[-1]


# ---------------------------------------------------------------------------- 7


def test_the_home_page_lists_your_games_and_continues_the_only_one(db: None) -> None:
    """Item 7: a guest who closed the tab finds the game on the home page: "Continue"."""
    client = Client()
    assert "Your games" not in client.get("/").content.decode()
    code = practise(client)
    html = client.get("/").content.decode()
    assert "Your games" in html
    assert html.count(f'href="/r/{code}/"') == 2  # the list, and the one Continue up top
    assert "continue-one" in html
    other = practise(client, "duel")
    html = client.get("/").content.decode()
    assert f'href="/r/{code}/"' in html and f'href="/r/{other}/"' in html
    assert "continue-one" not in html  # two games: the list says which
    # A finished game is not listed; nor is anyone else's.
    match = Match.objects.get(code=code)
    seat = Seat.objects.get(match=match, corner=0)
    services.match_resign(match_id=match.pk, user=seat.user)
    html = client.get("/").content.decode()
    assert f'href="/r/{code}/"' not in html and f'href="/r/{other}/"' in html
    assert "Your games" not in Client().get("/").content.decode()


def test_the_profile_lists_your_games_to_you_only(db: None) -> None:
    """Item 7: the profile lists the account's unfinished games, with Continue, to its owner."""
    ann = User.objects.create_user("ann", password="pw-for-tests")
    ben = User.objects.create_user("ben", password="pw-for-tests")
    match = services.match_create(ruleset="mensch", players=2, mode="friendly", host=ann)
    services.match_join(code=match.code, user=ben)
    client = Client()
    client.force_login(ann)
    html = client.get("/players/ann/").content.decode()
    assert "Your games" in html and f'href="/r/{match.code}/"' in html
    assert re.search(r"with\s+<bdi>ben</bdi>", html)
    spectator = Client()
    spectator.force_login(ben)
    html = spectator.get("/players/ann/").content.decode()
    assert f'href="/r/{match.code}/"' not in html


# ---------------------------------------------------------------------------- 10


def test_the_invite_link_seats_a_visitor_at_once_and_a_full_room_is_watched(db: None) -> None:
    """Item 10: "when they open it you're in the same game": the page a visitor
    opens takes a free seat by itself (a POST, so link previews take none); the host's page
    and a full room's do not."""
    host = Client()
    response = host.post("/play/friends/", {"ruleset": "duel", "players": "2"})
    code = response["Location"].strip("/").split("/")[-1]
    assert "data-auto-join" not in host.get(f"/r/{code}/").content.decode()  # seated already
    friend = Client()
    html = friend.get(f"/r/{code}/").content.decode()
    assert f'data-auto-join="{code}"' in html and "js/auto-join.js" in html
    # The script is a file (the Content-Security-Policy runs no inline script: issue 28).
    assert "requestSubmit" in (Path(__file__).parents[2] / "static/js/auto-join.js").read_text()
    match = Match.objects.get(code=code)
    assert match.seats.count() == 1  # opening the page (a preview) took no seat itself
    assert friend.post(f"/r/{code}/join/").status_code == 302  # what the page does at once
    assert match.seats.count() == 2
    watcher = Client()
    html = watcher.get(f"/r/{code}/").content.decode()
    assert "data-auto-join" not in html and 'id="take-seat"' not in html


# ---------------------------------------------------------------------------- 13


def test_terms_of_service_and_fair_play_page(client: Client, db: None) -> None:
    """Item 13: "Cheating, collusion, using automated tools and running more than
    one account are not allowed. See our Terms of Service." The page says so, says how the
    dice are proven and disputes settled, and every page's footer links to it."""
    html = client.get("/terms/").content.decode()
    for words in (
        "Cheating",
        "Collusion",
        "Automated play",
        "Multiple accounts",
        "How the dice are proven",
        "commitment",
        "HMAC-SHA256",
        "Disputes",
        "upholds the dispute",
    ):
        assert words in html, words
    for page in ("/", "/rules/", "/accounts/signup/"):
        assert 'href="/terms/"' in client.get(page).content.decode(), page


def test_sign_up_accepts_the_terms(client: Client, db: None) -> None:
    """Item 13: the terms are accepted at sign-up (refused without), and the audit log keeps
    which version was accepted."""
    from audit.models import AuditEntry

    fields = {"username": "dee", "password1": "a-long-pass-42", "password2": "a-long-pass-42"}
    refused = client.post("/accounts/signup/", fields)
    assert refused.status_code == 200
    assert "accept the Terms of Service" in refused.content.decode()
    assert not User.objects.filter(username="dee").exists()
    done = client.post("/accounts/signup/", {**fields, "terms": "on"})
    assert done.status_code == 302 and User.objects.filter(username="dee").exists()
    entry = AuditEntry.objects.get(action="user.signed_up")
    assert entry.extra_data["terms"]


# ---------------------------------------------------------------------------- 12


def test_the_duel_guides_are_linked_drawn_and_agree_with_the_bots(client: Client, db: None) -> None:
    """Item 12: the two duel guides, written for the duel rules, with boards from positions
    the engine plays, linked from the duel game and the rules page; every piece of advice is
    the move the Hard and the Expert bots play there."""
    from games.web.guides import guides

    titles = {
        "duel-rules": "Ludo rules for two players, and when to capture or stay safe",
        "duel-strategy": "How to win at Ludo: strategy for two players",
    }
    rules_page = client.get("/rules/").content.decode()
    code = practise(client, "duel")
    room = client.get(f"/r/{code}/").content.decode()
    for slug, title in titles.items():
        assert f'href="/guides/{slug}/"' in rules_page and f'href="/guides/{slug}/"' in room
        html = client.get(f"/guides/{slug}/").content.decode()
        assert f"<h1>{title}</h1>" in html
        data = re.search(r'id="guide-data" type="application/json">(.*?)</script>', html, re.S)
        assert data is not None
        boards = html.count('<svg class="mini"')
        assert boards >= 3 and "legal" in data.group(1)
    assert client.get("/guides/nothing/").status_code == 404
    advised = [a for g in guides().values() for s in g.sections for a in s.advice]
    assert len(advised) >= 5
    for a in advised:
        assert a.agrees == {"hard": True, "expert": True}, (a.title, a.bots)
        assert a.state.rules.name == "duel"
    # A classic room does not offer the duel guides.
    classic = practise(client, "classic")
    assert "/guides/" not in client.get(f"/r/{classic}/").content.decode()


# ---------------------------------------------------------------------------- 8


def test_one_device_seats_switch_during_the_game_and_start_over(
    client: Client, db: None, settings: Any
) -> None:
    """Item 8: each seat is a person or a beginner computer, switched from under the
    board during the game; "Start over" (same seats, a fresh game) beside "New game"."""
    from games.clocks import sweeps as clock
    from games.match.verify import verify_match
    from games.models import Roll, Status

    settings.LUDO_BOT_DELAY = 0.0
    form = client.get("/play/local/").content.decode()
    assert form.count('value="beginner" selected') == 3  # every seat after the first
    response = client.post(
        "/play/local/",
        {"ruleset": "family", "players": "2", "seat0": "person", "seat2": "beginner"},
    )
    code = response["Location"].strip("/").split("/")[-1]
    match = Match.objects.get(code=code)
    assert match.seats.get(corner=2).bot == "beginner"
    room = client.get(f"/r/{code}/").content.decode()
    assert "Seats on this device" in room and 'id="start-over"' in room
    assert 'id="new-game"' in room and 'href="/play/local/"' in room
    host = match.seats.get(corner=0).user
    # Yellow becomes a person; then Red, to play, a computer, which plays at once.
    client.post(f"/r/{code}/seat/", {"corner": "2", "who": "person"})
    yellow = match.seats.get(corner=2)
    assert yellow.bot is None and yellow.user == host
    client.post(f"/r/{code}/seat/", {"corner": "0", "who": "beginner"})
    assert match.seats.get(corner=0).bot == "beginner"
    refused = client.post(f"/r/{code}/seat/", {"corner": "2", "who": "easy"}, follow=True)
    assert "At least one seat is a person" in refused.content.decode()
    assert match.seats.get(corner=2).bot is None
    clock.sweep()
    assert Roll.objects.filter(match=match, corner=0, by="bot").exists()
    # Someone else's device switches nothing.
    other = Client()
    other.post(f"/r/{code}/seat/", {"corner": "2", "who": "easy"})
    assert match.seats.get(corner=2).bot is None
    # Start over: the same seats, a fresh game; the old one ends and still verifies.
    response = client.post(f"/r/{code}/start-over/")
    fresh = Match.objects.get(code=response["Location"].strip("/").split("/")[-1])
    assert fresh.pk != match.pk and fresh.mode == "local" and fresh.ruleset == "family"
    assert {s.corner: s.bot for s in fresh.seats.all()} == {0: "beginner", 2: None}
    assert fresh.status == Status.ACTIVE and fresh.seq > 0
    match.refresh_from_db()
    assert match.status == Status.ABORTED
    report = verify_match(match)
    assert report.ok, report.line
