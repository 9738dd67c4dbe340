from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth.models import Group

from accounts.models import User
from disputes.models import MODERATORS

_names = itertools.count()


@pytest.fixture
def make_user(db: Any) -> Callable[..., User]:
    def make(name: str | None = None) -> User:
        return User.objects.create_user(name or f"d{next(_names)}", password="pw-for-tests")

    return make


@pytest.fixture
def moderator(make_user: Callable[..., User]) -> User:
    """Staff in the moderators group (made by a data migration; a transactional test's
    flush removes it, so it is made again where needed)."""
    user = make_user("moderator")
    user.is_staff = True
    user.save()
    user.groups.add(Group.objects.get_or_create(name=MODERATORS)[0])
    return user
