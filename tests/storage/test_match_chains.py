"""Per-match audit chains (issue 27): a match's own entries (connections, the clock's seat
changes) link into the match's chain, not the global one; the match's head is anchored into
the global chain when it ends and while it runs; verify_audit and verify_match check both
chains and the anchors, and name an entry edited, deleted or reordered, or a chain cut back."""

from __future__ import annotations

import io
import random

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection

from audit import actions
from audit import services as audit
from audit.chain import check_all, first_problem, hash_of, head
from audit.models import GENESIS, AuditEntry
from games import services
from games.match.verify import verify_match
from games.models import Match, Status

from .driver import local_match, play
from .test_audit import allow_raw_edits

pytestmark = pytest.mark.django_db


def sql(statement: str, params: list) -> None:
    with connection.cursor() as cursor:
        cursor.execute(statement, params)


def connect(match: Match, user, times: int) -> None:
    """The user's socket opens and closes `times` times: two match-chain entries each."""
    for _ in range(times):
        services.seat_set_connected(match_id=match.pk, user=user, connected=True, ip="192.0.2.7")
        services.seat_set_connected(match_id=match.pk, user=user, connected=False)


def chain_entries(match: Match) -> list[AuditEntry]:
    return list(AuditEntry.objects.filter(chain=match.pk).order_by("id"))


@pytest.fixture
def running(host) -> Match:
    match = local_match(("classic", [], [], 4), host)
    connect(match, host, 3)
    return match


@pytest.fixture
def finished(running, host) -> Match:
    match = play(running, random.Random("chains"), actions=30)
    assert match.status == Status.FINISHED
    return match


def test_connections_go_to_the_match_chain_only(running, host) -> None:
    global_head = head()
    connect(running, host, 1)
    assert head() == global_head  # the global chain did not move
    mine = chain_entries(running)
    seats = running.players  # the host holds every seat of a local match: one entry each
    connected, disconnected = [actions.SEAT_CONNECTED] * seats, [actions.SEAT_DISCONNECTED] * seats
    assert [e.action for e in mine] == (connected + disconnected) * 4
    assert mine[0].prev_hash == GENESIS
    for before, entry in zip(mine, mine[1:], strict=False):
        assert entry.prev_hash == before.hash
    assert all(hash_of(e) == e.hash for e in mine)
    # A second match's chain is its own, from its own start.
    other = local_match(("duel", [], [], 2), host)
    connect(other, host, 1)
    assert chain_entries(other)[0].prev_hash == GENESIS
    assert first_problem() is None


def test_a_match_chain_is_anchored_when_the_match_ends(finished) -> None:
    mine = chain_entries(finished)
    anchor = AuditEntry.objects.get(
        action=actions.MATCH_CHAIN_ANCHORED, object_id=str(finished.pk), chain__isnull=True
    )
    assert anchor.extra_data["head_id"] == mine[-1].pk
    assert anchor.extra_data["head"] == mine[-1].hash
    assert anchor.extra_data["why"] == "ended"
    assert verify_match(finished).ok, verify_match(finished).line
    out = io.StringIO()
    call_command("verify_audit", stdout=out)
    assert "1 match chains, 1 match chain anchors hold" in out.getvalue()


def test_a_running_match_chain_is_anchored_by_the_sweep_function(running, host) -> None:
    assert services.anchor_running_chains() == 1
    assert services.anchor_running_chains(every=0) == 0  # nothing new since
    connect(running, host, 1)
    assert services.anchor_running_chains() == 0  # anchored less than 5 minutes ago
    assert services.anchor_running_chains(every=0) == 1
    anchors = AuditEntry.objects.filter(action=actions.MATCH_CHAIN_ANCHORED)
    assert [a.extra_data["why"] for a in anchors] == ["running", "running"]
    assert anchors.last().extra_data["head_id"] == chain_entries(running)[-1].pk
    walk, problem = check_all()
    assert problem is None and walk.match_chains == 1 and len(walk.anchors) == 2


def _fails(match: Match, entry_id: int) -> None:
    """verify_audit and verify_match both fail, naming audit entry `entry_id`."""
    with pytest.raises(CommandError) as err:
        call_command("verify_audit", stdout=io.StringIO())
    assert f"audit entry {entry_id} " in str(err.value)
    report = verify_match(match)
    assert not report.ok and f"audit entry {entry_id} " in report.line, report.line


def test_an_edited_match_chain_entry_is_named(finished) -> None:
    entry = chain_entries(finished)[2]
    allow_raw_edits()
    sql("UPDATE audit_auditentry SET ip = '198.51.100.1' WHERE id = %s", [entry.pk])
    _fails(finished, entry.pk)


def test_an_entry_moved_to_another_chain_is_named(finished, host) -> None:
    other = local_match(("duel", [], [], 2), host)
    entry = chain_entries(finished)[-1]
    allow_raw_edits()
    sql("UPDATE audit_auditentry SET chain = %s WHERE id = %s", [other.pk, entry.pk])
    with pytest.raises(CommandError) as err:
        call_command("verify_audit", stdout=io.StringIO())
    assert f"audit entry {entry.pk} " in str(err.value)


def test_a_deleted_match_chain_entry_is_named(finished) -> None:
    mine = chain_entries(finished)
    allow_raw_edits()
    sql("DELETE FROM audit_auditentry WHERE id = %s", [mine[3].pk])
    _fails(finished, mine[4].pk)


def test_reordered_match_chain_entries_are_named(finished) -> None:
    """Two entries' contents swapped (a connect shown after its disconnect)."""
    n = finished.players
    a, b = chain_entries(finished)[n - 1 : n + 1]
    allow_raw_edits()
    assert (a.action, b.action) == (actions.SEAT_CONNECTED, actions.SEAT_DISCONNECTED)
    allow_raw_edits()
    for target, source in ((a, b), (b, a)):
        sql(
            "UPDATE audit_auditentry SET action = %s, ip = %s WHERE id = %s",
            [source.action, source.ip, target.pk],
        )
    _fails(finished, a.pk)


def test_a_match_chain_cut_back_is_named_by_its_anchor(finished) -> None:
    """The newest entries of a match's chain deleted: what is left still links, but the
    anchor taken when the match ended names the entry that is gone."""
    mine = chain_entries(finished)
    anchor = AuditEntry.objects.get(action=actions.MATCH_CHAIN_ANCHORED)
    allow_raw_edits()
    sql("DELETE FROM audit_auditentry WHERE id >= %s AND chain = %s", [mine[-2].pk, finished.pk])
    with pytest.raises(CommandError) as err:
        call_command("verify_audit", stdout=io.StringIO())
    assert f"audit entry {anchor.pk} anchors match {finished.pk}'s chain" in str(err.value)
    assert "is gone" in str(err.value)
    report = verify_match(finished)
    assert not report.ok and "is gone" in report.line


def test_an_ended_match_without_its_anchor_is_named(finished) -> None:
    """The anchor itself deleted: the global chain breaks at the entry after it (if any), and
    verify_match says the match's chain was not anchored when it ended."""
    anchor = AuditEntry.objects.get(action=actions.MATCH_CHAIN_ANCHORED)
    allow_raw_edits()
    sql("DELETE FROM audit_auditentry WHERE id = %s", [anchor.pk])
    report = verify_match(finished)
    assert not report.ok and "was not anchored when it ended" in report.line


def test_record_names_the_chain_by_action(host) -> None:
    match = local_match(("duel", [], [], 2), host)
    created = AuditEntry.objects.get(action=actions.MATCH_CREATED, object_id=str(match.pk))
    assert created.chain is None
    entry = audit.record(action=actions.SEAT_AWAY, obj=match, extra={"corner": 0})
    assert entry.chain == match.pk
    assert audit.record(action=actions.SEAT_AWAY, extra={"corner": 0}).chain is None
