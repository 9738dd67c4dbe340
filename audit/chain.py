"""The hash chain: how an entry's hash is computed, and the check that names the first break.

``hash = sha256(prev_hash + canonical_json(content))`` where the content is the entry's
event time (ISO 8601, UTC, microseconds), action, actor id, ip, object type and id and
extra data; canonical JSON sorts keys and uses no spaces.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any

from .models import GENESIS, AuditEntry


def canonical(content: dict[str, Any]) -> str:
    """One byte-exact JSON text for the same content."""
    return json.dumps(content, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def content_of(
    *,
    event_time: datetime,
    action: str,
    actor_id: int | None,
    ip: str | None,
    object_type: str,
    object_id: str,
    extra_data: Any,
) -> dict[str, Any]:
    """What an entry's hash covers."""
    return {
        "event_time": event_time.astimezone(UTC).isoformat(timespec="microseconds"),
        "action": action,
        "actor": actor_id,
        "ip": ip,
        "object_type": object_type,
        "object_id": object_id,
        "extra": extra_data,
    }


def entry_hash(prev_hash: str, content: dict[str, Any]) -> str:
    return hashlib.sha256((prev_hash + canonical(content)).encode("utf-8")).hexdigest()


def hash_of(entry: AuditEntry) -> str:
    """The hash `entry` should carry, recomputed from its stored fields."""
    return entry_hash(
        entry.prev_hash,
        content_of(
            event_time=entry.event_time,
            action=entry.action,
            actor_id=entry.actor_id,
            ip=entry.ip,
            object_type=entry.object_type,
            object_id=entry.object_id,
            extra_data=entry.extra_data,
        ),
    )


def problem(entry: AuditEntry, previous_hash: str, previous_id: int | None) -> str | None:
    """Why `entry` breaks the chain after the entry with `previous_hash`, or None."""
    if entry.prev_hash != previous_hash:
        after = f"entry {previous_id}" if previous_id is not None else "the start of the log"
        return (
            f"audit entry {entry.pk} ({entry.action}): prev_hash does not match {after}; "
            "an entry before it was changed or deleted"
        )
    if hash_of(entry) != entry.hash:
        return (
            f"audit entry {entry.pk} ({entry.action}): its content does not match its hash; "
            "it was changed"
        )
    return None


def problem_at(entry: AuditEntry) -> str | None:
    """Why `entry` breaks the chain after the entry stored just before it, or None."""
    before = (
        AuditEntry.objects.filter(id__lt=entry.pk).order_by("-id").values_list("id", "hash").first()
    )
    previous_id, previous_hash = before if before else (None, GENESIS)
    return problem(entry, previous_hash, previous_id)


def first_problem(entries: Iterable[AuditEntry] | None = None) -> tuple[int, str] | None:
    """The first entry (id, reason) where the chain breaks, or None when it holds.

    `entries` is a contiguous run of the log in id order (by default the whole log); its first
    entry is checked against the entry stored just before it.
    """
    if entries is None:
        entries = AuditEntry.objects.order_by("id").iterator(chunk_size=2000)
    previous_hash: str | None = None
    previous_id: int | None = None
    for entry in entries:
        if previous_hash is None:
            reason = problem_at(entry)
        else:
            reason = problem(entry, previous_hash, previous_id)
        if reason is not None:
            return entry.pk, reason
        previous_hash, previous_id = entry.hash, entry.pk
    return None


def verify(entries: Iterable[AuditEntry] | None = None) -> int | None:
    """None when the chain holds, else the id of the first entry that breaks it."""
    found = first_problem(entries)
    return None if found is None else found[0]


# ---------------------------------------------------------------------------- anchors
# The chain shows an entry changed or deleted in the middle, but not the newest entries cut
# off the end: what is left is still a valid chain. An anchor is the head (id and hash) as
# it was at some moment, kept somewhere the database's users cannot rewrite (beat logs one
# every hour, `audit.log_head`; `verify_audit` prints one); checking an anchor later shows
# whether the log still holds that entry as it was.


def head() -> tuple[int, str] | None:
    """The newest entry's (id, hash), or None for an empty log."""
    last = AuditEntry.objects.order_by("-id").values_list("id", "hash").first()
    return (int(last[0]), str(last[1])) if last else None


def anchor_text(anchor: tuple[int, str]) -> str:
    return f"{anchor[0]}:{anchor[1]}"


def parse_anchor(text: str) -> tuple[int, str]:
    """``ID:HASH`` (as `anchor_text` writes it); ValueError when it is not one."""
    ident, sep, digest = text.strip().partition(":")
    if not sep or not ident.isdigit() or len(digest) != 64:
        raise ValueError(f"{text!r} is not an anchor (ID:HASH, a 64-digit SHA-256 hash)")
    int(digest, 16)  # hexadecimal, or ValueError
    return int(ident), digest.lower()


def anchor_problem(anchor: tuple[int, str]) -> str | None:
    """Why the log no longer matches `anchor`, or None when its entry is there unchanged."""
    ident, digest = anchor
    stored = AuditEntry.objects.filter(id=ident).values_list("hash", flat=True).first()
    if stored is None:
        return (
            f"anchor {ident}: audit entry {ident} is gone; the log was cut back or the entry "
            "deleted"
        )
    if stored != digest:
        return (
            f"anchor {ident}: audit entry {ident} has another hash than when the anchor was "
            "taken; the log was rewritten up to it"
        )
    return None
