"""The database's clock: every stored time comes from it, not from the web server's."""

from __future__ import annotations

from datetime import UTC, datetime

from django.db import connections
from django.utils import timezone


def db_now(using: str = "default") -> datetime:
    """The current time on the database server, timezone-aware (UTC)."""
    connection = connections[using]
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute("SELECT statement_timestamp()")
            value = cursor.fetchone()[0]
            return value.astimezone(UTC)
        if connection.vendor == "sqlite":
            cursor.execute("SELECT strftime('%Y-%m-%d %H:%M:%f', 'now')")
            text = cursor.fetchone()[0]
            return datetime.fromisoformat(text).replace(tzinfo=UTC)
    return timezone.now()
