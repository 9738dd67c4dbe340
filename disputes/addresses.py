"""The addresses an account was seen at (its audit entries and its seats), and the other
accounts seen at the same ones, with when: for conflict-of-interest checks and the player
record. Staff only."""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from datetime import datetime

from django.db.models import Count, Max, Min

from accounts.models import User
from audit.models import AuditEntry
from games.models import Seat


@dataclass(frozen=True)
class Seen:
    ip: str
    first: datetime
    last: datetime
    times: int


def _telling(ip: str) -> bool:
    """Whether an address says anything about who was there: not the server's own loopback
    (every request through a local proxy, or a test client, comes from it)."""
    try:
        parsed = ipaddress.ip_address(ip)
    except ValueError:
        return False
    return not (parsed.is_loopback or parsed.is_unspecified)


def _merge(rows: list[tuple[str, datetime, datetime, int]]) -> dict[str, Seen]:
    out: dict[str, Seen] = {}
    for ip, first, last, times in rows:
        ip = str(ip)
        if not _telling(ip):
            continue
        was = out.get(ip)
        if was is not None:
            first, last, times = min(first, was.first), max(last, was.last), times + was.times
        out[ip] = Seen(ip, first, last, times)
    return out


def addresses_of(user_id: int) -> dict[str, Seen]:
    """Every address the account was seen at: in its audit entries and on its seats."""
    audited = (
        AuditEntry.objects.filter(actor_id=user_id, ip__isnull=False)
        .values("ip")
        .annotate(first=Min("event_time"), last=Max("event_time"), times=Count("id"))
        .order_by()
    )
    seated = (
        Seat.objects.filter(user_id=user_id, ip__isnull=False)
        .values("ip")
        .annotate(first=Min("joined_at"), last=Max("joined_at"), times=Count("id"))
        .order_by()
    )
    rows = [(r["ip"], r["first"], r["last"], r["times"]) for r in [*audited, *seated]]
    return _merge(rows)


@dataclass(frozen=True)
class Shared:
    user_id: int
    username: str
    ip: str
    first: datetime  # the other account's first and last time at the address
    last: datetime


def sharing(user_id: int, ips: set[str] | None = None) -> list[Shared]:
    """The other accounts seen at any of `user_id`'s addresses, each address with when."""
    ips = {ip for ip in (set(addresses_of(user_id)) if ips is None else ips) if _telling(ip)}
    if not ips:
        return []
    audited = (
        AuditEntry.objects.filter(ip__in=ips, actor_id__isnull=False)
        .exclude(actor_id=user_id)
        .values("actor_id", "ip")
        .annotate(first=Min("event_time"), last=Max("event_time"))
        .order_by()
    )
    seated = (
        Seat.objects.filter(ip__in=ips, user_id__isnull=False)
        .exclude(user_id=user_id)
        .values("user_id", "ip")
        .annotate(first=Min("joined_at"), last=Max("joined_at"))
        .order_by()
    )
    found: dict[tuple[int, str], tuple[datetime, datetime]] = {}
    for uid, ip, first, last in [
        *((r["actor_id"], str(r["ip"]), r["first"], r["last"]) for r in audited),
        *((r["user_id"], str(r["ip"]), r["first"], r["last"]) for r in seated),
    ]:
        was = found.get((uid, ip))
        found[(uid, ip)] = (min(first, was[0]), max(last, was[1])) if was else (first, last)
    names = dict(User.objects.filter(pk__in={u for u, _ in found}).values_list("pk", "username"))
    out = [
        Shared(uid, names.get(uid, str(uid)), ip, first, last)
        for (uid, ip), (first, last) in found.items()
        if uid in names
    ]
    out.sort(key=lambda s: (s.username, s.ip))
    return out
