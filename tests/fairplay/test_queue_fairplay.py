"""Blocks and suspensions in the quick-match queues (issue 33): a player never meets someone
they blocked (casual or ranked), a suspended player cannot queue for ranked play, players of
poor reliability meet each other first; and all of it holds when players join at once
(threads, PostgreSQL row locks)."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from django.conf import settings as django_settings
from django.contrib.auth.models import Group
from django.utils import timezone

from accounts.models import User
from disputes.models import MODERATORS
from fairplay import services
from fairplay.models import Sanction
from games.models import Match, Seat
from ranked import matchmaking
from ranked.matchmaking import Waiting, groups
from ranked.models import Entry
from tests.ranked.test_queue_concurrency import all_at_once

_names = itertools.count()


@pytest.fixture(autouse=True)
def _queues(settings: Any) -> None:
    settings.QUICK_MATCH_BOT_AFTER = 1000.0
    settings.RANKED_WINDOW_START = 3.0
    settings.RANKED_WINDOW_GROWTH = 0.5
    settings.RELIABILITY_MIN_MATCHES = 1


def make(prefix: str = "u") -> User:
    return User.objects.create(username=f"{prefix}{next(_names)}")


def moderator() -> User:
    user = User.objects.create(username=f"mod{next(_names)}", is_staff=True)
    user.groups.add(
        Group.objects.get_or_create(name=MODERATORS)[0]
    )  # flushed by transactional tests
    return user


def waiting(pk: int, waited: float, *, poor: bool = False) -> Waiting:
    entry = Entry(pk=pk, user_id=pk, queue="classic-2", ordinal=0.0)
    entry.joined_at = timezone.now() - timedelta(seconds=waited)
    return Waiting(entry, waited, poor)


def test_groups_never_hold_a_blocked_pair() -> None:
    w = [waiting(1, 30), waiting(2, 20), waiting(3, 10), waiting(4, 5)]
    assert [[x.entry.pk for x in g] for g in groups(w, 2, ranked=True)] == [[1, 2], [3, 4]]
    blocks = {(1, 2), (1, 3)}
    made = [[x.entry.pk for x in g] for g in groups(w, 2, ranked=True, blocks=blocks)]
    assert made == [[2, 3]]  # 1 waits; 2 meets the next one; 4 waits for a partner
    made = [[x.entry.pk for x in g] for g in groups(w, 2, ranked=False, blocks=blocks)]
    assert made == [[2, 3]]
    # Nobody left to meet: 1 waits rather than meet whom they blocked.
    assert groups(w[:2], 2, ranked=True, blocks=blocks) == []


def test_blocking_the_strongest_brings_no_weaker_partner_out_of_turn() -> None:
    """Ordinals 0, 1, 2, 9 (a window wide enough for all): the longest waiter, who blocked
    the nearest rating, does not take the next nearest out of turn; they wait, and the rest
    meet as they would have without the block."""
    w = [waiting(1, 300), waiting(2, 20), waiting(3, 10), waiting(4, 5)]
    for x, at in zip(w, (0.0, 1.0, 2.0, 9.0), strict=True):
        x.entry.ordinal = at
    plain = [[x.entry.pk for x in g] for g in groups(w, 2, ranked=True)]
    assert plain == [[1, 2], [3, 4]]
    made = [[x.entry.pk for x in g] for g in groups(w, 2, ranked=True, blocks={(1, 2)})]
    assert made == [[2, 3]]  # 1 rests this sweep; 2 (blocked, no fault) is not left out
    # The blocked side's block is the same for the pair, but then 2 is the one who waits.
    made = [[x.entry.pk for x in g] for g in groups(w, 2, ranked=True, blocks={(2, 1)})]
    assert made == [[1, 3]]


def test_poor_reliability_meets_poor_first() -> None:
    w = [waiting(1, 30, poor=True), waiting(2, 20), waiting(3, 10, poor=True), waiting(4, 5)]
    made = [[x.entry.pk for x in g] for g in groups(w, 2, ranked=True)]
    assert made == [[1, 3], [2, 4]]
    made = [[x.entry.pk for x in g] for g in groups(w, 2, ranked=False)]
    assert made == [[1, 3], [2, 4]]


@pytest.mark.django_db
def test_a_blocked_pair_is_not_matched_in_either_queue() -> None:
    a, b, c = make(), make(), make()
    services.block(user=b, other=a)
    for ranked in (True, False):
        matchmaking.join(user=a, queue="classic-2", ranked=ranked)
        assert matchmaking.join(user=b, queue="classic-2", ranked=ranked).state == "waiting"
        third = matchmaking.join(user=c, queue="classic-2", ranked=ranked)
        assert third.state == "matched"
        assert set(third.match.seats.values_list("user_id", flat=True)) == {a.pk, c.pk}
        matchmaking.cancel(user=b)
        Match.objects.filter(pk=third.match_id).update(status=50)  # out of the way


@pytest.mark.django_db
def test_a_suspended_player_cannot_queue_for_ranked_play() -> None:
    mod, a = moderator(), make()
    entry = matchmaking.join(user=a, queue="duel")
    assert entry.state == "waiting"
    services.sanction(
        moderator=mod, user=a, kind=Sanction.Kind.SUSPENSION, reason="Boosting", days=7
    )
    entry.refresh_from_db()
    assert entry.state == "cancelled"  # out of the queue at once
    with pytest.raises(matchmaking.QueueError) as refused:
        matchmaking.join(user=a, queue="duel")
    assert refused.value.code == "suspended" and "Boosting" in refused.value.message
    assert matchmaking.join(user=a, queue="duel", ranked=False).state == "waiting"  # casual


pytestmark_pg = pytest.mark.skipif(
    "postgresql" not in django_settings.DATABASES["default"]["ENGINE"],
    reason="row locks with SKIP LOCKED and concurrent transactions need PostgreSQL",
)


def _pairs(mode: str) -> list[set[int]]:
    out: dict[int, set[int]] = {}
    for match_id, user_id in Seat.objects.filter(match__mode=mode).values_list(
        "match_id", "user_id"
    ):
        out.setdefault(match_id, set()).add(user_id)
    return list(out.values())


@pytestmark_pg
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("ranked", [True, False])
def test_blocks_and_suspensions_hold_under_concurrent_joins(ranked: bool) -> None:
    """16 players join one queue at once with sweeps alongside; each of 0-7 blocked the next
    one (1-8); 14 is suspended before the joins, 15 while they run (15 may have been matched
    just before: a suspension keeps a player out of the queue, it does not undo a match)."""
    mod = moderator()
    users = [make("c") for _ in range(16)]
    for i in range(8):
        services.block(user=users[i], other=users[i + 1])
    services.sanction(
        moderator=mod, user=users[14], kind=Sanction.Kind.SUSPENSION, reason="Cheating", days=3
    )

    def join(user: User) -> Any:
        try:
            return matchmaking.join(user=user, queue="classic-2", ranked=ranked)
        except matchmaking.QueueError as refused:
            return refused.code

    calls: list[Callable[[], Any]] = [lambda u=u: join(u) for u in users]
    calls += [matchmaking.sweep_all] * 3
    calls.append(
        lambda: services.sanction(
            moderator=mod, user=users[15], kind="suspension", reason="Boosting", days=3
        )
    )
    results = all_at_once(calls)
    if ranked:
        assert results[14] == "suspended"
    else:
        assert isinstance(results[14], Entry)  # casual play stays open
    matchmaking.sweep_all()
    blocked = {frozenset((users[i].pk, users[i + 1].pk)) for i in range(8)}
    mode = "ranked" if ranked else "friendly"
    pairs = _pairs(mode)
    assert pairs, "no match was made"
    assert all(frozenset(p) not in blocked for p in pairs), pairs
    seated = set().union(*pairs)
    if ranked:
        assert users[14].pk not in seated
        assert not Entry.objects.filter(
            user__in=users[14:], ranked=True, state=Entry.State.WAITING
        ).exists()
        with pytest.raises(matchmaking.QueueError):
            matchmaking.join(user=users[15], queue="duel")
    # Every player is in one match at most.
    assert len(seated) == sum(len(p) for p in pairs)
