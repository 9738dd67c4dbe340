"""The only writer of the audit log: `record` appends an entry to its chain (the global one,
or a match's own for `actions.MATCH_CHAIN_ACTIONS`), `anchor_chain` anchors a match's chain
head into the global chain.

Writers of one chain are serialised by a transaction-level advisory lock of that chain: the
global chain's one key, or a key per match, so appending to a match's chain (a socket
opening) waits only for that match's other writers, not for the whole site."""

from __future__ import annotations

import ipaddress
import json
from datetime import UTC, datetime
from typing import Any

from django.db import connection, models, transaction

from .actions import ACTION_NAMES, MATCH_CHAIN_ACTIONS, MATCH_CHAIN_ANCHORED, MATCH_OBJECT
from .chain import content_of, entry_hash, head, in_chain
from .clock import db_now
from .models import GENESIS, AuditEntry

# pg_advisory_xact_lock key for the chain head: any constant unique to this purpose.
CHAIN_LOCK_KEY = 0x4C55444F_41554454  # "LUDOAUDT"
# A match chain's key: pg_advisory_xact_lock(MATCH_CHAIN_LOCK_CLASS, match id modulo 2**31);
# two matches sharing a key only wait for each other.
MATCH_CHAIN_LOCK_CLASS = 0x4C4D4348  # "LMCH"


def _lock_chain_head(chain: int | None) -> tuple[str, datetime]:
    """Serialise the chain's writers until this transaction ends; return the chain head's
    hash and the database's time (read together: one round trip less while writers wait)."""
    if connection.vendor == "postgresql":
        table = AuditEntry._meta.db_table
        with connection.cursor() as cursor:
            if chain is None:
                cursor.execute("SELECT pg_advisory_xact_lock(%s)", [CHAIN_LOCK_KEY])
                # A statement of its own after the lock: its snapshot sees the latest head.
                cursor.execute(
                    f"SELECT (SELECT hash FROM {table} WHERE chain IS NULL"
                    " ORDER BY id DESC LIMIT 1), statement_timestamp()"
                )
            else:
                cursor.execute(
                    "SELECT pg_advisory_xact_lock(%s, %s)",
                    [MATCH_CHAIN_LOCK_CLASS, int(chain) % 2**31],
                )
                cursor.execute(
                    f"SELECT (SELECT hash FROM {table} WHERE chain = %s"
                    " ORDER BY id DESC LIMIT 1), statement_timestamp()",
                    [int(chain)],
                )
            last, now = cursor.fetchone()
        return last or GENESIS, now.astimezone(UTC)
    # SQLite serialises writers itself; elsewhere lock the chain's last row.
    last = (
        in_chain(chain).select_for_update().order_by("-id").values_list("hash", flat=True).first()
    )
    return last or GENESIS, db_now()


def chain_of(action: str, object_type: str, object_id: str) -> int | None:
    """The chain an entry goes to: its match's own for the actions made while a match is
    played, else the global chain (None)."""
    if action in MATCH_CHAIN_ACTIONS and object_type == MATCH_OBJECT and object_id.isdigit():
        return int(object_id)
    return None


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
    return _append(
        action=action,
        actor_id=actor_id,
        ip=ip,
        object_type=object_type,
        object_id=object_id,
        extra_data=extra_data,
        chain=chain_of(action, object_type, object_id),
    )


def hold_global_chain() -> None:
    """Take the global chain's lock now, until the transaction ends (a writer that will
    append later, after locking other rows, takes it first: one order, no deadlock)."""
    _lock_chain_head(None)


def record_many(entries: list[dict[str, Any]]) -> list[int]:
    """Append several global-chain entries at once (each a `record`'s keyword arguments), in
    the order given: one lock of the chain, one read of its head and one ``INSERT``; the same
    entries, hashes and links as that many `record` calls. For a batch made together (a
    tournament's tables opened at once); match-chain actions go through `record`. Returns
    the new entries' ids, in order."""
    if not entries:
        return []
    rows: list[dict[str, Any]] = []
    for e in entries:
        action = e["action"]
        if action not in ACTION_NAMES:
            raise ValueError(f"unknown audit action {action!r}")
        obj, actor, ip = e.get("obj"), e.get("actor"), e.get("ip")
        if ip is not None:
            ip = str(ipaddress.ip_address(ip))
            ip = AuditEntry._meta.get_field("ip").get_prep_value(ip)
        object_type = obj._meta.label_lower if obj is not None else ""
        object_id = str(obj.pk) if obj is not None else ""
        if chain_of(action, object_type, object_id) is not None:
            raise ValueError(f"{action!r} belongs to a match's own chain: use record()")
        rows.append(
            {
                "action": action,
                "actor_id": actor.pk if actor is not None else None,
                "ip": ip,
                "object_type": object_type,
                "object_id": object_id,
                "extra_data": dict(e.get("extra") or {}),
                "chain": None,
            }
        )
    with transaction.atomic():
        prev_hash, event_time = _lock_chain_head(None)
        for fields in rows:
            fields["event_time"] = event_time
            fields["prev_hash"] = prev_hash
            prev_hash = fields["hash"] = entry_hash(
                prev_hash, content_of(**_content_fields(fields))
            )
        if connection.vendor == "postgresql":
            return _copy_entries(rows)
        return [e.pk for e in AuditEntry.objects.bulk_create([AuditEntry(**f) for f in rows])]


def _content_fields(row: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in row.items() if k not in ("prev_hash", "hash")}


_COLUMNS = (
    "event_time",
    "action",
    "actor_id",
    "ip",
    "object_type",
    "object_id",
    "extra_data",
    "chain",
    "prev_hash",
    "hash",
)


def _copy_entries(rows: list[dict[str, Any]]) -> list[int]:
    """Store a batch of entries with one ``COPY``, their ids drawn first from the table's
    sequence in ascending order (the chain links in id order; the chain's lock is held, so
    no other entry of it is numbered in between). Returns their ids, in order."""
    opts = AuditEntry._meta
    columns = {f.attname: f.column for f in opts.concrete_fields}
    assert set(columns) == {"id", *_COLUMNS}, "AuditEntry's fields changed: update _COLUMNS"
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT nextval(pg_get_serial_sequence(%s, %s)) FROM generate_series(1, %s)",
            [opts.db_table, opts.pk.column, len(rows)],
        )
        ids = sorted(new_id for (new_id,) in cursor.fetchall())
        names = ", ".join(f'"{columns[name]}"' for name in ("id", *_COLUMNS))
        with cursor.cursor.copy(f'COPY "{opts.db_table}" ({names}) FROM STDIN') as copy:
            for new_id, row in zip(ids, rows, strict=True):
                copy.write_row(
                    [
                        new_id,
                        *(
                            json.dumps(row[name]) if name == "extra_data" else row[name]
                            for name in _COLUMNS
                        ),
                    ]
                )
    return ids


def _append(
    *,
    action: str,
    actor_id: int | None,
    ip: str | None,
    object_type: str,
    object_id: str,
    extra_data: dict[str, Any],
    chain: int | None,
) -> AuditEntry:
    with transaction.atomic():
        prev_hash, event_time = _lock_chain_head(chain)
        fields = {
            "event_time": event_time,
            "action": action,
            "actor_id": actor_id,
            "ip": ip,
            "object_type": object_type,
            "object_id": object_id,
            "extra_data": extra_data,
            "chain": chain,
        }
        digest = entry_hash(prev_hash, content_of(**fields))
        entry = AuditEntry(**fields, prev_hash=prev_hash, hash=digest)
        entry.save(force_insert=True)
    return entry


def last_anchored(match_ids: list[int]) -> dict[int, int]:
    """Each match's chain head id as last anchored into the global chain (absent: never)."""
    found: dict[int, int] = {}
    if not match_ids:
        return found
    rows = (
        AuditEntry.objects.filter(
            chain__isnull=True,
            action=MATCH_CHAIN_ANCHORED,
            object_type=MATCH_OBJECT,
            object_id__in=[str(m) for m in match_ids],
        )
        .order_by("id")
        .values_list("object_id", "extra_data")
    )
    for object_id, extra in rows:
        head_id = extra.get("head_id") if isinstance(extra, dict) else None
        if isinstance(head_id, int):
            found[int(object_id)] = head_id
    return found


def anchor_chain(match_id: int, *, reason: str) -> AuditEntry | None:
    """Anchor match `match_id`'s own chain into the global chain: append a global
    ``match.chain_anchored`` entry naming the chain's head (id and hash). None when the chain
    is empty or its head is anchored already. `reason`: "ended" or "running"."""
    with transaction.atomic():
        # Under the chain's lock: the head cannot move on while it is anchored.
        _lock_chain_head(int(match_id))
        now = head(int(match_id))
        if now is None or last_anchored([int(match_id)]).get(int(match_id)) == now[0]:
            return None
        return _append(
            action=MATCH_CHAIN_ANCHORED,
            actor_id=None,
            ip=None,
            object_type=MATCH_OBJECT,
            object_id=str(int(match_id)),
            extra_data={"chain": int(match_id), "head_id": now[0], "head": now[1], "why": reason},
            chain=None,
        )


def chain_heads(match_ids: list[int]) -> dict[int, int]:
    """The newest entry id of each of these matches' own chains (absent: an empty chain)."""
    if not match_ids:
        return {}
    rows = (
        AuditEntry.objects.filter(chain__in=match_ids)
        .order_by()
        .values("chain")
        .annotate(last=models.Max("id"))
        .values_list("chain", "last")
    )
    return {int(chain): int(last) for chain, last in rows}
