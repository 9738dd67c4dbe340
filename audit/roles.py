"""The site's own database role, kept away from the audit log's history (issue 12: the role
the site connected as owned the tables, so it could disable the append-only trigger, rewrite
the newest entries and recompute the chain unnoticed).

Migrations run as the owner of the tables. The site's processes connect as a second role that
may read and write every table but the audit log, where it may only read and append: it owns
nothing, so it can neither disable nor drop the trigger, alter or truncate the table, nor
update or delete an entry. `grant_site_role` (a management command run as the owner, after
every ``migrate``) gives those rights; README, "Database roles".
"""

from __future__ import annotations

from django.db import connection
from psycopg import sql

from .models import AuditEntry

# What the site's role may do on every other table, and on the audit log.
TABLE_RIGHTS = "SELECT, INSERT, UPDATE, DELETE"
AUDIT_RIGHTS = "SELECT, INSERT"


def statements(role: str, *, schema: str = "public") -> list[sql.Composed]:
    """The SQL that gives `role` the site's rights (and takes away any more on the audit log)."""
    who = sql.Identifier(role)
    where = sql.Identifier(schema)
    audit = sql.Identifier(AuditEntry._meta.db_table)
    database = sql.Identifier(connection.settings_dict["NAME"])
    return [
        sql.SQL("GRANT CONNECT ON DATABASE {} TO {}").format(database, who),
        sql.SQL("GRANT USAGE ON SCHEMA {} TO {}").format(where, who),
        sql.SQL("GRANT " + TABLE_RIGHTS + " ON ALL TABLES IN SCHEMA {} TO {}").format(where, who),
        sql.SQL("GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA {} TO {}").format(where, who),
        # Tables later migrations make (run as the owner) get the same rights.
        sql.SQL(
            "ALTER DEFAULT PRIVILEGES IN SCHEMA {} GRANT " + TABLE_RIGHTS + " ON TABLES TO {}"
        ).format(where, who),
        sql.SQL(
            "ALTER DEFAULT PRIVILEGES IN SCHEMA {} GRANT USAGE, SELECT ON SEQUENCES TO {}"
        ).format(where, who),
        # The audit log: read and append only.
        sql.SQL("REVOKE ALL ON {} FROM {}").format(audit, who),
        sql.SQL("GRANT " + AUDIT_RIGHTS + " ON {} TO {}").format(audit, who),
    ]


def grant(role: str) -> None:
    """Give `role` the site's rights, on the database Django is connected to (as the owner)."""
    if connection.vendor != "postgresql":
        raise ValueError("database roles are for PostgreSQL")
    with connection.cursor() as cursor:
        owner = cursor.execute(
            "SELECT tableowner FROM pg_tables WHERE tablename = %s",
            [AuditEntry._meta.db_table],
        ).fetchone()
        if owner is None:
            raise ValueError("run migrate first: there is no audit table")
        if owner[0] == role:
            raise ValueError(
                f"{role} owns the tables: the site must connect as another role than the owner"
            )
        for statement in statements(role):
            cursor.execute(statement)
