"""A live room's owner (issue 27, `games.services.owned`): it holds the match in memory, plays
rolls and moves on that copy with no read, and commits the actions of all its rooms in one
batch. After every action its copy equals a fresh read of the database (a property over
random games of every preset, with other writers and stale intents mixed in); two would-be
owners of one match cannot both write; a batch from many rooms commits, or fails and is
retried, as its rows say. PostgreSQL only (SQLite keeps the service's locked path)."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from django.db import connection, connections
from hypothesis import HealthCheck, Phase, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from games import services
from games.live.wire import Intent
from games.match.errors import ServiceError
from games.match.verify import verify_match
from games.models import Match, MatchEvent, Roll, Seat, Status
from games.services import owned

from .driver import current, local_match

pytestmark = [
    pytest.mark.skipif(connection.vendor != "postgresql", reason="owned rooms are PostgreSQL's"),
]

FIELDS = ["snapshot", "seq", "turn_seq", "turn_deadline", "pause_until", "revision", "status"]


@pytest.fixture(autouse=True)
def _no_pause(settings: Any) -> None:
    settings.LUDO_OWNED_ROOMS = True  # off by default (ludo_site/settings.py)
    settings.LUDO_PASS_PAUSE = 0.0


def fresh(match_id: int) -> tuple[dict[str, Any], list[tuple[Any, ...]]]:
    stored = Match.objects.get(pk=match_id)
    seats = [
        (s.corner, s.user_id, s.connected, s.away, s.missed_turns, s.left, s.place)
        for s in Seat.objects.filter(match_id=match_id).order_by("corner")
    ]
    return {f: getattr(stored, f) for f in FIELDS}, seats


def held_now(owner: owned.Owner, match_id: int) -> tuple[dict[str, Any], list[tuple[Any, ...]]]:
    match = owner.held[match_id].match
    seats = [
        (s.corner, s.user_id, s.connected, s.away, s.missed_turns, s.left, s.place)
        for s in sorted(match.fenced_seats, key=lambda s: s.corner)
    ]
    return {f: getattr(match, f) for f in FIELDS}, seats


def intent_for(match: Match, pick: int, action_id: str, *, v: int | None = None) -> Intent:
    state = match.state()
    assert state is not None
    seq = match.seq if v is None else v
    if state.phase == "roll":
        return Intent(t="roll", v=seq, id=action_id)
    chosen = state.legal[pick % len(state.legal)]
    return Intent(t="move", v=seq, id=action_id, pawn=chosen.pawn, corner=chosen.corner)


def one(owner: owned.Owner, match: Match, user: Any, intent: Intent) -> owned.Job:
    (job,) = owner.commit([owned.Job(match.pk, user, intent)])
    return job


# ---------------------------------------------------------------------------- the property

PRESETS = [
    ("classic", [], [], 4),
    ("family", [], [], 3),
    ("duel", [], [], 2),
    ("mensch", [], [], 4),
    ("quick", [], [], 4),
    ("party", [], ["power"], 4),
]
EXAMPLES = max(2, hypothesis_settings.default.max_examples // 10)


@pytest.mark.django_db
@pytest.mark.parametrize("variant", PRESETS, ids=[p[0] for p in PRESETS])
@hypothesis_settings(
    max_examples=EXAMPLES,
    deadline=None,
    phases=[Phase.explicit, Phase.reuse, Phase.generate],  # a database test: no shrinking
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data())
def test_the_owners_match_in_memory_equals_a_fresh_read(host, variant, data) -> None:
    """After every action, whichever way it went (from memory and batch-committed; or on the
    service's path: a stale intent, a write by someone else first, the end of the game), the
    owner's copy (read again where it was dropped) is the database's, and the match verifies."""
    match = current(local_match(variant, host))
    owner = owned.Owner()
    owner.hold(match.pk)
    paths: list[str] = []
    for n in range(60):
        match = current(match)
        if match.status != Status.ACTIVE:
            break
        what = data.draw(st.integers(min_value=0, max_value=9), label=f"what {n}")
        pick = data.draw(st.integers(min_value=0, max_value=3), label=f"pick {n}")
        if what == 8 and match.seq > 1:
            # A stale intent (an older version): refused, the copy kept equal.
            job = one(owner, match, host, intent_for(match, pick, f"s{n}", v=match.seq - 1))
            assert isinstance(job.error, ServiceError) and job.error.code == "stale"
        elif what == 9:
            # Another writer first (the service's path, as a Celery timeout writes): the
            # owner's next write loses its fence or sees a newer version, and reads again.
            state = match.state()
            assert state is not None
            common = {"match_id": match.pk, "corner": state.to_play, "seq": match.seq}
            if state.phase == "roll":
                services.match_roll(**common, action_id=f"o{n}")
            else:
                chosen = state.legal[pick % len(state.legal)]
                services.match_move(
                    **common, action_id=f"o{n}", pawn=chosen.pawn, pawn_corner=chosen.corner
                )
            if pick % 2:
                # The client had not seen that change yet: its intent is at the old version
                # (the owner's copy too): the fence is lost, the service refuses it.
                job = one(owner, match, host, intent_for(match, pick, f"l{n}"))
                assert isinstance(job.error, ServiceError) and job.error.code == "stale"
                assert job.path == "service"
            else:
                # The owner hears the change's broadcast (`games.live.owner.Desk.heard`).
                held = owner.held.get(match.pk)
                if held is not None and held.match.seq < current(match).seq:
                    owner.drop(match.pk)
        else:
            job = one(owner, match, host, intent_for(match, pick, f"p{n}"))
            assert job.error is None, job.error
            paths.append(job.path)
        owner.hold(match.pk)  # held again if the last action dropped it
        assert held_now(owner, match.pk) == fresh(match.pk)
    stored = current(match)
    assert stored.seq == MatchEvent.objects.filter(match=stored).count()
    assert verify_match(stored).ok
    assert "memory" in paths  # the owner's own path was taken


# ---------------------------------------------------------------------------- two owners


@pytest.mark.django_db(transaction=True)
def test_two_would_be_owners_cannot_both_write(host) -> None:
    """Two owners (each its own connection) hold the match at one revision and commit a roll
    at once: exactly one is written from memory; the other loses its fence and the service,
    reading the match, refuses it as stale. One roll is stored."""
    match = current(local_match(("classic", [], [], 4), host))
    owners = [owned.Owner(), owned.Owner()]
    for o in owners:
        o.hold(match.pk)
    barrier = threading.Barrier(2, timeout=60)
    jobs: list[owned.Job] = []
    failed: list[BaseException] = []

    def run(o: owned.Owner, n: int) -> None:
        try:
            barrier.wait()
            jobs.extend(o.commit([owned.Job(match.pk, host, Intent("roll", match.seq, f"w{n}"))]))
        except BaseException as e:  # noqa: BLE001 - reported below
            failed.append(e)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run, args=(o, n)) for n, o in enumerate(owners)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not failed, failed
    written = [j for j in jobs if j.error is None]
    refused = [j for j in jobs if j.error is not None]
    assert len(written) == 1 and written[0].path == "memory"
    assert len(refused) == 1 and refused[0].path == "service"
    assert isinstance(refused[0].error, ServiceError) and refused[0].error.code == "stale"
    stored = current(match)
    assert stored.revision == match.revision + 1
    assert Roll.objects.filter(match=match).count() == 1
    assert verify_match(stored).ok


# ---------------------------------------------------------------------------- batches


@pytest.mark.django_db
def test_a_batch_from_many_rooms_commits_in_one_transaction_as_its_rows_say(host) -> None:
    matches = [current(local_match(("classic", [], [], 4), host)) for _ in range(6)]
    owner = owned.Owner()
    for m in matches:
        owner.hold(m.pk)
    # Room 2 moves on under the owner (another writer): its change loses its fence, and
    # the service refuses the intent, which was made at the old version.
    moved = matches[2]
    services.match_roll(
        match_id=moved.pk, corner=moved.state().to_play, seq=moved.seq, action_id="x"
    )
    jobs = [owned.Job(m.pk, host, Intent("roll", m.seq, "b1")) for m in matches]
    owner.commit(jobs)
    # One batch; no read of the five held rooms (the six reads are the holds above).
    assert owner.stats.batches == 1 and owner.stats.batched == 5
    assert owner.stats.loads == 6 and owner.stats.fenced == 1
    assert [j.path for j in jobs] == ["memory", "memory", "service", "memory", "memory", "memory"]
    assert isinstance(jobs[2].error, ServiceError) and jobs[2].error.code == "stale"
    for m, job in zip(matches, jobs, strict=True):
        stored = current(m)
        assert Roll.objects.filter(match=m, action_id="b1").count() == (job.error is None)
        assert stored.seq == MatchEvent.objects.filter(match=m).count()
        assert verify_match(stored).ok


@pytest.mark.django_db
def test_a_failing_batch_is_retried_action_by_action(host) -> None:
    """One action of the batch breaks a constraint (its roll's action id already stored by
    this seat at the same turn is no constraint; an event numbered as a stored one is): the
    batch rolls back, each action is written on its own, and only that one fails."""
    matches = [current(local_match(("classic", [], [], 4), host)) for _ in range(3)]
    owner = owned.Owner()
    for m in matches:
        owner.hold(m.pk)
    # The held copy of room 1 is broken: its next event would reuse number 1.
    owner.held[matches[1].pk].match.seq = 0
    jobs = [owned.Job(m.pk, host, Intent("roll", m.seq, "c1")) for m in matches]
    jobs[1] = owned.Job(matches[1].pk, host, Intent("roll", 0, "c1"))
    owner.commit(jobs)
    assert [j.path for j in jobs] == ["memory", "service", "memory"]
    assert owner.held.get(matches[1].pk) is None  # dropped, read again next time
    for m, job in zip(matches, jobs, strict=True):
        stored = current(m)
        assert Roll.objects.filter(match=m, action_id="c1").count() == (job.error is None)
        assert verify_match(stored).ok
