"""What a host chooses for a game, from the forms to the match: play on for 2nd and 3rd place,
the bots' pace (kept in the match's options, read where bot steps are scheduled, remembered
for the next game), and names for the people of a one-device game."""

from __future__ import annotations

import random
from datetime import timedelta

import pytest
from django.test import Client, override_settings
from django.utils import translation

from accounts.models import User
from disputes.templatetags.disputes import match_disputes
from games import services
from games.match.errors import ServiceError
from games.match.selectors import seat_label, seat_name, snapshot_for
from games.models import Match, Status
from games.services.deadlines import bot_delay
from games.web.pages import _rules_body
from tests.storage.driver import current, step

pytestmark = pytest.mark.django_db


def test_play_on_places_all_four_in_finishing_order() -> None:
    host = User.objects.create(username="host")
    match = services.match_create(
        ruleset="classic", players=4, mode="local", host=host, house_rules=["play_on"], first=0
    )
    assert match.options["rules"] == "classic+play_on"
    rng = random.Random(3)
    finished_at: dict[int, int] = {}
    for n in range(20000):
        match = current(match)
        if match.status != Status.ACTIVE:
            break
        step(match, rng, n)
        state = current(match).state()
        assert state is not None
        for c in state.placings:
            finished_at.setdefault(c, n)
    match = current(match)
    assert match.status == Status.FINISHED
    places = {s.corner: s.place for s in match.seats.all()}
    assert sorted(places.values()) == [1, 2, 3, 4]
    # The first three in the order they finished; the last one left is 4th.
    by_place = sorted(places, key=lambda c: places[c])
    assert [finished_at[c] for c in by_place[:3]] == sorted(finished_at[c] for c in by_place[:3])
    assert len(set(finished_at[c] for c in by_place[:3])) == 3
    assert snapshot_for(match)["placings"] == by_place


def test_play_on_is_a_choice_on_the_practice_form() -> None:
    client = Client()
    client.post(
        "/play/computer/", {"ruleset": "classic", "players": "4", "level": "easy", "play_on": "1"}
    )
    match = Match.objects.latest("pk")
    assert match.mode == "practice" and match.options["rules"] == "classic+play_on"
    client.post("/play/computer/", {"ruleset": "classic", "players": "4", "level": "easy"})
    assert Match.objects.latest("pk").options["rules"] == "classic"


@override_settings(LUDO_BOT_DELAY=1.0)
def test_the_pace_sets_the_bots_pause_and_is_remembered() -> None:
    client = Client()
    client.post("/play/computer/", {"ruleset": "classic", "players": "4", "pace": "relaxed"})
    relaxed = Match.objects.latest("pk")
    assert relaxed.options["pace"] == "relaxed" and bot_delay(relaxed) == 2.0
    # The next game keeps it unless chosen again; the home page offers it selected.
    client.post("/play/computer/", {"ruleset": "classic", "players": "4"})
    again = Match.objects.latest("pk")
    assert again.options["pace"] == "relaxed"
    assert '<option value="relaxed" selected>' in client.get("/").content.decode()
    client.post("/play/computer/", {"ruleset": "classic", "players": "4", "pace": "fast"})
    fast = Match.objects.latest("pk")
    assert bot_delay(fast) == pytest.approx(0.35)
    client.post("/play/computer/", {"ruleset": "classic", "players": "4", "pace": "normal"})
    normal = Match.objects.latest("pk")
    assert "pace" not in normal.options and bot_delay(normal) == 1.0


@override_settings(LUDO_BOT_DELAY=1.0)
def test_a_bots_step_is_due_after_the_chosen_pause() -> None:
    host = User.objects.create(username="slow")
    match = services.match_create(
        ruleset="classic",
        players=2,
        mode="practice",
        host=host,
        bots={2: "easy"},
        first=2,
        pace="relaxed",
    )
    match = current(match)
    assert match.turn_deadline is not None and match.started_at is not None
    waited = match.turn_deadline - match.started_at
    assert timedelta(seconds=1.9) <= waited <= timedelta(seconds=2.5), waited


def test_an_unknown_pace_is_refused_with_its_code() -> None:
    host = User.objects.create(username="h")
    with pytest.raises(ServiceError) as caught:
        services.match_create(
            ruleset="classic",
            players=2,
            mode="practice",
            host=host,
            bots={2: "easy"},
            pace="warp",
        )
    assert caught.value.code == "bad_request"


def test_a_one_device_game_names_its_people() -> None:
    client = Client()
    client.post(
        "/play/local/",
        {
            "ruleset": "classic",
            "players": "4",
            "seat0": "person",
            "seat1": "person",
            "seat2": "easy",
            "seat3": "person",
            "name0": "  Asha ",
            "name1": "Ravi\u0007",
            "name2": "ignored: a bot's seat",
            "name3": "",
        },
    )
    match = Match.objects.latest("pk")
    assert match.mode == "local" and match.options["names"] == {"0": "Asha", "1": "Ravi"}
    seats = {s.corner: s for s in match.seats.all()}
    assert seat_name(seats[0], match) == "Asha" and seat_label(seats[1], match) == "Ravi"
    assert seat_name(seats[3], match) == "Blue"  # no name given: its colour
    shown = {s["corner"]: s for s in snapshot_for(match)["seats"]}
    assert shown[0]["name"] == "Asha" and shown[0]["guest_tag"] is None
    # Start over keeps the names.
    client.post(f"/r/{match.code}/start-over/")
    again = Match.objects.latest("pk")
    assert again.pk != match.pk and again.options["names"] == {"0": "Asha", "1": "Ravi"}


def test_seat_names_are_checked() -> None:
    host = User.objects.create(username="n")
    with pytest.raises(ServiceError):
        services.match_create(
            ruleset="classic", players=2, mode="local", host=host, seat_names={0: "x" * 21}
        )
    with pytest.raises(ServiceError):
        services.match_create(
            ruleset="classic",
            players=2,
            mode="practice",
            host=host,
            bots={2: "easy"},
            seat_names={0: "Asha"},
        )


def test_the_rules_pages_body_is_made_once_a_language() -> None:
    _rules_body.cache_clear()
    client = Client()
    first = client.get("/rules/").content.decode()
    again = client.get("/rules/").content.decode()
    assert 'id="basic-capture"' in first and 'id="rules-data"' in first
    assert first.count('class="basic"') == again.count('class="basic"') == 6
    assert _rules_body.cache_info().hits >= 1 and _rules_body.cache_info().misses == 1
    client.cookies["django_language"] = "hi"
    try:
        hindi = client.get("/rules/").content.decode()
    finally:
        translation.activate("en")  # the request left Hindi active in this thread
    assert _rules_body.cache_info().misses == 2
    with translation.override("hi"):
        assert translation.gettext("The rules") in hindi
    assert hindi != first


@override_settings(LUDO_BOT_DELAY=0.0)
def test_a_game_against_bots_alone_offers_no_dispute_and_names_its_bots_as_the_room() -> None:
    host = User.objects.create(username="solo")
    match = services.match_create(
        ruleset="classic", players=2, mode="practice", host=host, bots={2: "medium"}, first=0
    )
    rng = random.Random(5)
    for n in range(5000):  # the person plays at random; the bot's steps fall due at once
        match = current(match)
        if match.status != Status.ACTIVE:
            break
        state = match.state()
        assert state is not None
        step(match, rng, n, timeout_rate=1.0 if state.to_play == 2 else 0.0)
    match = current(match)
    assert match.status == Status.FINISHED
    assert match_disputes({"user": host}, match)["can_open"] is False
    client = Client()
    client.force_login(host)
    replay = client.get(f"/r/{match.code}/replay/").content.decode()
    assert 'id="report-problem"' not in replay
    assert "Kai, medium bot" in replay
    assert "computer (BOT)" not in replay
    # Where another person played, the way to open one stays.
    ann, ben = User.objects.create(username="ann"), User.objects.create(username="ben")
    duel = services.match_create(ruleset="classic", players=2, mode="friendly", host=ann)
    services.match_join(code=duel.code, user=ben)
    services.match_forfeit(match_id=duel.pk, corner=2, reason="resigned")
    assert match_disputes({"user": ann}, current(duel))["can_open"] is True
