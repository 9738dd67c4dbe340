"""Passwords: sign-up and change check Django's validators; change needs the old password;
a reset goes by email (the console backend by default; Django's test outbox here)."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from django.conf import settings
from django.core import mail
from django.test import Client

from accounts.models import User
from audit.models import AuditEntry

from .conftest import PASSWORD, fresh_ip, unique

pytestmark = pytest.mark.django_db

NEW = "another-long-pass-77"


def signed_in(client: Client) -> str:
    return client.get("/").content.decode()


def test_the_site_uses_djangos_validators() -> None:
    names = [v["NAME"].rsplit(".", 1)[1] for v in settings.AUTH_PASSWORD_VALIDATORS]
    assert names == [
        "UserAttributeSimilarityValidator",
        "MinimumLengthValidator",
        "CommonPasswordValidator",
        "NumericPasswordValidator",
    ]


@pytest.mark.parametrize(
    ("password", "says"),
    [
        ("short1", "too short"),
        ("password123", "too common"),
        ("4938271650", "entirely numeric"),
        ("{username}", "too similar"),
    ],
)
def test_sign_up_refuses_a_weak_password(client: Client, password: str, says: str) -> None:
    name = unique("weak")
    password = password.format(username=name)
    html = client.post(
        "/accounts/signup/",
        {"username": name, "password1": password, "password2": password, "terms": "on"},
    ).content.decode()
    assert says in html
    assert not User.objects.filter(username=name).exists()


def test_change_password(client: Client, make_user: Callable[..., User]) -> None:
    user = make_user("ch")
    client.force_login(user)
    page = client.get("/accounts/password/")
    assert page.status_code == 200 and 'name="old_password"' in page.content.decode()

    wrong = client.post(
        "/accounts/password/",
        {"old_password": "not-it-at-all", "new_password1": NEW, "new_password2": NEW},
    )
    assert "Your old password was entered incorrectly" in wrong.content.decode()
    weak = client.post(
        "/accounts/password/",
        {"old_password": PASSWORD, "new_password1": "12345678", "new_password2": "12345678"},
    )
    assert "too common" in weak.content.decode()
    user.refresh_from_db()
    assert user.check_password(PASSWORD)

    done = client.post(
        "/accounts/password/",
        {"old_password": PASSWORD, "new_password1": NEW, "new_password2": NEW},
    )
    assert done.status_code == 302 and done["Location"] == "/accounts/password/done/"
    user.refresh_from_db()
    assert user.check_password(NEW) and not user.check_password(PASSWORD)
    # Still signed in on this device (the session hash is updated).
    assert f"Signed in as <strong><bdi>{user}</bdi></strong>" in signed_in(client)
    entry = AuditEntry.objects.filter(action="user.password_changed").last()
    assert entry is not None and entry.actor_id == user.pk

    fresh = Client(REMOTE_ADDR="10.9.9.9")
    refused = fresh.post("/accounts/login/", {"username": user.username, "password": PASSWORD})
    assert refused.status_code == 200
    ok = fresh.post("/accounts/login/", {"username": user.username, "password": NEW})
    assert ok.status_code == 302


def test_change_password_needs_an_account(client: Client) -> None:
    assert client.get("/accounts/password/")["Location"].startswith("/accounts/login/")
    client.post("/play/computer/", {"ruleset": "classic", "players": "2"})  # now a guest
    response = client.get("/accounts/password/")
    assert response.status_code == 302 and response["Location"].startswith("/accounts/signup/")


def test_reset_password_by_email(client: Client, make_user: Callable[..., User]) -> None:
    # Unique addresses: reset requests are counted per address (in Redis, across runs).
    email = f"{unique('rs')}@example.com"
    user = make_user("rs", email=email)
    make_user("other", email=f"{unique('other')}@example.com")
    form = client.get("/accounts/login/").content.decode()
    assert 'href="/accounts/password/reset/"' in form

    sent = client.post("/accounts/password/reset/", {"email": email.upper()})
    assert sent["Location"] == "/accounts/password/reset/sent/"
    assert len(mail.outbox) == 1
    message = mail.outbox[0]
    assert message.to == [email]
    assert message.subject == "Reset your Ludo Online password"
    link = re.search(r"http://testserver(/accounts/password/reset/\S+/\S+/)", message.body)
    assert link, message.body

    # The link leads to a form (Django swaps the token into the session first).
    page = client.get(link.group(1), follow=True)
    assert "Choose a new password" in page.content.decode()
    form_url = page.redirect_chain[-1][0]
    weak = client.post(form_url, {"new_password1": "abc", "new_password2": "abc"})
    assert "too short" in weak.content.decode()
    done = client.post(form_url, {"new_password1": NEW, "new_password2": NEW})
    assert done["Location"] == "/accounts/password/reset/done/"
    user.refresh_from_db()
    assert user.check_password(NEW)
    assert AuditEntry.objects.filter(action="user.password_reset", actor_id=user.pk).exists()

    # Used once: the same link no longer works.
    again = client.get(link.group(1), follow=True).content.decode()
    assert "This link does not work" in again


def test_reset_for_an_unknown_address_sends_nothing_and_says_the_same(client: Client) -> None:
    sent = client.post("/accounts/password/reset/", {"email": "nobody@example.com"})
    assert sent["Location"] == "/accounts/password/reset/sent/"
    assert mail.outbox == []


def test_account_page_edits_name_and_email(client: Client, make_user: Callable[..., User]) -> None:
    taken = make_user("t", email="taken@example.com")
    user = make_user("ac")
    client.force_login(user)
    assert 'href="/accounts/password/"' in client.get("/accounts/").content.decode()
    clash = client.post("/accounts/", {"display_name": "Ac", "email": "TAKEN@example.com"})
    assert "Another account uses that email address." in clash.content.decode()
    assert taken.email == "taken@example.com"
    saved = client.post("/accounts/", {"display_name": "Ac", "email": "ac@example.com"})
    assert saved.status_code == 302
    user.refresh_from_db()
    assert (user.display_name, user.email) == ("Ac", "ac@example.com")


def test_reset_requests_are_limited_per_address(make_user: Callable[..., User]) -> None:
    user = make_user("fl", email=f"{unique('fl')}@example.com")
    for _ in range(5):
        client = Client(REMOTE_ADDR=fresh_ip())
        sent = client.post("/accounts/password/reset/", {"email": user.email})
        assert sent["Location"] == "/accounts/password/reset/sent/"  # the same answer
    assert len(mail.outbox) == 3  # three an hour for one address
