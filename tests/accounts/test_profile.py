"""A player's profile: ratings per ranked queue with their uncertainty and a provisional
mark, results, and the match history (newest first, paginated, void marked and not counted)
with a replay link for each."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest
from django.test import Client

from accounts import profiles
from accounts.models import User
from games import services
from games.models import Match
from ranked.models import Rating
from tests.ranked.matches import finish, ranked_match

pytestmark = pytest.mark.django_db


def row_of(html: str, queue: str) -> str:
    found = re.search(
        rf'<article class="queue-rating" data-queue="{queue}">(.*?)</article>', html, re.S
    )
    assert found, f"no rating for {queue}"
    return re.sub(r"\s+", " ", found.group(1))


def test_ratings_per_queue_with_uncertainty_and_provisional_mark(
    client: Client, make_user: Callable[..., User], settings: Any
) -> None:
    settings.RANKED_PROVISIONAL_GAMES = 3
    settings.RANKED_LEADERBOARD_MIN_GAMES = 3
    ann, bob = make_user("ann", display_name="Ann"), make_user("bob")
    for _ in range(3):
        finish(ranked_match("duel", [ann, bob]), [ann, bob])
    finish(ranked_match("classic", [ann, bob]), [bob, ann])

    html = client.get(f"/players/{ann.username}/").content.decode()
    assert "<h1><bdi>Ann</bdi></h1>" in html and f"@<bdi>{ann.username}</bdi>" in html
    duel = Rating.objects.get(user=ann, queue="duel")
    classic = Rating.objects.get(user=ann, queue="classic-2")
    assert duel.games == 3 and not duel.provisional and classic.provisional

    row = row_of(html, "duel")
    assert f'<strong class="rating">{duel.ordinal:.1f}</strong>' in row
    assert f"Skill {duel.mu:.1f} ± {duel.sigma:.1f} uncertainty" in row
    assert "provisional" not in row
    assert '<span class="games">3 games</span> · <span class="wins">3 won</span>' in row
    assert 'href="/leaderboards/duel/">#1 on the leaderboard</a>' in row

    row = row_of(html, "classic-2")
    assert f'<strong class="rating">{classic.ordinal:.1f}</strong>' in row
    assert 'class="tag provisional"' in row
    assert f"± {classic.sigma:.1f} uncertainty" in row
    assert "2 more games to appear on the" in row
    assert "Not played yet" in row_of(html, "classic-4")
    # A rating is explained in words a player reads, not as "μ − 3σ", here and on the board.
    board = client.get("/leaderboards/duel/").content.decode()
    for page in (html, board):
        assert "σ" not in page and "μ" not in page
        assert "skill" in page and "results have shown for sure" in page
    hindi = client.get("/leaderboards/duel/", HTTP_ACCEPT_LANGUAGE="hi").content.decode()
    assert "नतीजों ने पक्के तौर" in hindi and "σ" not in hindi

    # Results: 4 ranked matches, 3 won.
    assert re.search(r"<dt>Matches played</dt><dd>4</dd>", html)
    assert re.search(r"<dt>Won</dt><dd>3</dd>", html)
    assert "<dt>Ranked</dt><dd>4 played, 3 won</dd>" in html


def test_history_newest_first_with_replays_and_rating_changes(
    client: Client, make_user: Callable[..., User]
) -> None:
    ann, bob = make_user("ann", display_name="Ann"), make_user("bob", display_name="Bob")
    first = finish(ranked_match("duel", [ann, bob]), [bob, ann])
    second = finish(ranked_match("duel", [ann, bob]), [ann, bob])
    html = client.get(f"/players/{ann.username}/").content.decode()
    codes = re.findall(r'href="/r/([A-Z0-9]+)/replay/"', html)
    assert codes == [second.code, first.code]
    assert f'<a href="/players/{bob.username}/"><bdi>Bob</bdi></a>' in html
    outcomes = re.findall(r'<span class="outcome[^"]*">([^<]+)</span>', html)
    assert outcomes == ["Won", "2nd of 2 (left)"]
    change = second.seats.get(user=ann).rating_change
    assert change is not None and change > 0
    assert f'<span class="change up">+{change:.1f}</span>' in html


def test_a_voided_match_is_shown_void_and_not_counted(
    client: Client, make_user: Callable[..., User]
) -> None:
    ann, bob = make_user("ann"), make_user("bob")
    kept = finish(ranked_match("duel", [ann, bob]), [ann, bob])
    voided = finish(ranked_match("duel", [ann, bob]), [ann, bob])
    services.match_void(match_id=voided.pk, reason="dice bot", actor=None)

    html = client.get(f"/players/{ann.username}/").content.decode()
    assert re.findall(r'href="/r/([A-Z0-9]+)/replay/"', html) == [voided.code, kept.code]
    outcomes = re.findall(r'<span class="outcome[^"]*">([^<]+)</span>', html)
    assert outcomes == ["Void", "Won"]
    assert re.search(r"<dt>Matches played</dt><dd>1</dd>", html)
    assert "<dt>Voided</dt><dd>1 (not counted)</dd>" in html
    assert Rating.objects.get(user=ann, queue="duel").games == 1
    assert 'class="match-row not-counted void"' in html


def test_history_is_paginated(client: Client, make_user: Callable[..., User]) -> None:
    ann, bob = make_user("ann"), make_user("bob")
    made = [finish(ranked_match("duel", [ann, bob]), [ann, bob]) for _ in range(3)]
    page, rows = profiles.history(ann, 1)
    assert [r.match.pk for r in rows] == [m.pk for m in reversed(made)]
    profiles_per_page = profiles.HISTORY_PER_PAGE
    try:
        profiles.HISTORY_PER_PAGE = 2
        html = client.get(f"/players/{ann.username}/?page=2").content.decode()
    finally:
        profiles.HISTORY_PER_PAGE = profiles_per_page
    assert re.findall(r'href="/r/([A-Z0-9]+)/replay/"', html) == [made[0].code]
    assert "Page 2 of 2" in html and 'href="?page=1#matches"' in html
    assert 'rel="next"' not in html


def test_practice_against_bots_and_local_matches(
    client: Client, make_user: Callable[..., User]
) -> None:
    ann = make_user("ann")
    practice = services.match_create(
        ruleset="classic", players=2, mode="practice", host=ann, bots={2: "easy"}
    )
    services.match_resign(match_id=practice.pk, user=ann)
    local = services.match_create(ruleset="duel", players=2, mode="local", host=ann)
    services.match_resign(match_id=local.pk, user=ann, corner=0)
    html = client.get(f"/players/{ann.username}/").content.decode()
    assert f'href="/r/{practice.code}/replay/"' in html and f"/r/{local.code}/replay/" in html
    assert re.search(r"vs Easy computer <span class=\"bot-tag\">BOT</span>", html)
    assert "Played on one device" in html
    # The local match counts as no one's result.
    assert re.search(r"<dt>Matches played</dt><dd>1</dd>", html)


def test_profiles_of_guests_unknown_and_inactive_players_are_not_shown(
    client: Client, make_user: Callable[..., User]
) -> None:
    assert client.get("/players/nobody-at-all/").status_code == 404
    gone = make_user("gone", is_active=False)
    assert client.get(f"/players/{gone.username}/").status_code == 404
    guest = User.objects.create(username="guest-0badcafe")
    assert client.get(f"/players/{guest.username}/").status_code == 404


def test_your_profile_in_the_nav(client: Client, make_user: Callable[..., User]) -> None:
    ann = make_user("ann")
    assert "Your profile" not in client.get("/").content.decode()
    client.force_login(ann)
    html = client.get("/").content.decode()
    assert f'<a href="/players/{ann.username}/">Your profile</a>' in html
    assert client.get("/accounts/profile/")["Location"] == f"/players/{ann.username}/"
    mine = client.get(f"/players/{ann.username}/").content.decode()
    assert 'href="/accounts/password/"' in mine
    assert "No finished matches yet." in mine


def test_profile_reads_a_fixed_number_of_queries(
    client: Client, make_user: Callable[..., User], settings: Any
) -> None:
    settings.RANKED_LEADERBOARD_MIN_GAMES = 1  # a rank in both (one query more)
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    ann, bob = make_user("ann"), make_user("bob")
    counts = []
    for more in (2, 6):
        for _ in range(more):
            finish(ranked_match("duel", [ann, bob]), [ann, bob])
        with CaptureQueriesContext(connection) as queries:
            assert client.get(f"/players/{ann.username}/").status_code == 200
        counts.append(len(queries))
    assert Match.objects.count() == 8
    # 10, and one for the reliability record (fairplay.reliability).
    assert counts[0] == counts[1] <= 11, counts


def test_no_ranked_games_yet(client: Client, make_user: Callable[..., User]) -> None:
    ann = make_user("ann")
    html = client.get(f"/players/{ann.username}/").content.decode()
    assert "No ranked games yet." in html and 'class="queue-rating"' not in html
    assert "to get a rating" not in html  # the invitation is for the player alone
    client.force_login(ann)
    html = client.get(f"/players/{ann.username}/").content.decode()
    assert '<a href="/play/ranked/">Play ranked</a> to get a rating.' in html
