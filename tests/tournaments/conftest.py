from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

import pytest

from accounts.models import User

_names = itertools.count()


@pytest.fixture
def make_users(db: Any) -> Callable[[int], list[User]]:
    def make(n: int) -> list[User]:
        return [
            User.objects.create_user(f"t{next(_names)}", password="pw-for-tests") for _ in range(n)
        ]

    return make
