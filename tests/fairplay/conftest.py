"""Fair play tests: users from fresh addresses and a fast password hasher (the accounts
tests' helpers)."""

from __future__ import annotations

from typing import Any

import pytest


@pytest.fixture(autouse=True)
def _fast(settings: Any) -> None:
    """A fast password hasher (the real one takes ~0.3 s) and no waiting on clocks and bots."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    settings.LUDO_TIME_SCALE = 0.0
    settings.LUDO_BOT_DELAY = 0.0
