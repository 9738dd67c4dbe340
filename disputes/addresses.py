"""The addresses an account was seen at (its audit entries and its seats), and the other
accounts seen at the same ones, with when: for conflict-of-interest checks, the player record
and the review page, the one source of both (issue 30: the two pages read them the same way).
Staff only.

The server's own loopback address is shown like any other (a local `make run`, or a proxy on
the same machine, gives it to every player), marked `local`: it tells little about who was
there. The conflict-of-interest checks leave it out (`local=False`), or every moderator of a
local site would be conflicted with everyone."""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from datetime import datetime

from django.db.models import Count, Max, Min

from accounts.models import User
from audit import actions
from audit.models import AuditEntry
from games.models import Seat, spoken_code


class Address(str):
    """One address as the pages show it (the text itself), and whether it is the server's own."""

    __slots__ = ()

    @property
    def ip(self) -> str:
        return str(self)

    @property
    def local(self) -> bool:
        return is_local(str(self))


@dataclass(frozen=True)
class Seen:
    ip: str
    first: datetime
    last: datetime
    times: int

    @property
    def local(self) -> bool:
        return is_local(self.ip)


def _telling(ip: str) -> bool:
    """Whether an address says anything about who was there: not the server's own loopback
    (every request through a local proxy, or a test client, comes from it)."""
    try:
        parsed = ipaddress.ip_address(ip)
    except ValueError:
        return False
    return not (parsed.is_loopback or parsed.is_unspecified)


def is_local(ip: str) -> bool:
    """The server's own address (loopback, unspecified): shown, marked, never a conflict."""
    return not _telling(str(ip))


def _merge(rows: list[tuple[str, datetime, datetime, int]], local: bool) -> dict[str, Seen]:
    out: dict[str, Seen] = {}
    for ip, first, last, times in rows:
        ip = str(ip)
        if not local and not _telling(ip):
            continue
        was = out.get(ip)
        if was is not None:
            first, last, times = min(first, was.first), max(last, was.last), times + was.times
        out[ip] = Seen(ip, first, last, times)
    return out


def addresses_of(user_id: int, *, local: bool = False) -> dict[str, Seen]:
    """Every address the account was seen at: in its audit entries and on its seats (the
    server's own loopback too with `local`)."""
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
    return _merge(rows, local)


@dataclass(frozen=True)
class Shared:
    user_id: int
    username: str
    ip: str
    first: datetime  # the other account's first and last time at the address
    last: datetime

    @property
    def local(self) -> bool:
        return is_local(self.ip)


def sharing(user_id: int, ips: set[str] | None = None, *, local: bool = False) -> list[Shared]:
    """The other accounts seen at any of `user_id`'s addresses, each address with when (the
    server's own loopback too with `local`)."""
    if ips is None:
        ips = set(addresses_of(user_id, local=local))
    ips = {ip for ip in ips if local or _telling(ip)}
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


@dataclass(frozen=True)
class SameSides:
    """A match where the player and an opponent played from one address (the audit's
    "Same address on two sides", written when the second seat joined)."""

    code: str
    spoken: str
    ip: str
    others: list[str]  # the other accounts' usernames

    @property
    def local(self) -> bool:
        return is_local(self.ip)


def same_sides(user_id: int) -> list[SameSides]:
    """The matches whose audit says the player shared an address with another side."""
    rows = AuditEntry.objects.filter(action=actions.MATCH_SAME_IP).order_by("-id")[:2000]
    found: list[tuple[str, str, list[int]]] = []
    for entry in rows:
        users = [u for u in entry.extra_data.get("users", []) if u is not None]
        if user_id in users and entry.extra_data.get("code"):
            found.append((entry.extra_data["code"], str(entry.ip or ""), users))
    names = dict(
        User.objects.filter(pk__in={u for _, _, us in found for u in us}).values_list(
            "pk", "username"
        )
    )
    out: list[SameSides] = []
    seen: set[str] = set()
    for code, ip, users in found:
        if code in seen:
            continue
        seen.add(code)
        others = sorted(names[u] for u in users if u != user_id and u in names)
        out.append(SameSides(code, spoken_code(code), ip, others))
    return out
