"""Presence through the services and the clock sweep: the disconnect grace (forfeit in classic
and duel, the computer playing in mensch and party), reconnecting inside it, and party's
"leaving puts a bot in the seat".

Durations are the rules' times LUDO_TIME_SCALE: the grace is measured by the database clock
when the sweep runs, so a test starts at scale 1 (nothing due) and shrinks it to make it due.
"""

from __future__ import annotations

import time
from datetime import timedelta
from typing import Any

import pytest
from django.db import connection
from django.utils import timezone

from accounts.models import User
from audit import actions
from audit.models import AuditEntry
from games import services
from games.clocks import sweeps as clock
from games.live import presence
from games.match.devices import seat_agent
from games.match.selectors import snapshot_for
from games.match.verify import verify_match
from games.models import Match, MatchEvent, Roll, Seat, Status

from .conftest import locked_elsewhere, two_player

SCALE = 0.001  # the 60 s grace is 60 ms, mensch's 45 s wait 45 ms


@pytest.fixture(autouse=True)
def slow_clocks(settings: Any) -> None:
    settings.LUDO_TIME_SCALE = 1  # 20 s turns: only the grace runs out in these tests
    settings.LUDO_BOT_DELAY = 0.0


@pytest.fixture
def players(db: None) -> tuple[User, User]:
    return User.objects.create(username="ann"), User.objects.create(username="ben")


def seat(match: Match, corner: int) -> Seat:
    return Seat.objects.get(match=match, corner=corner)


def kinds(match: Match) -> list[str]:
    return list(
        MatchEvent.objects.filter(match=match).order_by("seq").values_list("kind", flat=True)
    )


def arrive(match: Match, user: User) -> None:
    presence.seat_connected(match_id=match.pk, user=user)


def go(match: Match, user: User) -> None:
    presence.seat_disconnected(match_id=match.pk, user=user)


def run_out(settings: Any, wait: float = 0.08) -> int:
    """Let a shortened grace run out and sweep once."""
    settings.LUDO_TIME_SCALE = SCALE
    time.sleep(wait)
    return clock.sweep()


def play_out(match: Match, limit: int = 5000) -> Match:
    """Sweep until the match is over (every seat played by the server)."""
    for _ in range(limit):
        clock.sweep()
        match.refresh_from_db()
        if match.status != Status.ACTIVE:
            return match
    raise AssertionError("the match did not end")


# ---------------------------------------------------------------------------- the grace


@pytest.mark.parametrize("ruleset", ["classic", "duel"])
def test_grace_runs_out_then_forfeit(
    players: tuple[User, User], settings: Any, ruleset: str
) -> None:
    ann, ben = players
    match = two_player(ann, ben, ruleset)
    arrive(match, ben)
    go(match, ben)
    gone = seat(match, 2)
    assert not gone.connected and gone.disconnected_at is not None and not gone.away
    assert clock.sweep() == 0  # 60 s of grace left
    assert run_out(settings) == 1
    match.refresh_from_db()
    assert match.status == Status.FINISHED
    assert list(match.state().placings) == [0, 2]
    leave = MatchEvent.objects.get(match=match, kind="leave")
    assert leave.data == {"corner": 2, "reason": "disconnected", "forfeit": True}
    entry = AuditEntry.objects.get(action="match.forfeited")
    assert entry.extra_data == {"corner": 2, "reason": "disconnected"}
    assert entry.actor_id == ben.pk
    assert clock.sweep() == 0  # acted on once
    report = verify_match(match)
    assert report.ok, report.line


def test_back_inside_the_grace_keeps_the_seat(players: tuple[User, User], settings: Any) -> None:
    ann, ben = players
    match = two_player(ann, ben)
    arrive(match, ben)
    go(match, ben)
    arrive(match, ben)
    back = seat(match, 2)
    assert back.connected and back.disconnected_at is None
    assert run_out(settings) == 0
    assert "leave" not in kinds(match)
    assert Match.objects.get(pk=match.pk).status == Status.ACTIVE


def test_the_grace_counts_from_the_start(players: tuple[User, User], settings: Any) -> None:
    """A host who closed the waiting room long ago is not forfeited the moment it starts."""
    ann, ben = players
    match = services.match_create(ruleset="classic", players=2, mode="friendly", host=ann)
    arrive(match, ann)
    go(match, ann)
    Seat.objects.filter(match=match, corner=0).update(
        disconnected_at=seat(match, 0).disconnected_at - timedelta(hours=1)
    )
    services.match_join(code=match.code, user=ben)
    assert clock.sweep() == 0
    assert run_out(settings) == 1  # once the grace has run from the start
    assert "leave" in kinds(match)


def test_two_tabs_the_grace_starts_when_the_last_closes(
    players: tuple[User, User], settings: Any
) -> None:
    ann, ben = players
    match = two_player(ann, ben)
    arrive(match, ben)
    arrive(match, ben)
    go(match, ben)
    assert seat(match, 2).connected and seat(match, 2).disconnected_at is None
    assert run_out(settings) == 0
    go(match, ben)
    assert not seat(match, 2).connected
    # Each change of the seat is in the audit log, for dispute timelines; tabs are not.
    audited = AuditEntry.objects.filter(action__startswith="seat.", actor=ben).order_by("id")
    assert [(e.action, e.extra_data) for e in audited] == [
        ("seat.connected", {"corner": 2}),
        ("seat.disconnected", {"corner": 2}),
    ]
    assert run_out(settings) == 1


def test_local_play_has_no_grace(players: tuple[User, User], settings: Any) -> None:
    ann, _ = players
    match = services.match_create(ruleset="classic", players=2, mode="local", host=ann)
    arrive(match, ann)
    go(match, ann)
    assert run_out(settings) == 0
    assert services.seat_grace_expired(match_id=match.pk, corner=0) is None


def test_the_service_does_not_trust_the_sweep(players: tuple[User, User]) -> None:
    """Called early, or for a seat that is connected, it changes nothing."""
    ann, ben = players
    match = two_player(ann, ben)
    arrive(match, ben)
    assert services.seat_grace_expired(match_id=match.pk, corner=2) is None  # connected
    go(match, ben)
    assert services.seat_grace_expired(match_id=match.pk, corner=2) is None  # 60 s to go
    assert services.seat_grace_expired(match_id=match.pk, corner=1) is None  # no seat
    assert "leave" not in kinds(match)


# ---------------------------------------------------------------------------- away


def test_mensch_the_computer_plays_until_they_are_back(
    players: tuple[User, User], settings: Any
) -> None:
    ann, ben = players
    match = two_player(ann, ben, "mensch")
    arrive(match, ann)
    go(match, ann)  # ann is to play
    assert clock.sweep() == 0  # a 45 s wait
    assert run_out(settings, 0.06) >= 1
    settings.LUDO_TIME_SCALE = 1  # Ben's own turns keep their 20 s
    away = seat(match, 0)
    assert away.away and not away.left
    match.refresh_from_db()
    assert [s["away"] for s in snapshot_for(match)["seats"]] == [True, False]
    # The computer's step is the match's next deadline, at a bot's pace.
    assert match.turn_deadline is not None
    for _ in range(5):
        clock.sweep()
    rolls = Roll.objects.filter(match=match, corner=0)
    assert rolls.exists() and set(rolls.values_list("by", flat=True)) == {"bot"}
    assert seat(match, 0).missed_turns == 0
    assert "leave" not in kinds(match) and "timeout" not in kinds(match)
    arrive(match, ann)
    back = seat(match, 0)
    assert back.connected and not back.away and back.disconnected_at is None
    match.refresh_from_db()
    state = match.state()
    lone = state.phase == "move" and len(state.legal) == 1
    if state.to_play == 0 and not lone:  # her own clock again, not the computer's pause
        assert match.turn_deadline > timezone.now() + timedelta(seconds=10)


def test_the_hand_over_is_a_numbered_event_and_audited(
    players: tuple[User, User], settings: Any
) -> None:
    """The computer taking the seat is stored: an "away" event in the stream (so the room and
    a dispute's timeline show it) and a seat.away audit entry; the match still verifies."""
    ann, ben = players
    match = two_player(ann, ben, "mensch")
    arrive(match, ben)
    go(match, ben)
    before = Match.objects.get(pk=match.pk).seq
    assert run_out(settings, 0.06) == 1
    settings.LUDO_TIME_SCALE = 1
    match.refresh_from_db()
    away = MatchEvent.objects.get(match=match, kind="away")
    assert away.seq == match.seq == before + 1
    assert away.data == {"corner": 2, "reason": "disconnected"}
    entry = AuditEntry.objects.get(action=actions.SEAT_AWAY)
    assert entry.object_id == str(match.pk) and entry.actor_id == ben.pk
    assert entry.extra_data == {"corner": 2, "reason": "disconnected"}
    report = verify_match(match)
    assert report.ok, report.line


def test_away_of_a_seat_not_to_play_leaves_the_clock_alone(
    players: tuple[User, User], settings: Any
) -> None:
    ann, ben = players
    match = two_player(ann, ben, "mensch")  # ann to play
    deadline = match.turn_deadline
    arrive(match, ben)
    go(match, ben)
    assert run_out(settings, 0.06) == 1
    assert seat(match, 2).away
    match.refresh_from_db()
    assert match.turn_deadline == deadline  # ann's 20 s are not dealt again
    settings.LUDO_TIME_SCALE = 1
    arrive(match, ben)
    match.refresh_from_db()
    assert not seat(match, 2).away and match.turn_deadline == deadline


def test_party_the_bot_plays_at_once_for_a_disconnected_player(
    players: tuple[User, User], settings: Any
) -> None:
    ann, ben = players
    match = two_player(ann, ben, "party")
    arrive(match, ann)
    go(match, ann)
    assert clock.sweep() >= 1  # no grace in party
    assert seat(match, 0).away
    clock.sweep()
    assert Roll.objects.filter(match=match, corner=0, by="bot").exists()


def test_acting_in_an_away_seat_takes_it_back(players: tuple[User, User]) -> None:
    ann, ben = players
    match = two_player(ann, ben, "party")
    Seat.objects.filter(match=match, corner=0).update(away=True)
    services.match_roll(match_id=match.pk, user=ann, seq=match.seq, action_id="a1")
    assert not seat(match, 0).away
    assert Roll.objects.get(match=match, corner=0).by == "player"


# ---------------------------------------------------------------------------- party: leaving


def test_party_leaving_puts_a_bot_in_the_seat_to_the_end(players: tuple[User, User]) -> None:
    ann, ben = players
    match = two_player(ann, ben, "party")
    result = services.match_resign(match_id=match.pk, user=ann)
    assert [e["kind"] for e in result.events] == ["bot_took_seat"]
    assert result.events[0] == {
        "kind": "bot_took_seat",
        "seq": match.seq + 1,
        "corner": 0,
        "bot": services.DEFAULT_BOT_LEVEL,
        "reason": "resigned",
    }
    left = seat(match, 0)
    assert left.away and not left.left and left.user_id == ann.pk
    entry = AuditEntry.objects.get(action="match.bot_took_seat")
    assert entry.actor_id == ann.pk and entry.extra_data["corner"] == 0
    shown = result.snapshot["seats"][0]
    assert shown["away"] and shown["name"] == "ann" and not shown["left"]
    match.refresh_from_db()
    assert match.status == Status.ACTIVE and match.state().out == ()
    with pytest.raises(services.ServiceError) as refused:
        services.match_resign(match_id=match.pk, user=ann)
    assert refused.value.code == "bad_request"
    # Ben leaves too: both seats are played by the bot, the match goes on to its end.
    services.match_resign(match_id=match.pk, user=ben)
    match = play_out(match)
    assert match.status == Status.FINISHED
    assert sorted(list(match.state().placings)) == [0, 2]
    assert "leave" not in kinds(match)
    moves_by = set(match.moves.values_list("by", flat=True))
    assert moves_by <= {"bot", "auto"} and "bot" in moves_by
    report = verify_match(match)  # the stream replays: the bot steps are ordinary rows
    assert report.ok, report.line


def test_party_leaver_comes_back_by_opening_the_room(players: tuple[User, User]) -> None:
    ann, ben = players
    match = two_player(ann, ben, "party")
    arrive(match, ann)
    services.match_resign(match_id=match.pk, user=ann)
    assert seat(match, 0).away
    arrive(match, ann)  # another socket: a reload
    assert not seat(match, 0).away


def test_ranked_party_leaving_is_a_forfeit(players: tuple[User, User]) -> None:
    """Ranked matches never seat a bot: leaving takes the player out."""
    ann, ben = players
    match = services.match_create(
        ruleset="party", players=2, mode="ranked", host=ann, paired=[ann, ben]
    )
    services.match_join(code=match.code, user=ben)
    result = services.match_resign(match_id=match.pk, user=ann)
    assert result.events[0]["kind"] == "leave"
    assert seat(match, 0).left and not seat(match, 0).away
    assert Match.objects.get(pk=match.pk).status == Status.FINISHED


def test_party_practice_ending_the_game_is_a_plain_resign(players: tuple[User, User]) -> None:
    """Practice is a person against bots: "End game" ends it, no bot takes the seat."""
    ann, _ = players
    match = services.match_create(
        ruleset="party", players=2, mode="practice", host=ann, bots=[2], first=0
    )
    result = services.match_resign(match_id=match.pk, user=ann)
    assert result.events[0]["kind"] == "leave" and seat(match, 0).left
    assert Match.objects.get(pk=match.pk).status == Status.FINISHED


def test_classic_resign_is_unchanged(players: tuple[User, User]) -> None:
    ann, ben = players
    match = two_player(ann, ben)
    result = services.match_resign(match_id=match.pk, user=ann)
    assert result.events[0]["kind"] == "leave" and seat(match, 0).left


# ---------------------------------------------------------------------------- concurrency


@pytest.mark.django_db(transaction=True)
def test_a_locked_match_is_skipped_by_the_grace_sweep(settings: Any) -> None:
    if connection.vendor != "postgresql":
        pytest.skip("SKIP LOCKED needs PostgreSQL (SQLite has no row locks)")
    ann, ben = User.objects.create(username="ann"), User.objects.create(username="ben")
    match = two_player(ann, ben)
    arrive(match, ben)
    go(match, ben)
    settings.LUDO_TIME_SCALE = SCALE
    time.sleep(0.08)
    with locked_elsewhere(match) as holder:
        assert clock.sweep_grace(batch=10) == 0
        assert holder.is_alive(), "the sweep waited for the lock instead of skipping the match"
    assert clock.sweep_grace(batch=10) == 1


def test_socket_counts_are_shared_through_redis(settings: Any) -> None:
    """With Redis, every server process counts a player's sockets in one place."""
    url = getattr(settings, "REDIS_URL", None)
    if not url:
        pytest.skip("needs REDIS_URL")
    prefix = f"test-{time.monotonic_ns()}"
    first = presence.RedisStore(url, prefix, process="one")
    second = presence.RedisStore(url, prefix, process="two")  # another process
    try:
        assert first.opened(7, 1) == 1
        assert second.opened(7, 1) == 2
        assert first.closed(7, 1) == 1
        assert second.count(7, 1) == 1
        assert second.closed(7, 1) == 0
        assert first.count(7, 1) == 0
        assert first.client.ttl(first._key(7, 1)) == -2  # nothing left behind
    finally:
        first.client.delete(first._key(7, 1), first._alive("one"), first._alive("two"))


def test_opening_a_seat_already_connected_is_one_read(
    players: tuple[User, User], django_assert_num_queries: Any
) -> None:
    """A second tab (or a socket reopened before its close was marked) changes nothing: one
    read, no lock, no transaction, no audit entry. The first connection, and one from another
    browser, still take the locked path and are audited."""
    ann, ben = players
    match = two_player(ann, ben)
    agent = b"Mozilla/5.0 (X11; Linux x86_64) Firefox/128.0"
    services.seat_set_connected(match_id=match.pk, user=ann, connected=True, user_agent=agent)
    audited = AuditEntry.objects.filter(action=actions.SEAT_CONNECTED).count()
    assert audited == 1
    with django_assert_num_queries(1):
        services.seat_set_connected(match_id=match.pk, user=ann, connected=True, user_agent=agent)
    with django_assert_num_queries(1):
        services.seat_set_connected(match_id=match.pk, user=ann, connected=True)
    assert AuditEntry.objects.filter(action=actions.SEAT_CONNECTED).count() == audited
    other = b"Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) Safari/604.1"
    services.seat_set_connected(match_id=match.pk, user=ann, connected=True, user_agent=other)
    assert Seat.objects.get(match=match, corner=0).user_agent == seat_agent(other)["user_agent"]
    services.seat_set_connected(match_id=match.pk, user=ann, connected=False)
    services.seat_set_connected(match_id=match.pk, user=ann, connected=True, user_agent=other)
    assert AuditEntry.objects.filter(action=actions.SEAT_CONNECTED).count() == audited + 1
    assert verify_match(match).ok
