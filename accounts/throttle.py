"""Sign-in attempts, limited per username and per address.

Attempts are counted in Django's cache (Redis in production, so every server process sees the
same counts) before the password is checked, so a burst of parallel guesses cannot slip past
the limit. A successful sign-in takes its attempt back: the username's count is cleared and
the address's is lowered by one (not cleared: one account of one's own must not buy more
guesses at others'). So after ``SIGN_IN_FAILURES_PER_USERNAME`` failures for one username, or
``SIGN_IN_FAILURES_PER_IP`` from one address, within ``SIGN_IN_WINDOW`` seconds of the first,
sign-in is refused without checking the password until the window ends.
"""

from __future__ import annotations

import contextlib
import hashlib
import time
from dataclasses import dataclass

from django.conf import settings
from django.core.cache import cache

PREFIX = "signin"


def window() -> int:
    return int(settings.SIGN_IN_WINDOW)


def _key(kind: str, value: str) -> str:
    # Hashed: a username may hold characters a cache key must not, and the cache need not
    # keep them in clear.
    digest = hashlib.sha256(value.strip().lower().encode()).hexdigest()[:32]
    return f"{PREFIX}:{kind}:{digest}"


def _counters(username: str, ip: str | None) -> list[tuple[str, int, str]]:
    """(cache key, limit, what it limits) for this attempt."""
    counters = [
        (
            _key("user", username),
            int(settings.SIGN_IN_FAILURES_PER_USERNAME),
            "username",
        )
    ]
    if ip:
        counters.append((_key("ip", ip), int(settings.SIGN_IN_FAILURES_PER_IP), "address"))
    return counters


def _bump(key: str, seconds: int | None = None) -> tuple[int, float]:
    """Add one to the counter at `key`; the window (its expiry) starts at the first."""
    seconds = seconds or window()
    now = time.time()
    if cache.add(key, 1, timeout=seconds):
        cache.set(f"{key}:since", now, timeout=seconds)
        return 1, now
    try:
        count = int(cache.incr(key))  # atomic on Redis; the expiry stays the first one's
    except ValueError:  # expired between the two calls
        cache.set(key, 1, timeout=seconds)
        cache.set(f"{key}:since", now, timeout=seconds)
        return 1, now
    return count, float(cache.get(f"{key}:since") or now)


@dataclass(frozen=True)
class Refusal:
    """Sign-in is refused for now: too many attempts for the username or from the address."""

    by: str  # "username" or "address"
    retry_after: int  # seconds
    first: bool  # the first refusal in this window (worth an audit entry; the rest are not)

    @property
    def minutes(self) -> int:
        return max(1, -(-self.retry_after // 60))


def attempt(username: str, ip: str | None) -> Refusal | None:
    """Count a sign-in attempt; a refusal when the username or the address is over its limit
    (the password must then not be checked)."""
    refusal = None
    for key, limit, by in _counters(username, ip):
        count, since = _bump(key)
        if count > limit and refusal is None:
            left = int(since + window() - time.time()) + 1
            refusal = Refusal(by, max(1, min(left, window())), first=count == limit + 1)
    return refusal


def succeeded(username: str, ip: str | None) -> None:
    """The attempt signed in: clear the username's count, take one off the address's."""
    for key, _limit, by in _counters(username, ip):
        if by == "username":
            cache.delete_many([key, f"{key}:since"])
        else:
            with contextlib.suppress(ValueError):  # expired meanwhile
                cache.decr(key)


RESET_WINDOW = 60 * 60


def reset_allowed(email: str, ip: str | None) -> bool:
    """Count a password reset request; False past ``PASSWORD_RESETS_PER_EMAIL`` (3) for one
    address or ``PASSWORD_RESETS_PER_IP`` (10) from one client in an hour, so the reset form
    cannot be used to flood someone's mailbox."""
    per_email = int(settings.PASSWORD_RESETS_PER_EMAIL)
    per_ip = int(settings.PASSWORD_RESETS_PER_IP)
    allowed = _bump(_key("reset-email", email), RESET_WINDOW)[0] <= per_email
    if ip:
        allowed = _bump(_key("reset-ip", ip), RESET_WINDOW)[0] <= per_ip and allowed
    return allowed


def _sign_up_limit() -> int:
    return int(settings.SIGN_UPS_PER_IP)


def _guest_limit() -> int:
    return int(settings.GUESTS_PER_IP)


def _take(kind: str, ip: str | None, limit: int) -> bool:
    """Count one more of `kind` from `ip` first (an atomic increment), then compare: of any
    number of parallel requests, at most `limit` an hour see True. A refused request stays
    counted, like a refused sign-in."""
    if not ip:
        return True
    return _bump(_key(kind, ip), RESET_WINDOW)[0] <= limit


def take_sign_up(ip: str | None) -> bool:
    """Count an account about to be made from `ip`; False past ``SIGN_UPS_PER_IP`` (10) an
    hour, so a script cannot mint accounts (a guest turning into an account counts too)."""
    return _take("signup-ip", ip, _sign_up_limit())


def give_back_sign_up(ip: str | None) -> None:
    """The account counted by `take_sign_up` was not made after all (its save failed)."""
    if ip:
        with contextlib.suppress(ValueError):  # expired meanwhile
            cache.decr(_key("signup-ip", ip))


def take_guest(ip: str | None) -> bool:
    """Count a guest player about to be made for `ip`; False past ``GUESTS_PER_IP`` (30) an
    hour, so a script cannot fill the user table by clearing its cookies."""
    return _take("guest-ip", ip, _guest_limit())
