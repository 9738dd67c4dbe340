"""Fair play tests: a fast password hasher, no waiting on bots."""

from __future__ import annotations

from typing import Any

import pytest


@pytest.fixture(autouse=True)
def _fast(settings: Any) -> None:
    """A fast password hasher (the real one takes ~0.3 s) and no waiting on bots. The turn
    clocks keep their real length: a test plays turns itself, and a clock of zero would time
    out the seat it is about to play (tests/fairplay/play.py)."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    settings.LUDO_BOT_DELAY = 0.0
