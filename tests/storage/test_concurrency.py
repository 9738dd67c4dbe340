"""Two requests at once on one match (PostgreSQL, real transactions and row locks): exactly one
is applied, the other gets a clear error, and nothing is half-written."""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable
from typing import Any

import pytest
from django.conf import settings
from django.db import connection, connections, transaction

from audit import chain
from audit.models import AuditEntry
from audit.services import CHAIN_LOCK_KEY, record
from games import services
from games.match.errors import ServiceError
from games.match.replay import replay_snapshot
from games.match.verify import verify_match
from games.models import Match, MatchEvent, Move, Roll

from .driver import current, local_match, step

pytestmark = [
    pytest.mark.skipif(
        "postgresql" not in settings.DATABASES["default"]["ENGINE"],
        reason="row locks and concurrent transactions need PostgreSQL; SQLite runs one "
        "writer at a time",
    ),
    pytest.mark.django_db(transaction=True),
]


HOLD_MATCHES = "SELECT id FROM games_match FOR UPDATE"
HOLD_AUDIT_CHAIN = f"SELECT pg_advisory_xact_lock({CHAIN_LOCK_KEY})"


def at_the_same_time(*calls: Callable[[], Any], hold: str = HOLD_MATCHES) -> list[Any]:
    """Run the calls in threads that all wait on a lock, then release them together.

    The main thread holds the lock (every match row, by default) until every thread is
    blocked on it, so the calls really do overlap inside the database."""
    results: list[Any] = [None] * len(calls)

    def run(i: int, call: Callable[[], Any]) -> None:
        try:
            results[i] = call()
        except Exception as exc:  # noqa: BLE001 - the test looks at it
            results[i] = exc
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run, args=(i, c)) for i, c in enumerate(calls)]
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(hold)
        for t in threads:
            t.start()
        deadline = time.monotonic() + 20
        while True:
            # Activity statistics are a snapshot per transaction: clear it to look again.
            cursor.execute("SELECT pg_stat_clear_snapshot()")
            cursor.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                "AND wait_event_type = 'Lock'"
            )
            if cursor.fetchone()[0] >= len(calls):
                break
            assert time.monotonic() < deadline, f"the calls never queued: {results}"
            time.sleep(0.01)
    for t in threads:
        t.join(30)
    return results


def match_in_move_phase(host) -> Match:
    """A local classic match where the player to act has at least two legal moves."""
    rng = random.Random("concurrency")
    match = local_match(("classic", [], [], 2), host, first=0)
    for n in range(2000):
        match = current(match)
        state = match.state()
        if state.phase == "move" and len(state.legal) >= 2:
            return match
        step(match, rng, n)
    raise AssertionError("no position with two legal moves")


def rows(match: Match) -> tuple[int, int, int, int]:
    return (
        Roll.objects.filter(match=match).count(),
        Move.objects.filter(match=match).count(),
        MatchEvent.objects.filter(match=match).count(),
        current(match).seq,
    )


def assert_whole(match: Match) -> None:
    match = current(match)
    events = list(MatchEvent.objects.filter(match=match).values_list("seq", flat=True))
    assert events == list(range(1, match.seq + 1))
    assert match.snapshot == replay_snapshot(match)
    report = verify_match(match)
    assert report.ok, report.line


def test_two_different_moves_at_once(host) -> None:
    match = match_in_move_phase(host)
    state = match.state()
    a, b = state.legal[0], state.legal[1]
    before = rows(match)

    def mover(m, action_id):
        return lambda: services.match_move(
            match_id=match.pk,
            corner=state.to_play,
            seq=match.seq,
            action_id=action_id,
            pawn=m.pawn,
            pawn_corner=m.corner,
        )

    results = at_the_same_time(mover(a, "a"), mover(b, "b"))
    applied = [r for r in results if isinstance(r, services.ActionResult)]
    refused = [r for r in results if isinstance(r, ServiceError)]
    assert len(applied) == 1 and len(refused) == 1, results
    assert refused[0].code == "stale"
    after = rows(match)
    assert after[1] == before[1] + 1  # exactly one move row
    assert after[3] == applied[0].seq
    assert_whole(match)


def test_the_same_move_twice_at_once(host) -> None:
    match = match_in_move_phase(host)
    state = match.state()
    m = state.legal[0]
    before = rows(match)

    def mover(action_id):
        return lambda: services.match_move(
            match_id=match.pk,
            corner=state.to_play,
            seq=match.seq,
            action_id=action_id,
            pawn=m.pawn,
            pawn_corner=m.corner,
        )

    # Two clicks (two action ids): one move, one stale.
    results = at_the_same_time(mover("click-1"), mover("click-2"))
    assert sorted(type(r).__name__ for r in results) == ["ActionResult", "ServiceError"]
    assert next(r for r in results if isinstance(r, ServiceError)).code == "stale"
    assert rows(match)[1] == before[1] + 1
    assert_whole(match)


def test_one_action_sent_twice_at_once_is_answered_once(host) -> None:
    match = match_in_move_phase(host)
    state = match.state()
    m = state.legal[0]
    before = rows(match)

    def mover():
        return services.match_move(
            match_id=match.pk,
            corner=state.to_play,
            seq=match.seq,
            action_id="retry",
            pawn=m.pawn,
            pawn_corner=m.corner,
        )

    first, second = at_the_same_time(mover, mover)
    assert isinstance(first, services.ActionResult) and isinstance(second, services.ActionResult)
    assert sorted([first.repeated, second.repeated]) == [False, True]
    assert first.events == second.events
    assert rows(match)[1] == before[1] + 1
    assert_whole(match)


def test_a_roll_and_a_resign_at_once(host) -> None:
    match = local_match(("classic", [], [], 2), host, first=0)
    match = current(match)
    results = at_the_same_time(
        lambda: services.match_roll(match_id=match.pk, corner=0, seq=match.seq, action_id="r"),
        lambda: services.match_resign(match_id=match.pk, user=host, corner=2),
    )
    errors = [r for r in results if isinstance(r, Exception)]
    # Either order is valid; whichever came second saw the other's change.
    assert all(isinstance(e, ServiceError) and e.code in ("stale", "over") for e in errors)
    assert_whole(match)


def test_concurrent_audit_writers_keep_one_chain(make_user) -> None:
    user = make_user()

    def writer(tag: str) -> Callable[[], None]:
        def write() -> None:
            for i in range(10):
                record(action="admin.action", actor=user, extra={"by": tag, "i": i})

        return write

    assert at_the_same_time(writer("a"), writer("b"), hold=HOLD_AUDIT_CHAIN) == [None, None]
    assert AuditEntry.objects.count() == 20
    assert chain.verify() is None
