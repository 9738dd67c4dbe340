"""Fenced writes (issue 27): an action read without a lock and written in one statement that
checks the match's revision. Two would-be writers of one revision: exactly one writes. A
batch from many rooms commits, or fails and is retried, as its rows say. A match kept in
memory by its writer equals a fresh read from the database after every action, over random
games of every preset. PostgreSQL only (SQLite always takes the locked path)."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from django.db import connection, connections
from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from audit.clock import db_now
from games import services
from games.match.selectors import snapshot_for, view_of
from games.match.verify import verify_match
from games.models import Match, MatchEvent, Roll, Seat, Status
from games.services import fenced
from games.services.change import Change

from .driver import current, local_match

pytestmark = [
    pytest.mark.skipif(connection.vendor != "postgresql", reason="fenced writes are PostgreSQL's"),
]


def rolled(match_id: int, *, action_id: str) -> Change:
    """The match read by `fenced.load` and the roll of its player to act applied in memory."""
    match = fenced.load(match_id)
    change = fenced.begin_loaded(match)
    assert change.state is not None and change.state.phase == "roll"
    change.dice_roll(change.seat_to_play(), by="player", action_id=action_id)
    return change


@pytest.mark.django_db
def test_a_roll_through_the_service_takes_the_fenced_path(host) -> None:
    match = current(local_match(("classic", [], [], 4), host))
    before = match.revision
    sent: list[str] = []

    def count(execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
        sent.append(sql.lstrip().split(None, 1)[0].upper())
        return execute(sql, params, many, context)

    corner = match.state().to_play
    with connection.execute_wrapper(count):
        result = services.match_roll(
            match_id=match.pk, corner=corner, seq=match.seq, action_id="f1"
        )
    # The read, and the one write (in a savepoint here: the test runs in a transaction).
    assert [v for v in sent if v not in ("SAVEPOINT", "RELEASE")] == ["SELECT", "WITH"]
    stored = current(match)
    assert stored.revision == before + 1 and stored.seq == result.seq
    assert Roll.objects.filter(match=match, action_id="f1").count() == 1
    # The same id again is answered as before, nothing written twice.
    again = services.match_roll(match_id=match.pk, corner=corner, seq=match.seq, action_id="f1")
    assert again.repeated and Roll.objects.filter(match=match).count() == 1


@pytest.mark.django_db(transaction=True)
def test_two_would_be_writers_of_one_revision_exactly_one_writes(host) -> None:
    """Both read the match at the same revision (each on its own connection), both apply a
    roll in memory, then both write at once: one statement finds the row, the other none."""
    match = current(local_match(("classic", [], [], 4), host))
    start = match.revision
    changes = [rolled(match.pk, action_id=f"w{n}") for n in range(2)]
    assert {c.match.revision for c in changes} == {start}
    barrier = threading.Barrier(2, timeout=60)
    won: list[bool] = []
    failed: list[BaseException] = []

    def writer(change: Change) -> None:
        try:
            barrier.wait()
            won.append(fenced.write(change))
        except BaseException as e:  # noqa: BLE001 - reported below
            failed.append(e)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=writer, args=(c,)) for c in changes]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not failed, failed
    assert sorted(won) == [False, True]
    stored = current(match)
    assert stored.revision == start + 1
    assert Roll.objects.filter(match=match).count() == 1
    rolls = list(Roll.objects.filter(match=match).values_list("action_id", flat=True))
    assert rolls in (["w0"], ["w1"])
    assert verify_match(stored).ok


@pytest.mark.django_db
def test_a_batch_from_many_rooms_commits_as_its_rows_say(host) -> None:
    matches = [current(local_match(("classic", [], [], 4), host)) for _ in range(5)]
    changes = [rolled(m.pk, action_id="b1") for m in matches]
    # Room 3 moves on before the batch (another writer): its change has lost its fence.
    room = matches[3]
    services.match_roll(match_id=room.pk, corner=room.state().to_play, seq=room.seq, action_id="x")
    outcomes = fenced.commit_batch(changes)
    assert [(o.written, o.why, o.batched) for o in outcomes] == [
        (True, "", True),
        (True, "", True),
        (True, "", True),
        (False, "fenced", True),
        (True, "", True),
    ]
    for m, o in zip(matches, outcomes, strict=True):
        stored = current(m)
        ours = Roll.objects.filter(match=m, action_id="b1").count()
        assert ours == (1 if o.written else 0)
        assert stored.seq == MatchEvent.objects.filter(match=m).count()
        assert verify_match(stored).ok


@pytest.mark.django_db
def test_a_failing_batch_is_retried_change_by_change(host) -> None:
    """One change of the batch breaks a constraint (its first event numbered as an event
    already stored): the whole batch rolls back, then each change is written on its own;
    only that one fails, and nothing of it is stored."""
    matches = [current(local_match(("classic", [], [], 4), host)) for _ in range(3)]
    changes = [rolled(m.pk, action_id="c1") for m in matches]
    changes[1].events[0].seq = 1  # the "started" event's number: a unique violation
    outcomes = fenced.commit_batch(changes)
    assert [(o.written, o.why, o.batched) for o in outcomes] == [
        (True, "", False),
        (False, "error", False),
        (True, "", False),
    ]
    for m, o in zip(matches, outcomes, strict=True):
        stored = current(m)
        assert Roll.objects.filter(match=m, action_id="c1").count() == (1 if o.written else 0)
        assert stored.revision == m.revision + (1 if o.written else 0)
        assert verify_match(stored).ok


# ---------------------------------------------------------------------------- the property

PRESETS = [
    ("classic", [], [], 4),
    ("family", [], [], 3),
    ("duel", [], [], 2),
    ("mensch", [], [], 4),
    ("party", [], ["power"], 4),
]
EXAMPLES = max(2, hypothesis_settings.default.max_examples // 10)


def fresh(match_id: int) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    stored = Match.objects.get(pk=match_id)
    fields = ["snapshot", "seq", "turn_seq", "turn_deadline", "pause_until", "revision", "status"]
    seats = [
        {"corner": s.corner, "connected": s.connected, "missed": s.missed_turns, "left": s.left}
        for s in Seat.objects.filter(match_id=match_id).order_by("corner")
    ]
    return {f: getattr(stored, f) for f in fields}, seats


def in_memory(match: Match, seats: list[Seat]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    fields = ["snapshot", "seq", "turn_seq", "turn_deadline", "pause_until", "revision", "status"]
    rows = [
        {"corner": s.corner, "connected": s.connected, "missed": s.missed_turns, "left": s.left}
        for s in sorted(seats, key=lambda s: s.corner)
    ]
    return {f: getattr(match, f) for f in fields}, rows


@pytest.mark.django_db
@pytest.mark.parametrize("variant", PRESETS, ids=[p[0] for p in PRESETS])
@hypothesis_settings(
    max_examples=EXAMPLES,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data())
def test_the_writers_match_in_memory_equals_a_fresh_read(host, variant, data) -> None:
    """A writer that keeps the match in memory (as a room's owner would: read once, then
    apply each action to its own copy and write it fenced) holds, after every action, what a
    fresh read of the database gives, and the snapshot it would send is the stored one."""
    match = current(local_match(variant, host))
    memory = fenced.load(match.pk)
    for n in range(40):
        if memory.status != Status.ACTIVE:
            break
        memory.db_now = db_now()  # the owner's clock: the database's, as on every path
        change = fenced.begin_loaded(memory)
        state = change.state
        assert state is not None
        seat = change.seat_to_play()
        if state.phase == "roll":
            change.dice_roll(seat, by="player", action_id=f"p{n}")
        else:
            # The dice come from the match's own server seed (new each example), so the
            # number of choices varies between runs: draw a pick of fixed range and fold it.
            pick = data.draw(st.integers(min_value=0, max_value=3), label=f"move {n}")
            chosen = state.legal[pick % len(state.legal)]
            change.move(seat, chosen, shield=False, by="player", action_id=f"p{n}")
        try:
            assert fenced.write(change), "nobody else writes this match"
        except fenced.Fallback:
            # Beyond the fast path (the end of the game): the locked path writes it, and the
            # owner reads the match again, as it would after handing a change over.
            if state.phase == "roll":
                services.match_roll(
                    match_id=memory.pk, corner=seat.corner, seq=memory.seq, action_id=f"p{n}"
                )
            else:
                services.match_move(
                    match_id=memory.pk,
                    corner=seat.corner,
                    seq=memory.seq,
                    action_id=f"p{n}",
                    pawn=chosen.pawn,
                    pawn_corner=chosen.corner,
                )
            memory = fenced.load(memory.pk)
            change = fenced.begin_loaded(memory)
        assert in_memory(memory, change.seats) == fresh(memory.pk)
        if change.view is not None:
            # The broadcast's snapshot is the stored one (plus the room's clocks it adds).
            sent, stored = view_of(*change.view, None), snapshot_for(current(memory))
            assert {key: sent.get(key) for key in stored} == stored
    assert verify_match(current(memory)).ok


def _event_rows_read(plan: dict[str, Any]) -> int:
    """Rows the plan's nodes on the events table read (returned or filtered out), all loops."""
    read = 0
    if plan.get("Relation Name") == MatchEvent._meta.db_table:
        loops = plan.get("Actual Loops", 0)
        read += (plan.get("Actual Rows", 0) + plan.get("Rows Removed by Filter", 0)) * loops
    for child in plan.get("Plans", ()):
        read += _event_rows_read(child)
    return read


@pytest.mark.django_db
def test_the_read_asks_about_undo_without_reading_the_matchs_events(host) -> None:
    match = current(local_match(("classic", [], [], 4), host))
    at = db_now()
    MatchEvent.objects.bulk_create(
        MatchEvent(match=match, seq=1000 + i, change=1000 + i, kind="note", at=at)
        for i in range(400)
    )
    sql = fenced._load_sql()[0]
    for mode in ("local", "online"):
        Match.objects.filter(pk=match.pk).update(mode=mode)
        with connection.cursor() as cursor:
            cursor.execute("SET LOCAL enable_seqscan = off")
            cursor.execute("EXPLAIN (ANALYZE, FORMAT JSON) " + sql, [match.pk])
            plan = cursor.fetchone()[0][0]["Plan"]
        # The time of the last event reads one row; "ever an undo" reads none.
        assert _event_rows_read(plan) == 1, mode
        assert fenced.load(match.pk).undone_none


@pytest.mark.django_db
def test_the_read_and_the_write_are_prepared_statements(host) -> None:
    match = current(local_match(("classic", [], [], 4), host))
    state = match.state()
    services.match_roll(match_id=match.pk, corner=state.to_play, seq=match.seq, action_id="p1")
    with connection.cursor() as cursor:
        cursor.execute("SELECT statement FROM pg_prepared_statements")
        prepared = [row[0] for row in cursor.fetchall()]
    assert any(s.startswith("WITH m AS (UPDATE") for s in prepared), prepared
    assert any(s.startswith("SELECT") and '"ludo_undone"' in s for s in prepared), prepared
