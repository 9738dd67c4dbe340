"""Sanction evasion (`ranked.holds`): a new account plays ranked once it has finished a few
casual games or is some days old, and an account seen at a suspended account's address is
held for a moderator instead of queued: the player is told why in their language, the
moderator sees the hold on the fair-play desk and decides it."""

from __future__ import annotations

import itertools
from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth.models import Group
from django.test import Client
from django.utils import timezone

from accounts.models import User
from audit import actions
from audit.models import AuditEntry
from disputes.models import MODERATORS
from fairplay import services as fairplay
from fairplay.models import Sanction
from games import services
from games.models import Match, Status
from ranked import matchmaking
from ranked.models import Entry, Hold

pytestmark = pytest.mark.django_db

_names = itertools.count()
EVADER_ADDRESS = "203.0.113.7"


def account(*, days: int = 30, prefix: str = "ev") -> User:
    user = User.objects.create_user(f"{prefix}{next(_names)}", password="pw-for-tests")
    User.objects.filter(pk=user.pk).update(date_joined=timezone.now() - timedelta(days=days))
    user.refresh_from_db()
    return user


def moderator() -> User:
    user = account(prefix="mod")
    user.is_staff = True
    user.save()
    user.groups.add(Group.objects.get_or_create(name=MODERATORS)[0])
    return user


def join_ranked(user: User, ip: str, language: str = "en") -> Any:
    client = Client(REMOTE_ADDR=ip, HTTP_ACCEPT_LANGUAGE=language)
    client.force_login(user)
    return client.post(
        "/play/queue/join", {"queue": "duel", "ranked": "1"}, headers={"Accept": "application/json"}
    )


def finished_casual_game(a: User, b: User) -> None:
    match = services.match_create(ruleset="duel", players=2, mode="friendly", host=a, first=0)
    services.match_join(code=match.code, user=b)
    services.match_resign(match_id=match.pk, user=b)
    assert Match.objects.get(pk=match.pk).status == Status.FINISHED


def test_a_new_account_plays_ranked_after_a_few_casual_games_or_days(settings: Any) -> None:
    settings.RANKED_MIN_ACCOUNT_DAYS = 2
    settings.RANKED_MIN_CASUAL_GAMES = 2
    fresh, other = account(days=0), account(days=0)
    refused = join_ranked(fresh, "198.51.100.1", "de")
    assert refused.status_code == 403
    error = refused.json()["error"]
    assert error["code"] == "too_new"
    assert "Gelegenheitspartien" in error["text"]  # told in the reader's language
    assert not Entry.objects.filter(user=fresh).exists()
    for _ in range(2):
        finished_casual_game(fresh, other)
    assert join_ranked(fresh, "198.51.100.1").status_code == 200
    # Days old enough, no casual game: in too.
    assert join_ranked(account(days=3), "198.51.100.2").status_code == 200


def test_an_account_at_a_suspended_accounts_address_is_held_for_a_moderator() -> None:
    mod, evader = moderator(), account()
    # The suspended player was seen at their address (a casual queue joined from there).
    client = Client(REMOTE_ADDR=EVADER_ADDRESS)
    client.force_login(evader)
    client.post("/play/queue/join", {"queue": "duel", "ranked": "0"})
    matchmaking.cancel(user=evader)
    fairplay.sanction(
        moderator=mod, user=evader, kind=Sanction.Kind.SUSPENSION, reason="Boosting", days=30
    )
    second = account(days=10)  # old enough: only the link holds it
    refused = join_ranked(second, EVADER_ADDRESS, "fr")
    assert refused.status_code == 403
    error = refused.json()["error"]
    assert error["code"] == "held" and "modérateur" in error["text"]
    assert not Entry.objects.filter(user=second, state=Entry.State.WAITING).exists()
    hold = Hold.objects.get(user=second)
    assert hold.linked == evader and hold.ip == EVADER_ADDRESS and hold.decided_at is None
    assert AuditEntry.objects.filter(action=actions.QUEUE_HELD).count() == 1
    # From another address now: still held (the account is linked, not the request).
    assert join_ranked(second, "198.51.100.9").json()["error"]["code"] == "held"
    assert Hold.objects.filter(user=second).count() == 1
    # The moderator sees the hold on the desk and lets the account play.
    desk = Client()
    desk.force_login(mod)
    page = desk.get("/fairplay/desk/").content.decode()
    assert f'data-held="{second.username}"' in page and f"@<bdi>{evader.username}</bdi>" in page
    desk.post(f"/fairplay/desk/holds/{hold.pk}/", {"decision": "allow"})
    hold.refresh_from_db()
    assert hold.decision == Hold.Decision.ALLOWED and hold.decided_by == mod
    assert join_ranked(second, EVADER_ADDRESS).status_code == 200
    assert f'data-held="{second.username}"' not in desk.get("/fairplay/desk/").content.decode()


def test_a_kept_hold_keeps_the_account_out_and_casual_play_stays_open() -> None:
    mod, evader, third = moderator(), account(), account()
    Client(REMOTE_ADDR=EVADER_ADDRESS).force_login(evader)
    matchmaking.join(user=evader, queue="duel", ranked=False, ip=EVADER_ADDRESS)
    matchmaking.cancel(user=evader)
    fairplay.sanction(
        moderator=mod, user=evader, kind=Sanction.Kind.SUSPENSION, reason="Boosting", days=30
    )
    assert join_ranked(third, EVADER_ADDRESS).json()["error"]["code"] == "held"
    hold = Hold.objects.get(user=third)
    from ranked import holds

    with pytest.raises(holds.HoldError) as refused:
        holds.decide(moderator=evader, hold_id=hold.pk, allow=True)  # not a moderator
    assert refused.value.code == "forbidden"
    holds.decide(moderator=mod, hold_id=hold.pk, allow=False)
    assert join_ranked(third, EVADER_ADDRESS).json()["error"]["code"] == "held"
    assert matchmaking.join(user=third, queue="duel", ranked=False).state == "waiting"


def test_the_servers_own_address_links_nobody() -> None:
    mod, evader = moderator(), account()
    matchmaking.join(user=evader, queue="duel", ranked=False, ip="127.0.0.1")
    matchmaking.cancel(user=evader)
    fairplay.sanction(
        moderator=mod, user=evader, kind=Sanction.Kind.SUSPENSION, reason="Boosting", days=30
    )
    assert join_ranked(account(), "127.0.0.1").status_code == 200


def test_tournament_entry_holds_the_same_accounts() -> None:
    """Tournament games are ranked matches: a new account, or one at a suspended account's
    address, is refused entry as the queues refuse it (and the link makes the same hold)."""
    from tournaments import services as tournaments

    event = tournaments.create(
        name="Evasion arena",
        kind="arena",
        queue="duel",
        starts_at=timezone.now() + timedelta(hours=1),
        minutes=30,
    )
    mod, evader = moderator(), account()
    matchmaking.join(user=evader, queue="duel", ranked=False, ip=EVADER_ADDRESS)
    matchmaking.cancel(user=evader)
    fairplay.sanction(
        moderator=mod, user=evader, kind=Sanction.Kind.SUSPENSION, reason="Boosting", days=30
    )
    second = account()
    with pytest.raises(tournaments.TournamentError) as refused:
        tournaments.join(code=event.code, user=second, ip=EVADER_ADDRESS)
    assert "moderator looks at it" in refused.value.message
    assert Hold.objects.filter(user=second, linked=evader).exists()
    # The event's page says so too, read from the stored hold.
    assert "moderator looks at it" in (tournaments.entry_refusal(event, second) or "")


def test_tournament_entry_waits_for_a_new_account(settings: Any) -> None:
    from tournaments import services as tournaments

    settings.RANKED_MIN_ACCOUNT_DAYS = 2
    event = tournaments.create(
        name="Newcomers' arena",
        kind="arena",
        queue="duel",
        starts_at=timezone.now() + timedelta(hours=1),
        minutes=30,
    )
    with pytest.raises(tournaments.TournamentError) as refused:
        tournaments.join(code=event.code, user=account(days=0))
    assert "casual games" in refused.value.message
    assert tournaments.join(code=event.code, user=account(days=3)).status == "active"
