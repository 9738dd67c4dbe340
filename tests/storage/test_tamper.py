"""Edit the record with raw SQL, as someone with database access might: verify_match and
verify_audit catch each edit and name the row."""

from __future__ import annotations

import io
import random
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection

from audit import services as audit
from audit.models import AuditEntry
from games.models import Match, MatchEvent, Move, Roll, Status, Turn

from .driver import local_match, play
from .test_audit import allow_raw_edits

pytestmark = pytest.mark.django_db


@pytest.fixture
def finished(host) -> Match:
    """A finished four-player classic match of a few dozen actions."""
    rng = random.Random("tamper")
    match = local_match(("classic", [], [], 4), host)
    match = play(match, rng, actions=60)
    assert match.status == Status.FINISHED
    assert Move.objects.filter(match=match).count() >= 5
    return match


def sql(statement: str, params: list) -> None:
    with connection.cursor() as cursor:
        cursor.execute(statement, params)


def verify(match: Match) -> str:
    """verify_match's output: the summary line, or the error (with exit code 1)."""
    try:
        out: list[str] = []
        call_command(
            "verify_match",
            match.code,
            stdout=type("W", (), {"write": lambda s, t: out.append(t)})(),
        )
    except CommandError as err:
        assert err.returncode == 1
        return f"FAILED: {err}"
    return out[0]


def test_an_untouched_match_verifies(finished) -> None:
    line = verify(finished)
    assert line.startswith(f"match {finished.code} ok: classic, local, 4 players")
    assert "dice verified" in line


def test_a_changed_roll_face_is_named(finished) -> None:
    roll = Roll.objects.filter(match=finished).order_by("n")[7]
    sql("UPDATE games_roll SET face = %s WHERE id = %s", [roll.face % 6 + 1, roll.pk])
    line = verify(finished)
    assert line.startswith("FAILED") and f"roll n=7 (id {roll.pk}," in line
    assert f"face {roll.face % 6 + 1} stored, the dice give {roll.face}" in line


def test_a_deleted_move_is_named(finished) -> None:
    move = Move.objects.filter(match=finished).order_by("seq")[3]
    sql("DELETE FROM games_move WHERE id = %s", [move.pk])
    line = verify(finished)
    event = MatchEvent.objects.get(match=finished, seq=move.seq)
    assert line.startswith("FAILED")
    assert f"match_event id {event.pk} (seq {move.seq}, {event.kind}) has no roll, move" in line


def test_a_changed_move_is_named(finished) -> None:
    move = Move.objects.filter(match=finished, frm__gte=0).order_by("seq").first()
    sql('UPDATE games_move SET "to" = "to" + 1 WHERE id = %s', [move.pk])
    line = verify(finished)
    assert line.startswith("FAILED") and f"move id {move.pk} (seq {move.seq})" in line


def test_reordered_turns_are_named(finished) -> None:
    a, b = Turn.objects.filter(match=finished).order_by("n")[2:4]
    assert a.corner != b.corner
    # Swap the two turns' numbers (through a free number: n is unique per match).
    sql("UPDATE games_turn SET n = 100000 WHERE id = %s", [a.pk])
    sql("UPDATE games_turn SET n = %s WHERE id = %s", [a.n, b.pk])
    sql("UPDATE games_turn SET n = %s WHERE id = %s", [b.n, a.pk])
    line = verify(finished)
    assert line.startswith("FAILED") and f"turn id {b.pk}: stored n={a.n}" in line


def test_a_reordered_roll_is_named(finished) -> None:
    """Two rolls swapped in the stream (their seq exchanged)."""
    r1, r2 = Roll.objects.filter(match=finished).order_by("n")[4:6]
    sql("UPDATE games_roll SET seq = 0 WHERE id = %s", [r1.pk])
    sql("UPDATE games_roll SET seq = %s WHERE id = %s", [r1.seq, r2.pk])
    sql("UPDATE games_roll SET seq = %s WHERE id = %s", [r2.seq, r1.pk])
    line = verify(finished)
    assert line.startswith("FAILED") and f"(id {r2.pk}, seq {r1.seq})" in line


def test_a_deleted_event_is_named(finished) -> None:
    event = MatchEvent.objects.filter(match=finished).order_by("seq")[20]
    sql("DELETE FROM games_matchevent WHERE id = %s", [event.pk])
    line = verify(finished)
    assert line.startswith("FAILED") and f"match_event seq {event.seq} is missing" in line


def test_a_changed_snapshot_is_named(finished) -> None:
    sql(
        "UPDATE games_match SET snapshot = %s WHERE id = %s",
        [
            '{"notation": "classic to=0 phase=over pawns=h,h,h,h/y,y,y,y/y,y,y,y/y,y,y,y", '
            '"rolls": 1, "turn": 1}',
            finished.pk,
        ],
    )
    line = verify(finished)
    assert line.startswith("FAILED") and "stored snapshot" in line


def test_a_swapped_server_seed_is_named(finished) -> None:
    sql("UPDATE games_match SET server_seed = %s WHERE id = %s", ["ab" * 32, finished.pk])
    line = verify(finished)
    assert line.startswith("FAILED") and "does not match the commitment" in line


def test_an_edited_match_audit_entry_is_named(finished) -> None:
    entry = AuditEntry.objects.get(object_id=str(finished.pk), action="match.finished")
    allow_raw_edits()
    sql(
        "UPDATE audit_auditentry SET extra_data = jsonb_set(extra_data::jsonb, '{placings}', "
        "'[3, 2, 1, 0]')::json WHERE id = %s"
        if connection.vendor == "postgresql"
        else "UPDATE audit_auditentry SET extra_data = json_set(extra_data, '$.placings', "
        "json('[3, 2, 1, 0]')) WHERE id = %s",
        [entry.pk],
    )
    line = verify(finished)
    assert line.startswith("FAILED") and f"audit entry {entry.pk} (match.finished)" in line
    with pytest.raises(CommandError) as err:
        call_command("verify_audit")
    assert f"audit entry {entry.pk} " in str(err.value)


def test_a_deleted_match_audit_entry_is_named(finished) -> None:
    started = AuditEntry.objects.get(object_id=str(finished.pk), action="match.started")
    after = AuditEntry.objects.filter(pk__gt=started.pk).order_by("id").first()
    allow_raw_edits()
    sql("DELETE FROM audit_auditentry WHERE id = %s", [started.pk])
    line = verify(finished)
    assert line.startswith("FAILED") and f"audit entry {after.pk} " in line
    with pytest.raises(CommandError) as err:
        call_command("verify_audit")
    assert f"audit entry {after.pk} " in str(err.value)


# ---------------------------------------------------------------------------- anchors


def test_an_anchor_shows_the_newest_entries_cut_off(caplog: Any) -> None:
    from audit.tasks import log_head
    from ludo_site.celery import app

    assert any(e["task"] == "audit.log_head" for e in app.conf.beat_schedule.values())
    for n in range(3):
        audit.record(action="match.created", extra={"n": n})
    with caplog.at_level("INFO", logger="ludo.audit.anchor"):
        anchor = log_head()
    assert anchor is not None and f"audit anchor {anchor}" in caplog.text
    out = io.StringIO()
    call_command("verify_audit", "--anchor", anchor, stdout=out)
    assert "1 anchor(s) hold" in out.getvalue() and f"anchor: {anchor}" in out.getvalue()
    audit.record(action="match.created", extra={"n": 3})  # the log goes on: the anchor holds
    call_command("verify_audit", "--anchor", anchor, stdout=io.StringIO())

    # Cut the log back to before the anchor: the rest is still a valid chain...
    ident = int(anchor.split(":")[0])
    allow_raw_edits()
    with connection.cursor() as cursor:
        cursor.execute("DELETE FROM audit_auditentry WHERE id >= %s", [ident])
    call_command("verify_audit", stdout=io.StringIO())
    # ...but not the log the anchor was taken of.
    with pytest.raises(CommandError) as cut:
        call_command("verify_audit", "--anchor", anchor, stdout=io.StringIO())
    assert cut.value.returncode == 1 and f"audit entry {ident} is gone" in str(cut.value)


def test_an_anchor_shows_a_rewritten_log() -> None:
    from audit.chain import anchor_problem, head

    audit.record(action="match.created", extra={"n": 0})
    taken = head()
    assert taken is not None and anchor_problem(taken) is None
    assert "another hash" in str(anchor_problem((taken[0], "0" * 64)))


@pytest.mark.parametrize("text", ["12", "x:" + "a" * 64, "12:abc", "12:" + "g" * 64])
def test_a_malformed_anchor_is_refused(text: str) -> None:
    with pytest.raises(CommandError) as bad:
        call_command("verify_audit", "--anchor", text, stdout=io.StringIO())
    assert bad.value.returncode == 2
