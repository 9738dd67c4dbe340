"""The audit log is safe from the site's own database role (issue 12: the site connected as
the tables' owner, which can disable the append-only trigger, rewrite the newest entries and
recompute the chain). With the README's two roles, the site's role tries that attack and every
step is refused; it still reads and appends, and does the rest of the site's work.

PostgreSQL only (roles and privileges); it makes a role of its own and drops it after.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest
from django.core.management import call_command
from django.db import connection

from audit import services as audit
from audit.chain import first_problem
from audit.models import AuditEntry

pytestmark = pytest.mark.django_db(transaction=True)

TABLE = AuditEntry._meta.db_table
ATTACK = [
    f"ALTER TABLE {TABLE} DISABLE TRIGGER audit_entry_append_only",
    f"DROP TRIGGER audit_entry_append_only ON {TABLE}",
    "DROP FUNCTION audit_entry_refuse_change() CASCADE",
    f"UPDATE {TABLE} SET extra_data = '{{}}'::jsonb, hash = 'forged'",
    f"DELETE FROM {TABLE}",
    f"TRUNCATE {TABLE}",
    f"ALTER TABLE {TABLE} RENAME TO audit_gone",
    f"DROP TABLE {TABLE}",
]


@pytest.fixture
def site_role(transactional_db: None) -> Iterator[Any]:
    """A connection as a fresh site role given its rights by `grant_site_role`."""
    if connection.vendor != "postgresql":
        pytest.skip("database roles are PostgreSQL's")
    import psycopg

    role = f"ludo_site_test_{os.getpid()}"
    with connection.cursor() as cursor:
        cursor.execute(f'DROP ROLE IF EXISTS "{role}"')
        cursor.execute(f'CREATE ROLE "{role}" LOGIN')
    call_command("grant_site_role", role)
    params = connection.get_connection_params()
    conn = psycopg.connect(
        host=params.get("host") or "127.0.0.1",
        port=params.get("port") or 5432,
        dbname=connection.settings_dict["NAME"],
        user=role,
        autocommit=True,
    )
    try:
        yield conn
    finally:
        conn.close()
        with connection.cursor() as cursor:
            cursor.execute(f'DROP OWNED BY "{role}"')
            cursor.execute(f'DROP ROLE "{role}"')


def test_the_site_role_cannot_disable_rewrite_or_drop_the_audit_log(site_role: Any) -> None:
    import psycopg

    for n in range(3):
        audit.record(action="user.signed_in", extra={"n": n})
    before = list(AuditEntry.objects.order_by("id").values_list("id", "hash"))
    for statement in ATTACK:
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            site_role.execute(statement)  # type: ignore[arg-type]
    assert list(AuditEntry.objects.order_by("id").values_list("id", "hash")) == before
    assert first_problem() is None
    # What the site needs still works: reading the log, appending to it, the other tables.
    assert site_role.execute(f"SELECT count(*) FROM {TABLE}").fetchone() == (3,)  # type: ignore[arg-type]
    rights = site_role.execute(
        "SELECT has_table_privilege(current_user, %s, 'INSERT'),"
        " has_table_privilege(current_user, %s, 'UPDATE'),"
        " has_table_privilege(current_user, 'games_match', 'UPDATE'),"
        " has_table_privilege(current_user, 'django_session', 'DELETE')",
        (TABLE, TABLE),
    ).fetchone()
    assert rights == (True, False, True, True)
    site_role.execute("SELECT pg_advisory_xact_lock(1)")  # the chain head's lock


def test_the_owner_could_and_the_command_refuses_the_owner(transactional_db: None) -> None:
    """Why two roles: the owner may disable the trigger (shown in a transaction rolled back);
    and the command refuses to make the owner the site's role."""
    if connection.vendor != "postgresql":
        pytest.skip("database roles are PostgreSQL's")
    from django.core.management.base import CommandError
    from django.db import transaction

    with pytest.raises(RuntimeError), transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(f"ALTER TABLE {TABLE} DISABLE TRIGGER audit_entry_append_only")
        raise RuntimeError("rolled back")
    with connection.cursor() as cursor:
        owner = cursor.execute("SELECT current_user").fetchone()[0]
    with pytest.raises(CommandError, match="owns the tables"):
        call_command("grant_site_role", owner)
