"""The tournament pages: the list, an event's page and its JSON standings, joining and
withdrawing, the verify page, the profile's results, the nav link, and the admin."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

from django.test import Client

from accounts.models import User
from audit import actions
from audit.clock import db_now
from audit.models import AuditEntry
from games import services as match_services
from tournaments import services
from tournaments.models import Player, Tournament

from .play import finish_game, playing


def event(kind: str = "arena", queue: str = "duel", **kw: Any) -> Tournament:
    return services.create(
        name=kw.pop("name", f"Test {kind}"),
        kind=kind,
        queue=queue,
        starts_at=kw.pop("starts_at", db_now() - timedelta(seconds=1)),
        minutes=kw.pop("minutes", 30),
        **kw,
    )


def signed_in(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_list_shows_upcoming_running_and_finished(make_users: Callable[[int], list[User]]) -> None:
    soon = event(name="Evening arena", starts_at=db_now() + timedelta(hours=1))
    now = event(name="Running Swiss", kind="swiss", rounds=3)
    services.tick()
    page = Client().get("/tournaments/").content.decode()
    assert "Evening arena" in page and "Running Swiss" in page
    assert page.index("Running Swiss") < page.index("Evening arena")  # running comes first
    assert (
        f'href="/tournaments/{soon.code}/"' in page and f'href="/tournaments/{now.code}/"' in page
    )
    assert 'href="/tournaments/"' in page  # the nav link


def test_join_withdraw_and_live_standings(
    make_users: Callable[[int], list[User]], django_capture_on_commit_callbacks: Any
) -> None:
    a, b = make_users(2)
    t = event()
    ca, cb = signed_in(a), signed_in(b)
    page = ca.get(f"/tournaments/{t.code}/").content.decode()
    assert 'id="join"' in page
    assert ca.post(f"/tournaments/{t.code}/join").status_code == 302
    r = cb.post(f"/tournaments/{t.code}/join", headers={"Accept": "application/json"})
    assert r.status_code == 200 and r.json()["you"]["status"] == "active"
    services.tick()
    data = ca.get(f"/tournaments/{t.code}/standings.json").json()
    (game,) = playing(t)
    assert data["you"]["game"] == f"/r/{game.match.code}/"
    assert [g["code"] for g in data["games"]] == [game.match.code]
    page = Client().get(f"/tournaments/{t.code}/").content.decode()
    assert f'href="/r/{game.match.code}/"' in page  # watchable while it runs
    finish_game(game, [b.pk, a.pk], django_capture_on_commit_callbacks)
    data = Client().get(f"/tournaments/{t.code}/standings.json").json()
    assert [(r["name"], r["score"]) for r in data["rows"]] == [(b.username, 2), (a.username, 0)]
    assert data["games"] == []
    assert ca.post(f"/tournaments/{t.code}/withdraw").status_code == 302
    assert Player.objects.get(tournament=t, user=a).status == "paused"
    page = ca.get(f"/tournaments/{t.code}/").content.decode()
    assert "Come back" in page
    page = Client().get(f"/tournaments/{t.code}/").content.decode()
    assert f'href="/r/{game.match.code}/replay/"' in page


def test_refusals_are_coded_and_shown(make_users: Callable[[int], list[User]]) -> None:
    (a,) = make_users(1)
    t = event(min_games=5)
    r = signed_in(a).post(f"/tournaments/{t.code}/join", headers={"Accept": "application/json"})
    assert r.status_code == 403 and r.json()["error"]["code"] == "forbidden"
    assert "5 rated games" in signed_in(a).get(f"/tournaments/{t.code}/").content.decode()
    anonymous = Client().get(f"/tournaments/{t.code}/").content.decode()
    assert "Tournaments are for accounts" in anonymous
    assert Client().get("/tournaments/NOPE00/").status_code == 404
    assert Client().get(f"/tournaments/{t.code}/join").status_code == 405


def test_verify_page_and_profile(
    make_users: Callable[[int], list[User]], django_capture_on_commit_callbacks: Any
) -> None:
    a, b = make_users(2)
    t = event(name="Profile arena")
    for user in (a, b):
        services.join(code=t.code, user=user)
    services.tick()
    (game,) = playing(t)
    finish_game(game, [a.pk, b.pk], django_capture_on_commit_callbacks)
    page = Client().get(f"/tournaments/{t.code}/verify/").content.decode()
    assert 'data-ok="1"' in page
    Player.objects.filter(tournament=t, user=b).update(score=7)
    page = Client().get(f"/tournaments/{t.code}/verify/").content.decode()
    assert 'data-ok="0"' in page and "published score 7, recomputed 0" in page
    profile = signed_in(a).get(f"/players/{a.username}/").content.decode()
    assert "Profile arena" in profile and f'href="/tournaments/{t.code}/"' in profile


def test_admin_creates_an_audited_event(make_users: Callable[[int], list[User]]) -> None:
    (boss,) = make_users(1)
    boss.is_staff = boss.is_superuser = True
    boss.save()
    client = signed_in(boss)
    start = db_now() + timedelta(hours=2)
    form = {
        "name": "Moderators' cup",
        "kind": "swiss",
        "queue": "classic-4",
        "starts_at_0": start.strftime("%Y-%m-%d"),
        "starts_at_1": start.strftime("%H:%M:%S"),
        "minutes": "20",
        "rounds": "0",
        "min_games": "0",
        "min_account_days": "0",
        "players-TOTAL_FORMS": "0",
        "players-INITIAL_FORMS": "0",
    }
    r = client.post("/admin/tournaments/tournament/add/", form)
    assert r.status_code == 200 and "at least one round" in r.content.decode()
    form["rounds"] = "4"
    r = client.post("/admin/tournaments/tournament/add/", form)
    assert r.status_code == 302, r.content.decode()[:2000]
    t = Tournament.objects.get(name="Moderators' cup")
    assert len(t.code) == 6 and t.created_by == boss and t.rounds == 4
    entry = AuditEntry.objects.get(action=actions.TOURNAMENT_CREATED)
    assert entry.extra_data["code"] == t.code


def test_withdrawing_from_an_event_one_is_not_in_is_a_coded_refusal(
    make_users: Callable[[int], list[User]],
) -> None:
    (a,) = make_users(1)
    t = event()
    r = signed_in(a).post(f"/tournaments/{t.code}/withdraw", headers={"Accept": "application/json"})
    assert r.status_code == 400 and r.json()["error"]["code"] == "not_entered"
    r = signed_in(a).post(f"/tournaments/{t.code}/withdraw", follow=True)
    assert r.status_code == 200 and "You are not in this tournament" in r.content.decode()


def test_verify_page_verifies_once_per_change_of_the_event(
    make_users: Callable[[int], list[User]], django_capture_on_commit_callbacks: Any
) -> None:
    """An anonymous visitor cannot make the server re-verify every game on each request: the
    second visit reads no match event; a change of the event makes a new report."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    a, b = make_users(2)
    t = event(name="Cached arena")
    for user in (a, b):
        services.join(code=t.code, user=user)
    services.tick()
    (game,) = playing(t)
    finish_game(game, [a.pk, b.pk], django_capture_on_commit_callbacks)

    def visit() -> tuple[str, list[str]]:
        with CaptureQueriesContext(connection) as seen:
            page = Client().get(f"/tournaments/{t.code}/verify/").content.decode()
        return page, [q["sql"] for q in seen.captured_queries]

    page, first = visit()
    assert 'data-ok="1"' in page
    assert any("games_matchevent" in q for q in first)  # verified: the match's events read
    page, again = visit()
    assert 'data-ok="1"' in page
    assert not any("games_matchevent" in q for q in again) and len(again) < len(first) / 3
    Player.objects.filter(tournament=t, user=b).update(score=7)  # a change of the event
    page, changed = visit()
    assert 'data-ok="0"' in page and any("games_matchevent" in q for q in changed)


def test_verify_tournament_prints_names(
    make_users: Callable[[int], list[User]], django_capture_on_commit_callbacks: Any
) -> None:
    import io

    from django.core.management import call_command

    a, b = make_users(2)
    t = event()
    for user in (a, b):
        services.join(code=t.code, user=user)
    services.tick()
    (game,) = playing(t)
    finish_game(game, [a.pk, b.pk], django_capture_on_commit_callbacks)
    out = io.StringIO()
    call_command("verify_tournament", t.code, stdout=out)
    lines = out.getvalue().splitlines()
    assert lines[0].startswith(f"#1 {a.username}: ") and lines[1].startswith(f"#2 {b.username}: ")


def test_moderators_make_events_in_the_admin(make_users: Callable[[int], list[User]]) -> None:
    """The README says moderators make events in the admin: the moderators group has the
    rights (a data migration), and what they make is checked and audited as ever."""
    from django.contrib.auth.models import Group

    from disputes.models import MODERATORS

    (mod,) = make_users(1)
    mod.is_staff = True
    mod.save()
    mod.groups.add(Group.objects.get(name=MODERATORS))
    client = signed_in(mod)
    assert client.get("/admin/tournaments/tournament/add/").status_code == 200
    start = db_now() + timedelta(hours=2)
    r = client.post(
        "/admin/tournaments/tournament/add/",
        {
            "name": "Moderators' arena",
            "kind": "arena",
            "queue": "duel",
            "starts_at_0": start.strftime("%Y-%m-%d"),
            "starts_at_1": start.strftime("%H:%M:%S"),
            "minutes": "30",
            "rounds": "0",
            "min_games": "0",
            "min_account_days": "0",
            "players-TOTAL_FORMS": "0",
            "players-INITIAL_FORMS": "0",
        },
    )
    assert r.status_code == 302, r.content.decode()[:2000]
    made = Tournament.objects.get(name="Moderators' arena")
    assert made.created_by == mod
    assert AuditEntry.objects.filter(action=actions.TOURNAMENT_CREATED).exists()


def test_a_tournament_game_s_room_names_its_event_and_leads_back(
    make_users: Callable[[int], list[User]], django_capture_on_commit_callbacks: Any
) -> None:
    a, b, c, d = make_users(4)
    t = event("swiss", name="Friday Swiss", rounds=2, minutes=10)
    for user in (a, b, c, d):
        services.join(code=t.code, user=user)
    services.tick()
    game = next(g for g in playing(t) if a.pk in g.users)
    room = signed_in(a).get(f"/r/{game.match.code}/").content.decode()
    assert 'id="room-event"' in room and f'href="/tournaments/{t.code}/"' in room
    assert "Friday Swiss" in room and "round 1 of 2" in room
    finish_game(game, list(game.users), django_capture_on_commit_callbacks)
    room = signed_in(a).get(f"/r/{game.match.code}/").content.decode()
    assert 'id="back-to-event"' in room and 'id="queue-again"' not in room


def test_a_ranked_queue_game_still_offers_the_queue(
    make_users: Callable[[int], list[User]],
) -> None:
    a, b = make_users(2)
    (match,) = match_services.ranked_matches_create(ruleset="duel", tables=[[a, b]])
    room = signed_in(a).get(f"/r/{match.code}/").content.decode()
    assert 'id="queue-again"' in room and 'id="room-event"' not in room


def test_every_page_of_an_entrant_watches_for_their_next_game(
    make_users: Callable[[int], list[User]], settings: Any
) -> None:
    settings.TOURNAMENT_GAME_GRACE = 60
    a, b, outsider = make_users(3)
    t = event(name="Watched arena")
    for user in (a, b):
        services.join(code=t.code, user=user)
    assert 'id="paired-notice"' in signed_in(a).get("/").content.decode()
    assert 'id="paired-notice"' not in signed_in(outsider).get("/").content.decode()
    assert signed_in(a).get("/tournaments/next.json").json() == {"next": None}
    services.tick()
    (game,) = playing(t)
    got = signed_in(a).get("/tournaments/next.json").json()["next"]
    assert got["game"] == f"/r/{game.match.code}/" and got["event"] == "Watched arena"
    assert 50 <= got["clock_in"] <= 60
    assert signed_in(outsider).get("/tournaments/next.json").json() == {"next": None}
    assert Client().get("/tournaments/next.json").json() == {"next": None}


def test_a_swiss_page_says_what_happens_at_a_deadline(
    make_users: Callable[[int], list[User]],
) -> None:
    a, b = make_users(2)
    t = event("swiss", rounds=2, minutes=10)
    for user in (a, b):
        services.join(code=t.code, user=user)
    services.tick()
    page = signed_in(a).get(f"/tournaments/{t.code}/").content.decode()
    assert 'id="deadline-rule"' in page and "goes on to its end" in page
