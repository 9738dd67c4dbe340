"""The only writer of the audit log."""

from __future__ import annotations

import ipaddress
from datetime import UTC, datetime
from typing import Any

from django.db import connection, models, transaction

from .actions import ACTION_NAMES
from .chain import content_of, entry_hash
from .clock import db_now
from .models import GENESIS, AuditEntry

# pg_advisory_xact_lock key for the chain head: any constant unique to this purpose.
CHAIN_LOCK_KEY = 0x4C55444F_41554454  # "LUDOAUDT"


def _lock_chain_head() -> tuple[str, datetime]:
    """Serialise writers until this transaction ends; return the head's hash and the
    database's time (read together: one round trip less while every writer waits)."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [CHAIN_LOCK_KEY])
            # A statement of its own after the lock: its snapshot sees the latest head.
            cursor.execute(
                f"SELECT (SELECT hash FROM {AuditEntry._meta.db_table} ORDER BY id DESC LIMIT 1),"
                " statement_timestamp()"
            )
            head, now = cursor.fetchone()
        return head or GENESIS, now.astimezone(UTC)
    # SQLite serialises writers itself; elsewhere lock the last row.
    head = (
        AuditEntry.objects.select_for_update()
        .order_by("-id")
        .values_list("hash", flat=True)
        .first()
    )
    return head or GENESIS, db_now()


def record(
    *,
    action: str,
    actor: Any = None,
    ip: str | None = None,
    obj: models.Model | None = None,
    extra: dict[str, Any] | None = None,
) -> AuditEntry:
    """Append one entry to the chain, in the caller's transaction (or its own)."""
    if action not in ACTION_NAMES:
        raise ValueError(f"unknown audit action {action!r}")
    if ip is not None:
        # Stored (and read back) in the database's normal form, so hash that form.
        ip = str(ipaddress.ip_address(ip))
        ip = AuditEntry._meta.get_field("ip").get_prep_value(ip)
    object_type = obj._meta.label_lower if obj is not None else ""
    object_id = str(obj.pk) if obj is not None else ""
    actor_id = actor.pk if actor is not None else None
    extra_data = dict(extra or {})
    with transaction.atomic():
        prev_hash, event_time = _lock_chain_head()
        fields = {
            "event_time": event_time,
            "action": action,
            "actor_id": actor_id,
            "ip": ip,
            "object_type": object_type,
            "object_id": object_id,
            "extra_data": extra_data,
        }
        digest = entry_hash(prev_hash, content_of(**fields))
        entry = AuditEntry(**fields, prev_hash=prev_hash, hash=digest)
        entry.save(force_insert=True)
    return entry
