"""Leaderboards: one per ranked queue, by mu - 3 sigma, only players with the minimum number
of rated games; rank, name (a link to the profile), rating and games."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest
from django.test import Client

from accounts.models import User
from ranked.models import Rating
from tests.ranked.matches import finish, ranked_match

pytestmark = pytest.mark.django_db


def rate(user: User, queue: str, mu: float, sigma: float, games: int, wins: int = 0) -> Rating:
    return Rating.objects.create(
        user=user, queue=queue, mu=mu, sigma=sigma, ordinal=mu - 3 * sigma, games=games, wins=wins
    )


def board(html: str) -> list[tuple[str, str, str, str]]:
    """(rank, username, rating, games) for each row of the board."""
    body = html.split("<tbody>", 1)[1].split("</tbody>", 1)[0]
    rows = []
    for tr in re.findall(r"<tr[^>]*>(.*?)</tr>", body, re.S):
        rank = re.search(r'<td class="fig">(\d+)</td>', tr)
        name = re.search(r'href="/players/([^/]+)/"', tr)
        rating = re.search(r"<strong>(-?[\d.]+)</strong>", tr)
        games = re.findall(r'<td class="fig">(\d+)</td>', tr)
        assert rank and name and rating and games, tr
        rows.append((rank.group(1), name.group(1), rating.group(1), games[1]))
    return rows


def test_order_by_mu_minus_three_sigma_and_the_minimum_games(
    client: Client, make_user: Callable[..., User], settings: Any
) -> None:
    settings.RANKED_LEADERBOARD_MIN_GAMES = 5
    a, b, c, d, e = (make_user(n) for n in "abcde")
    rate(a, "classic-4", mu=30, sigma=3, games=12)  # 21
    rate(b, "classic-4", mu=35, sigma=5, games=6)  # 20: higher mu, but less sure
    rate(c, "classic-4", mu=28, sigma=1, games=40)  # 25
    rate(d, "classic-4", mu=50, sigma=1, games=4)  # 47, but too few games
    rate(e, "duel", mu=40, sigma=1, games=20)  # another queue

    html = client.get("/leaderboards/classic-4/").content.decode()
    assert board(html) == [
        ("1", c.username, "25.0", "40"),
        ("2", a.username, "21.0", "12"),
        ("3", b.username, "20.0", "6"),
    ]
    assert "once they have played 5 rated games" in html
    assert '<a href="/leaderboards/classic-4/" aria-current="page">' in html
    # The provisional mark (fewer than 10 games by default) on b only.
    assert html.count('class="tag provisional" title=') == 1

    client.force_login(d)
    html = client.get("/leaderboards/classic-4/").content.decode()
    assert "You are not on this board yet: rating 47.0 after 4 games; 5 are needed." in html
    client.force_login(c)
    html = client.get("/leaderboards/classic-4/").content.decode()
    assert "You are not on this board yet" not in html and '<tr class="me">' in html


def test_finished_ranked_matches_reach_the_board(
    client: Client, make_user: Callable[..., User], settings: Any
) -> None:
    settings.RANKED_LEADERBOARD_MIN_GAMES = 2
    ann, bob, cy = make_user("ann"), make_user("bob"), make_user("cy")
    finish(ranked_match("duel", [ann, bob]), [ann, bob])
    html = client.get("/leaderboards/duel/").content.decode()
    assert "Nobody has played 2 rated games in this queue yet." in html
    finish(ranked_match("duel", [ann, bob]), [ann, bob])
    finish(ranked_match("duel", [cy, bob]), [cy, bob])
    rows = board(client.get("/leaderboards/duel/").content.decode())
    assert [r[1] for r in rows] == [ann.username, bob.username]  # cy: one game only
    want = Rating.objects.get(user=ann, queue="duel").ordinal
    assert rows[0][2] == f"{want:.1f}"


def test_the_default_board_and_unknown_queues(client: Client) -> None:
    html = client.get("/leaderboards/").content.decode()
    assert '<a href="/leaderboards/classic-2/" aria-current="page">' in html
    for queue in ("classic-2", "classic-4", "duel"):
        assert f'href="/leaderboards/{queue}/"' in html
    assert client.get("/leaderboards/chess/").status_code == 404
