"""Accounts tests: users, clients from addresses of their own, and finished matches.

Sign-in counts live in the cache, which is Redis when REDIS_URL is set and outlives a test
run; every test therefore signs in from a fresh address with fresh usernames.
"""

from __future__ import annotations

import itertools
import random
import uuid
from collections.abc import Callable
from typing import Any

import pytest
from django.test import Client

from accounts.models import User

PASSWORD = "a-long-pass-42"
_names = itertools.count()


def unique(prefix: str) -> str:
    return f"{prefix}{next(_names)}x{uuid.uuid4().hex[:6]}"


def fresh_ip() -> str:
    return f"10.{random.randrange(256)}.{random.randrange(256)}.{random.randrange(1, 255)}"


@pytest.fixture
def client() -> Client:
    """The test client, from an address no other test uses."""
    return Client(REMOTE_ADDR=fresh_ip())


@pytest.fixture
def make_user(db: Any) -> Callable[..., User]:
    def make(prefix: str = "p", **fields: Any) -> User:
        return User.objects.create_user(unique(prefix), password=PASSWORD, **fields)

    return make


@pytest.fixture(autouse=True)
def _no_delays(settings: Any) -> None:
    """No waiting on clocks and bots; a fast password hasher (the real one takes ~0.3 s)."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    settings.LUDO_TIME_SCALE = 0.0
    settings.LUDO_BOT_DELAY = 0.0
