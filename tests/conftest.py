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


@pytest.fixture(autouse=True)
def _no_pass_pause(settings: Any) -> None:
    """Players and bots act at once after a roll no pawn could use, and a player who missed
    two party turns gets no window to take the seat back, except where a test sets them
    (tests/realtime/test_promises.py)."""
    settings.LUDO_PASS_PAUSE = 0.0
    settings.LUDO_RECLAIM_SECONDS = 0.0
