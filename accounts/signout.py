"""When each account last signed out, kept a while longer than a room socket's ticket lives
(`games.live.tickets`): a ticket issued before it no longer opens the player's seat
(`ludo_site.tickets_out`). In the cache, which every process shares (Redis in production)."""

from __future__ import annotations

import time
from typing import Any

from django.core.cache import cache

# Longer than any ticket is good for.
KEEP_SECONDS = 600


def _key(user_id: int) -> str:
    return f"accounts:signed-out:{user_id}"


def record(sender: Any, request: Any = None, user: Any = None, **kwargs: Any) -> None:
    """`user_logged_out`'s receiver (connected in `accounts.apps`)."""
    if user is not None and user.pk:
        cache.set(_key(user.pk), int(time.time()), KEEP_SECONDS)


def signed_out_at(user_id: int) -> int | None:
    """The second (Unix time) the account last signed out, if lately."""
    value = cache.get(_key(user_id))
    return int(value) if value is not None else None
