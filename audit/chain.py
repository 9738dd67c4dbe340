"""The hash chain: how an entry's hash is computed, and the check that names the first break.

``hash = sha256(prev_hash + canonical_json(content))`` where the content is the entry's
event time (ISO 8601, UTC, microseconds), action, actor id, ip, object type and id and
extra data; canonical JSON sorts keys and uses no spaces. An entry of a match's own chain
also covers its chain (``"chain": match id``), so it cannot be moved into another chain;
the global chain's content is as it always was.

Each chain links its own entries in id order: an entry's ``prev_hash`` is the hash of the
entry of the same chain stored just before it (`GENESIS` for a chain's first).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any

from .actions import MATCH_CHAIN_ANCHORED
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
    chain: int | None = None,
) -> dict[str, Any]:
    """What an entry's hash covers."""
    content = {
        "event_time": event_time.astimezone(UTC).isoformat(timespec="microseconds"),
        "action": action,
        "actor": actor_id,
        "ip": ip,
        "object_type": object_type,
        "object_id": object_id,
        "extra": extra_data,
    }
    if chain is not None:
        content["chain"] = int(chain)
    return content


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
            chain=entry.chain,
        ),
    )


def _chain_name(chain: int | None) -> str:
    return "the global chain" if chain is None else f"match {chain}'s chain"


def in_chain(chain: int | None) -> Any:
    """The entries of one chain (the global one for None)."""
    if chain is None:
        return AuditEntry.objects.filter(chain__isnull=True)
    return AuditEntry.objects.filter(chain=chain)


def problem(entry: AuditEntry, previous_hash: str, previous_id: int | None) -> str | None:
    """Why `entry` breaks its chain after the entry with `previous_hash`, or None."""
    if entry.prev_hash != previous_hash:
        after = (
            f"entry {previous_id}"
            if previous_id is not None
            else f"the start of {_chain_name(entry.chain)}"
        )
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
    """Why `entry` breaks its chain after the entry of that chain stored just before it."""
    before = (
        in_chain(entry.chain)
        .filter(id__lt=entry.pk)
        .order_by("-id")
        .values_list("id", "hash")
        .first()
    )
    previous_id, previous_hash = before if before else (None, GENESIS)
    return problem(entry, previous_hash, previous_id)


class Walk:
    """Checks entries in id order, each against the one before it in its own chain; counts
    the chains and collects the anchors (global ``match.chain_anchored`` entries) to check."""

    def __init__(self) -> None:
        self.last: dict[int | None, tuple[int, str]] = {}
        self.count = 0
        self.anchors: list[tuple[int, int, int, str]] = []  # (anchor id, chain, head id, hash)

    def step(self, entry: AuditEntry) -> str | None:
        before = self.last.get(entry.chain)
        reason = problem_at(entry) if before is None else problem(entry, before[1], before[0])
        if reason is not None:
            return reason
        self.last[entry.chain] = (entry.pk, entry.hash)
        self.count += 1
        if entry.chain is None and entry.action == MATCH_CHAIN_ANCHORED:
            extra = entry.extra_data if isinstance(entry.extra_data, dict) else {}
            try:
                anchored = (int(extra["chain"]), int(extra["head_id"]), str(extra["head"]))
            except (KeyError, TypeError, ValueError):
                return f"audit entry {entry.pk} ({entry.action}): it names no chain head"
            self.anchors.append((entry.pk, *anchored))
        return None

    @property
    def match_chains(self) -> int:
        return sum(1 for chain in self.last if chain is not None)


def chain_anchor_problems(anchors: Iterable[tuple[int, int, int, str]]) -> tuple[int, str] | None:
    """The first anchor (its entry's id, reason) whose match chain no longer holds the head it
    anchored, as it was; None when every one holds. An anchor shows a match chain cut back."""
    wanted = list(anchors)
    for start in range(0, len(wanted), 2000):
        part = wanted[start : start + 2000]
        stored = {
            ident: (chain, digest)
            for ident, chain, digest in AuditEntry.objects.filter(
                id__in=[head_id for _, _, head_id, _ in part]
            ).values_list("id", "chain", "hash")
        }
        for anchor_id, chain, head_id, digest in part:
            found = stored.get(head_id)
            if found is None:
                return anchor_id, (
                    f"audit entry {anchor_id} anchors match {chain}'s chain at entry {head_id}, "
                    "which is gone: the match's chain was cut back or the entry deleted"
                )
            if found != (chain, digest):
                return anchor_id, (
                    f"audit entry {anchor_id} anchors match {chain}'s chain at entry {head_id}, "
                    "which has changed since: the match's chain was rewritten up to it"
                )
    return None


def first_problem(entries: Iterable[AuditEntry] | None = None) -> tuple[int, str] | None:
    """The first entry (id, reason) where a chain breaks, or None when every chain holds.

    `entries` is a run of the log in id order (by default the whole log, whose anchors of
    match chains are checked too); the first entry of each chain in it is checked against the
    entry of its chain stored just before it.
    """
    if entries is None:
        return check_all()[1]
    walk = Walk()
    for entry in entries:
        reason = walk.step(entry)
        if reason is not None:
            return entry.pk, reason
    return None


def check_all() -> tuple[Walk, tuple[int, str] | None]:
    """Walk the whole log (every chain, every anchor); the walk's counts and the first
    problem, or None."""
    walk = Walk()
    for entry in AuditEntry.objects.order_by("id").iterator(chunk_size=2000):
        reason = walk.step(entry)
        if reason is not None:
            return walk, (entry.pk, reason)
    return walk, chain_anchor_problems(walk.anchors)


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


def head(chain: int | None = None) -> tuple[int, str] | None:
    """The newest entry's (id, hash) of a chain (the global one by default), or None."""
    last = in_chain(chain).order_by("-id").values_list("id", "hash").first()
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
