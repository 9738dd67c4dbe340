from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

import pytest

from accounts.models import User

_names = itertools.count()


@pytest.fixture
def make_user(db: Any) -> Callable[..., User]:
    def make(name: str | None = None) -> User:
        return User.objects.create_user(name or f"player{next(_names)}", password="pw-for-tests")

    return make


@pytest.fixture
def host(make_user: Callable[..., User]) -> User:
    return make_user("host")


@pytest.fixture(autouse=True)
def _no_delays(settings: Any) -> None:
    """Deadlines fall due at once, so tests can fire them without waiting."""
    settings.LUDO_TIME_SCALE = 0.0
    settings.LUDO_BOT_DELAY = 0.0
