"""Many players join the queues at once (threads, PostgreSQL row locks with SKIP LOCKED): every
player ends in at most one match, every pair the ratings allow is made, nobody meets themselves,
and the rating windows widen until the last ones meet."""

from __future__ import annotations

import random
import threading
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from typing import Any

import pytest
from django.conf import settings as django_settings
from django.db import connections
from django.db.models import F

from accounts.models import User
from games.models import Match, Seat, Status
from ranked import matchmaking
from ranked.models import Entry, Rating

pytestmark = [
    pytest.mark.skipif(
        "postgresql" not in django_settings.DATABASES["default"]["ENGINE"],
        reason="row locks with SKIP LOCKED and concurrent transactions need PostgreSQL",
    ),
    pytest.mark.django_db(transaction=True),
]


@pytest.fixture(autouse=True)
def windows(settings: Any) -> None:
    settings.RANKED_WINDOW_START = 3.0
    settings.RANKED_WINDOW_GROWTH = 0.5
    settings.QUICK_MATCH_BOT_AFTER = 1000.0


def all_at_once(calls: list[Callable[[], Any]]) -> list[Any]:
    """Run the calls in threads released together by a barrier; returns what each returned.
    Any exception a call raises (a deadlock, a lock timeout, a bug) is raised here and fails
    the test: a call that may be refused says so itself (`join_or_refusal`)."""
    barrier = threading.Barrier(len(calls))

    def run(call: Callable[[], Any]) -> Any:
        try:
            barrier.wait(10)
            return call()
        finally:
            connections.close_all()

    pool = ThreadPoolExecutor(max_workers=len(calls))
    try:
        futures = [pool.submit(run, call) for call in calls]
        return [f.result(timeout=60) for f in futures]
    finally:
        pool.shutdown(wait=False, cancel_futures=True)


def join_or_refusal(user: User, queue: str) -> Entry | str:
    """A join, or the code of the refusal the queue gave (nothing else is caught)."""
    try:
        return matchmaking.join(user=user, queue=queue)
    except matchmaking.QueueError as refused:
        return refused.code


def check_joined(entry: Any, user: User, queue: str) -> None:
    """A join's outcome: the player's own entry in that queue, waiting, or matched into a
    match that seats them (by the join's own sweep or another's)."""
    assert isinstance(entry, Entry), entry
    assert (entry.user_id, entry.queue) == (user.pk, queue)
    assert entry.state in (Entry.State.WAITING, Entry.State.MATCHED), entry.state
    if entry.state == Entry.State.MATCHED:
        assert entry.match is not None
        assert user.pk in {s.user_id for s in entry.match.seats.all()}


def check_swept(counts: list[Any]) -> None:
    """Each sweep's outcome: how many matches it made, all of them there (a join's own sweep
    makes matches too, uncounted, so the sum is at most the matches)."""
    assert all(isinstance(n, int) and n >= 0 for n in counts), counts
    assert sum(counts) <= Match.objects.count()


def players(n: int, queue: str, ordinals: list[float]) -> list[User]:
    users = []
    for i in range(n):
        user = User.objects.create(username=f"c{queue}{i}")
        sigma = 2.0
        Rating.objects.create(
            user=user, queue=queue, mu=ordinals[i] + 3 * sigma, sigma=sigma,
            ordinal=ordinals[i], games=20,
        )  # fmt: skip
        users.append(user)
    return users


def seats_by_user(mode: str = "ranked") -> Counter[int]:
    return Counter(Seat.objects.filter(match__mode=mode).values_list("user_id", flat=True))


def check_matches(size: int) -> list[Match]:
    matches = list(Match.objects.prefetch_related("seats"))
    for match in matches:
        users = [s.user_id for s in match.seats.all()]
        assert len(users) == size and len(set(users)) == size, "a player met themselves"
        assert not any(s.bot for s in match.seats.all())
        assert match.status == Status.ACTIVE and match.mode == "ranked"
    return matches


def test_many_players_at_once_each_in_one_match_and_every_allowed_pair_made() -> None:
    # 12 pairs of near ratings, each pair 30 points from the next: only the intended pairs fit
    # in a fresh window, whatever order the joins and sweeps run in.
    ordinals = [30.0 * (i // 2) + (i % 2) for i in range(24)]
    users = players(24, "classic-2", ordinals)
    order = list(range(24))
    random.Random(7).shuffle(order)
    calls: list[Callable[[], Any]] = [
        lambda u=users[i]: matchmaking.join(user=u, queue="classic-2") for i in order
    ]
    calls += [matchmaking.sweep_all] * 4  # sweeps (beat, other processes) run alongside
    results = all_at_once(calls)
    joined, swept = results[:24], results[24:]
    for i, entry in zip(order, joined, strict=True):
        check_joined(entry, users[i], "classic-2")
    check_swept(swept)
    before = Match.objects.count()
    late = matchmaking.sweep_all()  # anyone whose partner was locked by a running sweep
    assert Match.objects.count() == before + late
    assert max(seats_by_user().values()) == 1
    matches = check_matches(2)
    assert len(matches) == 12
    pairs = sorted(sorted(ordinals[users.index(s.user)] for s in m.seats.all()) for m in matches)
    assert pairs == [[30.0 * k, 30.0 * k + 1] for k in range(12)]
    assert not Entry.objects.filter(state=Entry.State.WAITING).exists()
    assert Entry.objects.filter(state=Entry.State.MATCHED).count() == 24


def test_windows_widen_until_everyone_far_apart_is_matched() -> None:
    # 8 players 10 points apart: nobody fits a fresh window of 3.
    ordinals = [10.0 * i for i in range(8)]
    users = players(8, "duel", ordinals)
    joined = all_at_once([lambda u=u: matchmaking.join(user=u, queue="duel") for u in users])
    for user, entry in zip(users, joined, strict=True):
        check_joined(entry, user, "duel")
        assert entry.state == Entry.State.WAITING  # nobody fits a fresh window
    assert not Match.objects.exists()
    reach = []
    # Each round is 5 s more of waiting for everyone. Who pairs first depends on which sweep
    # locks whom, so the last two may be as far apart as 0 and 70 (a window of 70: 134 s).
    for _ in range(40):
        Entry.objects.filter(state=Entry.State.WAITING).update(
            joined_at=F("joined_at") - timedelta(seconds=5)
        )
        waiting = Entry.objects.filter(state=Entry.State.WAITING).order_by("pk").first()
        if waiting is not None:
            reach.append(matchmaking.status(waiting.user)["window"])
        before = Match.objects.count()
        made = all_at_once([matchmaking.sweep_all] * 3)
        assert Match.objects.count() - before == sum(made)  # each sweep counts what it made
        if not Entry.objects.filter(state=Entry.State.WAITING).exists():
            break
    assert reach == sorted(reach) and reach[0] < 10.0 <= reach[-1]
    assert max(seats_by_user().values()) == 1
    assert len(check_matches(2)) == 4


def test_two_tabs_of_one_account_racing_get_one_seat() -> None:
    users = players(5, "classic-4", [0.0] * 5)
    me = users[0]
    # Every player's join at once, and me twice more (other tabs), and sweeps.
    calls: list[Callable[[], Any]] = [lambda u=u: join_or_refusal(u, "classic-4") for u in users]
    calls += [lambda: join_or_refusal(me, "classic-4")] * 2
    calls += [matchmaking.sweep_all] * 3
    results = all_at_once(calls)
    joined, tabs, swept = results[:5], results[5:7], results[7:]
    # The four others are never refused. Each of my three tabs is either in the queue (waiting,
    # matched, or cancelled by my next tab's join: one entry waits at a time) or refused as
    # busy, when it comes after the match that seated me: one active ranked match.
    for user, entry in zip(users[1:], joined[1:], strict=True):
        check_joined(entry, user, "classic-4")
    mine = [joined[0], *tabs]
    for outcome in mine:
        if outcome != "ranked_busy":
            assert isinstance(outcome, Entry) and outcome.user_id == me.pk, outcome
    assert any(isinstance(o, Entry) for o in mine), "every tab of mine was refused"
    check_swept(swept)
    matchmaking.sweep_all()
    assert max(seats_by_user().values()) == 1
    matches = check_matches(4)
    assert len(matches) == 1
    assert Entry.objects.filter(state=Entry.State.WAITING).count() == 1  # one left over
