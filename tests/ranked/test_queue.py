"""Quick match: joining, cancelling, matching by rating in a widening window, the casual bot,
and the match services' ranked checks (accounts only, no bots, one seat and one active ranked
match per account, same address recorded)."""

from __future__ import annotations

import itertools
from datetime import timedelta
from typing import Any

import pytest
from django.db.models import F

from accounts.models import User
from audit.models import AuditEntry
from games import services
from games.match.errors import ServiceError
from games.models import Match, Seat, Status
from games.services.deadlines import turn_seconds
from ranked import matchmaking, tasks
from ranked.matchmaking import QueueError, Waiting
from ranked.models import Entry, Rating
from ranked.ratings import MU, SIGMA

_names = itertools.count()


@pytest.fixture(autouse=True)
def slow_bot(settings: Any) -> None:
    settings.QUICK_MATCH_BOT_AFTER = 1000.0  # tests that want the bot say so
    settings.RANKED_WINDOW_START = 3.0
    settings.RANKED_WINDOW_GROWTH = 0.5


def account(db: Any = None) -> User:
    return User.objects.create(username=f"q{next(_names)}")


def guest() -> User:
    return User.objects.create(username=f"guest-{next(_names):08x}")


def rated(user: User, queue: str, mu: float, sigma: float = 2.0) -> User:
    Rating.objects.create(
        user=user, queue=queue, mu=mu, sigma=sigma, ordinal=mu - 3 * sigma, games=12
    )
    return user


def wait_longer(seconds: float, **filters: Any) -> None:
    """Make the waiting entries look `seconds` older (the database clock does not stop)."""
    Entry.objects.filter(state=Entry.State.WAITING, **filters).update(
        joined_at=F("joined_at") - timedelta(seconds=seconds)
    )


def match_of(user: User) -> Match:
    entry = Entry.objects.filter(user=user).order_by("-pk").first()
    assert entry is not None and entry.state == Entry.State.MATCHED, entry
    return entry.match


# ---------------------------------------------------------------------------- the window


def test_the_window_widens_with_the_wait() -> None:
    widths = [matchmaking.window(s) for s in (0, 1, 10, 60, 600)]
    assert widths == sorted(widths) and len(set(widths)) == len(widths)
    assert widths[0] == 3.0 and widths[2] == 3.0 + 0.5 * 10


def _waiting(pk: int, ordinal: float, waited: float) -> Waiting:
    from django.utils import timezone

    entry = Entry(pk=pk, user_id=pk, queue="classic-2", ordinal=ordinal)
    entry.joined_at = timezone.now() - timedelta(seconds=waited)
    return Waiting(entry, waited)


def test_groups_pair_the_nearest_ratings_within_the_longest_waiters_window() -> None:
    a, b, c, d = (
        _waiting(1, 0.0, 5),
        _waiting(2, 10.0, 4),
        _waiting(3, 1.0, 3),
        _waiting(4, 11.5, 2),
    )
    pairs = matchmaking.groups([a, b, c, d], 2, ranked=True)
    assert [[w.entry.pk for w in g] for g in pairs] == [[1, 3], [2, 4]]


def test_far_ratings_wait_until_the_window_reaches() -> None:
    near = matchmaking.groups([_waiting(1, 0.0, 0), _waiting(2, 20.0, 0)], 2, ranked=True)
    assert near == []
    # 20 points apart: 3 + 0.5 s >= 20 after 34 s of waiting for the longer waiter.
    later = matchmaking.groups([_waiting(1, 0.0, 34), _waiting(2, 20.0, 1)], 2, ranked=True)
    assert [[w.entry.pk for w in g] for g in later] == [[1, 2]]


def test_a_waiter_who_cannot_fill_a_table_sits_at_a_later_waiters() -> None:
    # a's window (3) reaches only b; b's reaches a, c and d: one table of four.
    a, b, c, d = (_waiting(1, 0.0, 0.02), _waiting(2, 3.0, 0.01), _waiting(3, 5.0, 0.005),
                  _waiting(4, 6.0, 0))  # fmt: skip
    made = matchmaking.groups([a, b, c, d], 4, ranked=True)
    assert [[w.entry.pk for w in g] for g in made] == [[2, 3, 1, 4]]


def test_casual_groups_take_anyone_and_leave_the_rest_for_the_bot(settings: Any) -> None:
    settings.QUICK_MATCH_BOT_AFTER = 10.0
    waiting = [_waiting(i, i * 50.0, 20 - i) for i in range(1, 7)]
    made = matchmaking.groups(waiting, 4, ranked=False)
    assert [[w.entry.pk for w in g] for g in made] == [[1, 2, 3, 4], [5, 6]]
    assert matchmaking.groups(waiting[4:], 4, ranked=False)[0][0].waited >= 10
    fresh = [_waiting(1, 0.0, 3), _waiting(2, 0.0, 2)]
    assert matchmaking.groups(fresh, 4, ranked=False) == []


# ---------------------------------------------------------------------------- joining


def test_two_accounts_are_matched_into_a_clocked_ranked_match(db: Any) -> None:
    a, b = account(), account()
    first = matchmaking.join(user=a, queue="classic-2", ip="10.0.0.1")
    assert first.state == Entry.State.WAITING
    assert matchmaking.status(a)["state"] == "waiting"
    second = matchmaking.join(user=b, queue="classic-2", ip="10.0.0.2")
    assert second.state == Entry.State.MATCHED
    match = match_of(a)
    assert match == match_of(b)
    assert (match.mode, match.ruleset, match.players, match.status) == (
        "ranked",
        "classic",
        2,
        Status.ACTIVE,
    )
    seats = list(match.seats.order_by("corner"))
    assert {s.user_id for s in seats} == {a.pk, b.pk} and not any(s.bot for s in seats)
    assert {str(s.ip) for s in seats} == {"10.0.0.1", "10.0.0.2"}
    assert turn_seconds(match) and match.turn_deadline is not None  # the clock is on
    assert matchmaking.status(a) == matchmaking.status(b) | {"queue": "classic-2"}
    assert matchmaking.status(a)["url"] == f"/r/{match.code}/"
    actions = list(AuditEntry.objects.values_list("action", flat=True))
    assert actions.count("queue.joined") == 2 and "queue.matched" in actions
    assert "match.same_ip" not in actions


def test_each_queue_plays_its_rules(db: Any) -> None:
    for queue, ruleset, players in (("duel", "duel", 2), ("classic-4", "classic", 4)):
        users = [account() for _ in range(players)]
        for user in users:
            matchmaking.join(user=user, queue=queue)
        match = match_of(users[0])
        assert (match.ruleset, match.players, match.mode) == (ruleset, players, "ranked")
        assert turn_seconds(match) == 20 and match.turn_deadline is not None  # clock on
        assert set(match.seats.values_list("user_id", flat=True)) == {u.pk for u in users}


def test_a_guest_is_refused_a_ranked_queue_but_plays_casual(db: Any, settings: Any) -> None:
    g = guest()
    with pytest.raises(QueueError) as refused:
        matchmaking.join(user=g, queue="classic-2", ranked=True)
    assert refused.value.code == "forbidden" and "accounts" in refused.value.message
    assert not Entry.objects.exists()
    settings.QUICK_MATCH_BOT_AFTER = 0.0
    matchmaking.join(user=g, queue="classic-2", ranked=False)
    match = match_of(g)
    assert match.mode == "friendly" and match.status == Status.ACTIVE


def test_an_unknown_queue_is_refused(db: Any) -> None:
    with pytest.raises(QueueError) as refused:
        matchmaking.join(user=account(), queue="party-3")
    assert refused.value.code == "bad_request" and "classic-2" in refused.value.message


def test_cancel_leaves_the_queue(db: Any) -> None:
    a, b = account(), account()
    matchmaking.join(user=a, queue="duel")
    entry = matchmaking.cancel(user=a)
    assert entry is not None and entry.state == Entry.State.CANCELLED
    assert matchmaking.status(a) == {"state": "idle"}
    matchmaking.join(user=b, queue="duel")
    assert matchmaking.status(b)["state"] == "waiting"  # a is gone: nobody to meet
    assert AuditEntry.objects.filter(action="queue.left", actor_id=a.pk).count() == 1
    assert matchmaking.cancel(user=a) is not None  # nothing waiting: the last entry, no error


def test_an_account_is_never_matched_against_itself(db: Any) -> None:
    a = account()
    matchmaking.join(user=a, queue="classic-2")
    matchmaking.join(user=a, queue="classic-2")  # a second tab
    assert Entry.objects.filter(user=a, state=Entry.State.WAITING).count() == 1
    wait_longer(3600)
    assert matchmaking.sweep_all() == 0
    assert not Match.objects.exists()


def test_joining_another_queue_leaves_the_first(db: Any) -> None:
    a, b = account(), account()
    matchmaking.join(user=a, queue="classic-2")
    matchmaking.join(user=a, queue="duel")
    matchmaking.join(user=b, queue="classic-2")
    assert matchmaking.status(b)["state"] == "waiting"
    assert Entry.objects.get(user=a, state=Entry.State.WAITING).queue == "duel"


def test_ratings_far_apart_meet_once_the_window_has_widened(db: Any) -> None:
    low = rated(account(), "classic-2", mu=20.0)  # ordinal 14
    high = rated(account(), "classic-2", mu=40.0)  # ordinal 34
    near = rated(account(), "classic-2", mu=41.0)  # ordinal 35
    matchmaking.join(user=low, queue="classic-2")
    matchmaking.join(user=high, queue="classic-2")
    assert matchmaking.status(low)["state"] == matchmaking.status(high)["state"] == "waiting"
    # The window widens by half a point a second of real time: up to two seconds of a busy
    # machine between the join and the reading are allowed for.
    assert 3.0 <= matchmaking.status(low)["window"] <= 4.0
    wait_longer(20)
    assert 13.0 <= matchmaking.status(low)["window"] <= 14.0
    assert matchmaking.sweep_all() == 0  # 20 apart, the window is 13
    matchmaking.join(user=near, queue="classic-2")  # one point from high: matched at once
    assert set(match_of(near).seats.values_list("user_id", flat=True)) == {high.pk, near.pk}
    other = account()
    matchmaking.join(user=other, queue="classic-2")  # ordinal 0: 14 below low
    wait_longer(15, user=low)  # low has waited 35 s now: window 20.5
    assert matchmaking.sweep_all() == 1
    assert set(match_of(low).seats.values_list("user_id", flat=True)) == {low.pk, other.pk}


def test_the_start_rating_is_used_for_new_players(db: Any) -> None:
    entry = matchmaking.join(user=account(), queue="duel")
    assert entry.ordinal == pytest.approx(MU - 3 * SIGMA)


def test_a_player_in_a_ranked_match_cannot_queue_again(db: Any) -> None:
    a, b, c = account(), account(), account()
    matchmaking.join(user=a, queue="classic-2")
    matchmaking.join(user=b, queue="classic-2")
    match = match_of(a)
    with pytest.raises(QueueError) as refused:
        matchmaking.join(user=a, queue="duel")
    assert refused.value.code == "ranked_busy" and match.code in refused.value.message
    # Casual play is still open to them.
    matchmaking.join(user=a, queue="duel", ranked=False)
    services.match_resign(match_id=match.pk, user=b)
    matchmaking.cancel(user=a)
    matchmaking.join(user=a, queue="duel")  # the match is over: free again
    matchmaking.join(user=c, queue="duel")
    assert match_of(a) == match_of(c)


def test_a_busy_player_left_waiting_is_dropped_not_matched_twice(db: Any) -> None:
    a, b, c = account(), account(), account()
    host = services.match_create(ruleset="duel", players=2, mode="ranked", host=a, paired=[a])
    # a entered the queue before taking a seat some other way (the API): the sweep must not
    # put them in a second ranked match.
    Entry.objects.create(user=a, queue="classic-2", ordinal=0.0)
    matchmaking.join(user=b, queue="classic-2")
    assert Seat.objects.filter(user=a).count() == 1
    assert Entry.objects.get(user=a).state == Entry.State.CANCELLED
    matchmaking.join(user=c, queue="classic-2")
    assert match_of(b) == match_of(c) != host


def test_same_address_on_two_sides_is_recorded_not_blocked(db: Any) -> None:
    a, b = account(), account()
    matchmaking.join(user=a, queue="duel", ip="192.0.2.7")
    matchmaking.join(user=b, queue="duel", ip="192.0.2.7")
    match = match_of(a)
    assert match.status == Status.ACTIVE
    entry = AuditEntry.objects.get(action="match.same_ip")
    assert entry.object_id == str(match.pk) and entry.ip == "192.0.2.7"
    assert sorted(entry.extra_data["users"]) == sorted([a.pk, b.pk])
    assert set(map(str, match.seats.values_list("ip", flat=True))) == {"192.0.2.7"}


# ---------------------------------------------------------------------------- casual


def test_casual_quick_match_pairs_people_first(db: Any) -> None:
    a, b = guest(), account()
    matchmaking.join(user=a, queue="classic-2", ranked=False)
    matchmaking.join(user=b, queue="classic-2", ranked=False)
    match = match_of(a)
    assert match.mode == "friendly" and match == match_of(b)
    assert not match.seats.filter(bot__isnull=False).exists()


def test_a_labelled_bot_steps_in_when_nobody_is_free(db: Any, settings: Any) -> None:
    settings.QUICK_MATCH_BOT_AFTER = 10.0
    a, b = account(), account()
    matchmaking.join(user=a, queue="classic-4", ranked=False)
    matchmaking.join(user=b, queue="classic-4", ranked=False)
    assert matchmaking.status(a)["state"] == "waiting"
    assert matchmaking.status(a)["bot_after"] == 10.0
    wait_longer(11)
    assert tasks.sweep_queues() == 1  # the Celery task is the same sweep
    match = match_of(a)
    assert match == match_of(b) and match.mode == "friendly" and match.status == Status.ACTIVE
    seats = list(match.seats.order_by("corner"))
    assert [s.user_id for s in seats[:2]] == [a.pk, b.pk]
    assert [s.bot for s in seats[2:]] == [matchmaking.bot_level()] * 2


def test_ranked_queues_never_call_a_bot(db: Any, settings: Any) -> None:
    settings.QUICK_MATCH_BOT_AFTER = 0.0
    a = account()
    matchmaking.join(user=a, queue="classic-2")
    wait_longer(3600)
    matchmaking.sweep_all()
    assert matchmaking.status(a)["state"] == "waiting" and not Match.objects.exists()


# ---------------------------------------------------------------------------- the services


def ranked(
    host: User, ruleset: str = "duel", players: int = 2, also: tuple[User, ...] = (), **kw: Any
) -> Match:
    """A ranked match as matchmaking makes it: `host` and `also` paired."""
    return services.match_create(
        ruleset=ruleset, players=players, mode="ranked", host=host, paired=[host, *also], **kw
    )


def test_services_refuse_a_bot_in_a_ranked_match(db: Any) -> None:
    with pytest.raises(ServiceError) as refused:
        ranked(account(), bots={2: "easy"})
    assert refused.value.code == "ranked_no_bots"
    match = ranked(account(), ruleset="classic", players=4)
    with pytest.raises(ServiceError) as refused:
        services.match_start(match_id=match.pk, bots_for_empty="easy")
    assert refused.value.code == "ranked_no_bots"


def test_services_refuse_a_second_seat_and_a_second_ranked_match(db: Any) -> None:
    a, b = account(), account()
    match = ranked(a, ruleset="classic", players=4)
    with pytest.raises(ServiceError) as refused:
        services.match_join(code=match.code, user=a)  # a second tab, the same match
    assert refused.value.code == "already_seated"
    with pytest.raises(ServiceError) as refused:
        ranked(a)  # a second ranked match while the first waits
    assert refused.value.code == "ranked_busy"
    other = ranked(b, also=(a,))
    with pytest.raises(ServiceError) as refused:
        services.match_join(code=other.code, user=a)
    assert refused.value.code == "ranked_busy"
    assert Seat.objects.filter(user=a).count() == 1
    # Friendly rooms are not limited.
    friendly = services.match_create(ruleset="classic", players=2, mode="friendly", host=a)
    assert friendly.seats.filter(user=a).exists()


def test_services_refuse_a_guest_in_a_ranked_match(db: Any) -> None:
    g = guest()
    with pytest.raises(ServiceError) as refused:
        ranked(g)
    assert refused.value.code == "forbidden"
    match = ranked(account(), also=(g,))
    with pytest.raises(ServiceError) as refused:
        services.match_join(code=match.code, user=g)
    assert refused.value.code == "forbidden"
    assert not Seat.objects.filter(user=g).exists()


def test_a_player_who_left_a_four_player_match_may_play_again(db: Any) -> None:
    users = [account() for _ in range(4)]
    for user in users:
        matchmaking.join(user=user, queue="classic-4")
    match = match_of(users[0])
    services.match_resign(match_id=match.pk, user=users[0])
    match.refresh_from_db()
    assert match.status == Status.ACTIVE  # three play on
    again = ranked(users[0])
    assert again.seats.filter(user=users[0]).exists()


def test_services_refuse_an_undo_in_a_matched_ranked_match(db: Any) -> None:
    a, b = account(), account()
    matchmaking.join(user=a, queue="duel")
    matchmaking.join(user=b, queue="duel")
    match = match_of(a)
    first = next(s.user for s in match.seats.select_related("user") if s.corner == match.first)
    services.match_roll(match_id=match.pk, user=first, seq=match.seq, action_id="r1")
    with pytest.raises(ServiceError) as refused:
        services.match_undo(match_id=match.pk, user=first)
    assert refused.value.code == "no_undo"
