"""Settings every test shares."""

from __future__ import annotations

from typing import Any

import pytest


@pytest.fixture(autouse=True)
def _many_sign_ups(settings: Any) -> None:
    """The test client signs up from 127.0.0.1 again and again, and with REDIS_URL the counts
    outlive a run: the sign-up limit is lifted except where a test sets it
    (tests/accounts/test_sign_up_limit.py)."""
    settings.SIGN_UPS_PER_IP = 10**6
    # Likewise the guests per address and the rooms per player (tests/test_limits.py).
    settings.GUESTS_PER_IP = 10**6
    settings.ROOMS_WAITING_PER_PLAYER = 10**6
    settings.ROOMS_PER_PLAYER_HOUR = 10**6
