"""Reliability (issue 33): matches abandoned, timed out or disconnected for good, weighted
when the player was losing; shown on the profile, in the room and the queue; a condition
for ranked play."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from accounts.models import User
from fairplay import reliability
from games import services
from games.engine import loads
from ranked import matchmaking

from .play import duel, play_until_apart

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _thresholds(settings: Any) -> None:
    settings.RELIABILITY_MIN_MATCHES = 1
    settings.RELIABILITY_POOR_BELOW = 80
    settings.RANKED_MIN_RELIABILITY = 50


def make(name: str) -> User:
    return User.objects.create(username=name)


def test_losing_is_standing_behind_a_rival() -> None:
    start = loads("duel to=0 phase=roll sixes=0 pawns=y,y,y,y/-/y,y,y,y/-")
    assert not reliability.was_losing(start, 0) and not reliability.was_losing(start, 2)
    apart = loads("duel to=0 phase=roll sixes=0 pawns=3,y,y,y/-/12,y,y,y/-")
    assert reliability.was_losing(apart, 0) and not reliability.was_losing(apart, 2)


def test_a_timeout_and_a_disconnect_count_a_resignation_does_not(settings: Any) -> None:
    a, b = make("ra"), make("rb")
    services.match_forfeit(match_id=duel(a, b).pk, corner=2, reason="timeout")
    services.match_forfeit(match_id=duel(a, b).pk, corner=2, reason="disconnected")
    services.match_resign(match_id=duel(a, b, ranked=False).pk, user=b)  # a result
    record = reliability.record(b.pk)
    assert (record.matches, record.timed_out, record.disconnected, record.abandoned) == (3, 1, 1, 0)
    assert record.while_losing == 0  # both left at the start, level with a
    assert record.weighted == 2.0 and record.percent == 33 and record.shown == "33%"
    assert record.poor and record.below_ranked
    assert reliability.record(a.pk).percent == 100 and not reliability.record(a.pk).poor
    settings.RELIABILITY_MIN_MATCHES = 5
    assert reliability.record(b.pk).percent is None and reliability.record(b.pk).shown == "new"


def test_leaving_while_losing_weighs_double() -> None:
    a, b = make("la"), make("lb")
    match = duel(a, b)
    behind = play_until_apart(match)
    services.match_forfeit(match_id=match.pk, corner=behind, reason="disconnected")
    record = reliability.record((b if behind == 2 else a).pk)
    assert record.disconnected == 1 and record.while_losing == 1
    assert record.weighted == reliability.LOSING_WEIGHT
    assert record.percent == 0


def test_games_against_bots_only_are_not_counted() -> None:
    a = make("pa")
    match = services.match_create(
        ruleset="classic", players=2, mode="practice", host=a, bots={2: "easy"}
    )
    services.match_resign(match_id=match.pk, user=a)
    assert reliability.record(a.pk).matches == 0


def test_ranked_play_needs_the_reliability(settings: Any) -> None:
    a, b = make("qa"), make("qb")
    services.match_forfeit(match_id=duel(a, b, ranked=False).pk, corner=2, reason="timeout")
    with pytest.raises(matchmaking.QueueError) as refused:
        matchmaking.join(user=b, queue="duel")
    assert refused.value.code == "unreliable"
    assert "0%" in refused.value.message
    # Casual play stays open, and so does ranked for the reliable.
    matchmaking.join(user=b, queue="duel", ranked=False)
    matchmaking.join(user=a, queue="duel")
    settings.RANKED_MIN_RELIABILITY = 0
    matchmaking.join(user=b, queue="duel")


def test_the_figure_on_the_profile_in_the_room_and_the_queue() -> None:
    a, b = make("fa"), make("fb")
    services.match_forfeit(match_id=duel(a, b).pk, corner=2, reason="timeout")
    client = Client()
    client.force_login(b)
    profile = client.get(reverse("profile", args=[b.username])).content.decode()
    assert 'id="reliability"' in profile and "0%" in profile and "Timed out" in profile
    other = Client()
    other.force_login(a)
    room = duel(a, b, ranked=False)
    page = other.get(reverse("room", args=[room.code])).content.decode()
    assert 'id="seat-reliability"' in page
    assert f"<bdi>{b.shown_name}</bdi>: 0%" in page and f"<bdi>{a.shown_name}</bdi>: 100%" in page
    queue = client.get(reverse("play-quick")).content.decode()
    assert 'id="my-reliability"' in queue and "0%" in queue
