"""The audit log: append-only, hash-chained, and checked."""

from __future__ import annotations

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import DatabaseError, connection, transaction

from audit import chain
from audit.models import GENESIS, AppendOnlyError, AuditEntry
from audit.services import record

pytestmark = pytest.mark.django_db

ON_POSTGRES = connection.vendor == "postgresql"


def allow_raw_edits() -> None:
    """Tamper as a database owner would: on PostgreSQL switch the trigger off (inside the
    test's transaction, so it comes back when the test ends)."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("ALTER TABLE audit_auditentry DISABLE TRIGGER audit_entry_append_only")


def entries(make_user, n: int = 5) -> list[AuditEntry]:
    user = make_user()
    return [
        record(
            action="match.joined",
            actor=user,
            ip={2: "2001:0db8:0000:0000::1", 3: "::ffff:10.0.0.1"}.get(i, "203.0.113.9"),
            extra={"corners": [i], "note": "élan"},
        )
        for i in range(n)
    ]


def test_entries_chain_by_hash(make_user) -> None:
    made = entries(make_user)
    stored = list(AuditEntry.objects.order_by("id"))
    assert [e.pk for e in stored] == [e.pk for e in made]
    assert stored[0].prev_hash == GENESIS
    for before, entry in zip(stored, stored[1:], strict=False):
        assert entry.prev_hash == before.hash
    assert all(chain.hash_of(e) == e.hash for e in stored)
    assert chain.verify() is None
    out = []
    call_command("verify_audit", stdout=type("W", (), {"write": lambda s, t: out.append(t)})())
    assert out and out[0].startswith("audit chain ok: 5 entries")


def test_the_model_refuses_changes(make_user) -> None:
    entry = entries(make_user, 1)[0]
    entry.extra_data = {"corners": [3]}
    with pytest.raises(AppendOnlyError):
        entry.save()
    with pytest.raises(AppendOnlyError):
        entry.delete()
    with pytest.raises(AppendOnlyError):
        AuditEntry.objects.filter(pk=entry.pk).update(action="match.left")
    with pytest.raises(AppendOnlyError):
        AuditEntry.objects.all().delete()
    with pytest.raises(ValueError):
        record(action="match.teleported")
    assert chain.verify() is None


@pytest.mark.skipif(not ON_POSTGRES, reason="the trigger exists on PostgreSQL only")
def test_the_postgres_trigger_refuses_raw_update_and_delete(make_user) -> None:
    entry = entries(make_user, 2)[0]
    for sql in (
        "UPDATE audit_auditentry SET extra_data = '{}' WHERE id = %s",
        "DELETE FROM audit_auditentry WHERE id = %s",
    ):
        with (
            pytest.raises(DatabaseError, match="append-only"),
            transaction.atomic(),
            connection.cursor() as cursor,
        ):
            cursor.execute(sql, [entry.pk])
    assert AuditEntry.objects.filter(pk=entry.pk).exists()
    assert chain.verify() is None


def test_an_edited_entry_is_named(make_user) -> None:
    made = entries(make_user)
    allow_raw_edits()
    with connection.cursor() as cursor:
        cursor.execute(
            "UPDATE audit_auditentry SET extra_data = %s WHERE id = %s",
            ['{"corners": [9], "note": "élan"}', made[2].pk],
        )
    assert chain.verify() == made[2].pk
    with pytest.raises(CommandError) as err:
        call_command("verify_audit")
    assert err.value.returncode == 1
    assert f"audit entry {made[2].pk} " in str(err.value) and "changed" in str(err.value)


def test_a_deleted_entry_is_named(make_user) -> None:
    made = entries(make_user)
    allow_raw_edits()
    with connection.cursor() as cursor:
        cursor.execute("DELETE FROM audit_auditentry WHERE id = %s", [made[1].pk])
    assert chain.verify() == made[2].pk
    with pytest.raises(CommandError) as err:
        call_command("verify_audit")
    assert f"audit entry {made[2].pk} " in str(err.value)
    assert f"does not match entry {made[0].pk}" in str(err.value)


def test_a_rehashed_entry_still_breaks_the_next_link(make_user) -> None:
    """An editor who also recomputes the edited entry's hash breaks the link after it."""
    made = entries(make_user)
    allow_raw_edits()
    target = AuditEntry.objects.get(pk=made[1].pk)
    target.extra_data = {"corners": [7]}
    new_hash = chain.hash_of(target)
    with connection.cursor() as cursor:
        cursor.execute(
            "UPDATE audit_auditentry SET extra_data = %s, hash = %s WHERE id = %s",
            ['{"corners": [7]}', new_hash, made[1].pk],
        )
    assert chain.verify() == made[2].pk


def test_a_run_of_entries_is_checked_against_the_entry_before_it(make_user) -> None:
    made = entries(make_user)
    run = AuditEntry.objects.filter(pk__gte=made[2].pk).order_by("id")
    assert chain.verify(run) is None
    allow_raw_edits()
    with connection.cursor() as cursor:
        cursor.execute("DELETE FROM audit_auditentry WHERE id = %s", [made[1].pk])
    assert chain.verify(AuditEntry.objects.filter(pk__gte=made[2].pk).order_by("id")) == made[2].pk
