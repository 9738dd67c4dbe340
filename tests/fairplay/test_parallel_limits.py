"""The sign-up and guest limits hold against requests fired in parallel (security review,
issue 33: 20 simultaneous sign-ups from one address made 19 accounts against a limit of 10).
The count is taken first, atomically, then compared (`accounts.throttle.take_sign_up`,
`take_guest`). Real threads, each with its own database connection: with DATABASE_URL and
REDIS_URL set, PostgreSQL and the Redis cache, as in production."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import pytest
from django.conf import settings as django_settings
from django.db import connection
from django.test import Client

from accounts.models import GUEST_PREFIX, User
from tests.accounts.conftest import PASSWORD, fresh_ip, unique

pytestmark = [
    pytest.mark.skipif(
        "postgresql" not in django_settings.DATABASES["default"]["ENGINE"],
        reason="parallel writers need PostgreSQL (SQLite locks the table)",
    ),
    pytest.mark.django_db(transaction=True),
]


def in_parallel(count: int, request: Callable[[int], int]) -> list[int]:
    """Call `request(i)` for i < `count` in as many threads, released together; the status
    codes."""
    start = threading.Barrier(count)
    codes: list[int] = [0] * count
    failures: list[BaseException] = []

    def run(i: int) -> None:
        try:
            start.wait(timeout=60)
            codes[i] = request(i)
        except BaseException as error:  # reported below, not lost in the thread
            failures.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not failures, failures
    assert not any(t.is_alive() for t in threads)
    return codes


def test_parallel_sign_ups_from_one_address_stop_at_the_limit(settings: Any) -> None:
    settings.SIGN_UPS_PER_IP = 10
    ip = fresh_ip()
    names = [unique("par") for _ in range(20)]

    def sign_up(i: int) -> int:
        data = {"username": names[i], "password1": PASSWORD, "password2": PASSWORD}
        return int(
            Client(REMOTE_ADDR=ip).post("/accounts/signup/", {**data, "terms": "on"}).status_code
        )

    codes = in_parallel(20, sign_up)
    made = User.objects.filter(username__in=names).count()
    assert made == 10, (made, sorted(codes))
    assert sorted(codes) == [302] * 10 + [429] * 10


def test_parallel_guests_from_one_address_stop_at_the_limit(settings: Any) -> None:
    settings.GUESTS_PER_IP = 6
    ip = fresh_ip()
    before = User.objects.filter(username__startswith=GUEST_PREFIX).count()

    def practise(_i: int) -> int:
        form = {"ruleset": "classic", "players": 2}
        return int(Client(REMOTE_ADDR=ip).post("/play/computer/", form).status_code)

    in_parallel(16, practise)
    made = User.objects.filter(username__startswith=GUEST_PREFIX).count() - before
    assert made == 6
