"""Sign-in: attempts limited per username and per address, in Django's cache; each attempt,
failure and refusal audited."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest
from django.test import Client

from accounts import throttle
from accounts.models import User
from audit.models import AuditEntry

from .conftest import PASSWORD, fresh_ip, unique

pytestmark = pytest.mark.django_db

LIMITED = "Too many failed sign-ins"


def sign_in(client: Client, username: str, password: str) -> tuple[int, str]:
    response = client.post("/accounts/login/", {"username": username, "password": password})
    return response.status_code, response.content.decode()


def test_sign_in_and_out_are_audited(client: Client, make_user: Callable[..., User]) -> None:
    user = make_user("in")
    ip = client.defaults["REMOTE_ADDR"]
    assert sign_in(client, user.username, PASSWORD)[0] == 302
    entry = AuditEntry.objects.filter(action="user.signed_in").last()
    assert entry is not None and (entry.actor_id, entry.ip) == (user.pk, ip)
    client.post("/accounts/logout/")
    assert AuditEntry.objects.filter(action="user.signed_out", actor_id=user.pk).exists()


def test_a_wrong_password_says_so_and_is_audited(
    client: Client, make_user: Callable[..., User]
) -> None:
    user = make_user("wr")
    status, html = sign_in(client, user.username, "wrong-password")
    assert status == 200
    assert "That username and password do not match an account" in html
    entry = AuditEntry.objects.filter(action="user.sign_in_failed").last()
    assert entry is not None
    assert entry.actor_id == user.pk and entry.extra_data == {"username": user.username}
    sign_in(client, unique("no-such-player"), "whatever")
    entry = AuditEntry.objects.filter(action="user.sign_in_failed").last()
    assert entry is not None and entry.actor_id is None


def test_five_failures_for_a_username_lock_it_until_the_window_ends(
    make_user: Callable[..., User], settings: Any
) -> None:
    settings.SIGN_IN_WINDOW = 4  # room for six sign-ins on a busy machine
    user = make_user("lk")
    for _ in range(5):
        # From different addresses: the username's own limit is what stops this.
        status, html = sign_in(Client(REMOTE_ADDR=fresh_ip()), user.username, "guess")
        assert status == 200 and LIMITED not in html
    elsewhere = Client(REMOTE_ADDR=fresh_ip())
    status, html = sign_in(elsewhere, user.username, PASSWORD)  # even the right password
    assert status == 200
    assert f"{LIMITED} for this account. Try again in 1 minute" in html
    limited = AuditEntry.objects.filter(action="user.sign_in_limited").last()
    assert limited is not None and limited.actor_id == user.pk
    assert limited.extra_data == {"username": user.username, "by": "username"}
    # Another account is not affected.
    other = make_user("ok")
    assert sign_in(elsewhere, other.username, PASSWORD)[0] == 302

    time.sleep(4.1)  # the window ends: the count is gone
    assert sign_in(Client(REMOTE_ADDR=fresh_ip()), user.username, PASSWORD)[0] == 302


def test_usernames_are_counted_without_case(make_user: Callable[..., User]) -> None:
    user = make_user("cs")
    for _ in range(5):
        sign_in(Client(REMOTE_ADDR=fresh_ip()), user.username.upper(), "guess")
    status, html = sign_in(Client(REMOTE_ADDR=fresh_ip()), user.username, PASSWORD)
    assert LIMITED in html and status == 200


def test_a_success_clears_the_usernames_failures(
    client: Client, make_user: Callable[..., User]
) -> None:
    user = make_user("cl")
    for _ in range(4):
        sign_in(client, user.username, "guess")
    assert sign_in(client, user.username, PASSWORD)[0] == 302
    client.post("/accounts/logout/")
    for _ in range(4):
        assert LIMITED not in sign_in(client, user.username, "guess")[1]
    assert sign_in(client, user.username, PASSWORD)[0] == 302


def test_one_address_guessing_many_usernames_is_stopped(
    client: Client, make_user: Callable[..., User], settings: Any
) -> None:
    settings.SIGN_IN_FAILURES_PER_IP = 6
    victim = make_user("vi")
    for n in range(6):
        assert LIMITED not in sign_in(client, unique(f"nobody{n}"), "guess")[1]
    status, html = sign_in(client, victim.username, PASSWORD)
    assert status == 200 and f"{LIMITED} for this network address" in html
    entry = AuditEntry.objects.filter(action="user.sign_in_limited").last()
    assert entry is not None and entry.extra_data["by"] == "address"
    # The same person from another address is fine.
    assert sign_in(Client(REMOTE_ADDR=fresh_ip()), victim.username, PASSWORD)[0] == 302


def test_a_burst_cannot_slip_past_the_count(make_user: Callable[..., User]) -> None:
    """Attempts are counted before the password is checked: the sixth is refused even if
    the first five have not failed yet."""
    user = make_user("bu")
    ip = fresh_ip()
    assert [throttle.attempt(user.username, ip) for _ in range(5)] == [None] * 5
    refusal = throttle.attempt(user.username, ip)
    assert refusal is not None and refusal.by == "username"
    assert 0 < refusal.retry_after <= throttle.window()


def test_the_address_behind_trusted_proxies(settings: Any) -> None:
    from django.test import RequestFactory

    from accounts.addresses import client_ip

    request = RequestFactory().get(
        "/", REMOTE_ADDR="10.0.0.1", HTTP_X_FORWARDED_FOR="1.2.3.4, 203.0.113.7"
    )
    assert client_ip(request) == "10.0.0.1"  # no proxy trusted: the header is ignored
    settings.TRUSTED_PROXIES = 1
    assert client_ip(request) == "203.0.113.7"
    settings.TRUSTED_PROXIES = 2
    assert client_ip(request) == "1.2.3.4"
    bad = RequestFactory().get("/", REMOTE_ADDR="not-an-ip")
    settings.TRUSTED_PROXIES = 0
    assert client_ip(bad) is None


def test_refusals_are_audited_once_per_window(make_user: Callable[..., User]) -> None:
    user = make_user("fl")
    for _ in range(5):
        sign_in(Client(REMOTE_ADDR=fresh_ip()), user.username, "guess")
    for _ in range(4):
        assert LIMITED in sign_in(Client(REMOTE_ADDR=fresh_ip()), user.username, "guess")[1]
    limited = AuditEntry.objects.filter(action="user.sign_in_limited", actor_id=user.pk)
    assert limited.count() == 1
    failed = AuditEntry.objects.filter(action="user.sign_in_failed", actor_id=user.pk)
    assert failed.count() == 5  # refused attempts check no password, so none failed


def test_the_admin_sign_in_is_limited_too(client: Client, make_user: Callable[..., User]) -> None:
    staff = make_user("st", is_staff=True, is_superuser=True)
    for _ in range(5):
        response = client.post(
            "/admin/login/?next=/admin/", {"username": staff.username, "password": "guess"}
        )
        assert "staff account" in response.content.decode()
    response = client.post(
        "/admin/login/?next=/admin/", {"username": staff.username, "password": PASSWORD}
    )
    assert response.status_code == 200 and LIMITED in response.content.decode()
    plain = make_user("pl")
    other = Client(REMOTE_ADDR=fresh_ip())
    response = other.post("/admin/login/", {"username": plain.username, "password": PASSWORD})
    assert "staff account" in response.content.decode()  # not staff: refused, as before
    ok = Client(REMOTE_ADDR=fresh_ip())
    assert (
        ok.post(
            "/admin/login/",
            {"username": make_user("s2", is_staff=True).username, "password": PASSWORD},
        ).status_code
        == 302
    )
