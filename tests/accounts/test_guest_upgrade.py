"""A guest who practised signs up: the guest's own user becomes the account, so the matches
played as a guest stay theirs and show on their profile."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from accounts.forms import TERMS_VERSION
from accounts.models import User
from audit.models import AuditEntry
from games import services
from games.models import Match, Status

from .conftest import PASSWORD, unique

pytestmark = pytest.mark.django_db


def practise(client: Client) -> tuple[User, Match]:
    """Play a practice match against a bot as a guest, to the end (the guest resigns)."""
    response = client.post("/play/computer/", {"ruleset": "classic", "players": "2"})
    assert response.status_code == 302
    match = Match.objects.get(code=response["Location"].split("/")[2])
    guest = match.host
    assert guest is not None and guest.username.startswith("guest-")
    assert not guest.has_usable_password()
    services.match_resign(match_id=match.pk, user=guest)
    match.refresh_from_db()
    assert match.status == Status.FINISHED
    return guest, match


def test_a_guest_signs_up_and_keeps_the_practice_match(client: Client) -> None:
    guest, match = practise(client)
    guest_name = guest.username
    # A guest's profile is theirs alone.
    assert Client().get(f"/players/{guest_name}/").status_code == 404
    assert client.get(f"/players/{guest_name}/").status_code == 200

    name = unique("kept")
    response = client.post(
        "/accounts/signup/",
        {
            "username": name,
            "password1": PASSWORD,
            "password2": PASSWORD,
            "terms": "on",
            "next": "/",
        },
    )
    assert response.status_code == 302
    user = User.objects.get(username=name)
    assert user.pk == guest.pk  # the same user, not a new one
    assert user.has_usable_password() and user.display_name == ""
    assert not User.objects.filter(username=guest_name).exists()
    assert match.seats.filter(user=user).exists()
    entry = AuditEntry.objects.filter(action="user.guest_upgraded").last()
    assert entry is not None and entry.actor_id == user.pk
    assert entry.extra_data == {"username": name, "guest": guest_name, "terms": TERMS_VERSION}

    html = Client().get(f"/players/{name}/").content.decode()  # public now
    assert f'href="/r/{match.code}/replay/"' in html
    assert "Practice · Classic, 2 players" in html
    # Signed in with the new password, from anywhere.
    other = Client(REMOTE_ADDR="10.1.2.3")
    assert (
        other.post("/accounts/login/", {"username": name, "password": PASSWORD}).status_code == 302
    )


def test_a_refused_sign_up_leaves_the_guest_as_it_was(client: Client) -> None:
    guest, _ = practise(client)
    html = client.post(
        "/accounts/signup/",
        {"username": unique("bad"), "password1": "short", "password2": "short", "terms": "on"},
    ).content.decode()
    assert "too short" in html
    assert f"Playing as <strong><bdi>{guest.display_name}</bdi></strong>" in html
    guest.refresh_from_db()
    assert guest.username.startswith("guest-") and not guest.has_usable_password()


def test_a_new_sign_up_is_a_new_user_and_is_audited(client: Client) -> None:
    name = unique("new")
    client.post(
        "/accounts/signup/",
        {
            "username": name,
            "email": "n@example.com",
            "password1": PASSWORD,
            "password2": PASSWORD,
            "terms": "on",
        },
    )
    user = User.objects.get(username=name)
    assert user.email == "n@example.com"
    assert AuditEntry.objects.filter(action="user.signed_up", actor_id=user.pk).exists()
    # One account per email address (reset links go to one account).
    html = (
        Client()
        .post(
            "/accounts/signup/",
            {
                "username": unique("dup"),
                "email": "N@example.com",
                "password1": PASSWORD,
                "password2": PASSWORD,
                "terms": "on",
            },
        )
        .content.decode()
    )
    assert "Another account uses that email address." in html


def test_signing_up_goes_to_next_only_on_this_site(client: Client) -> None:
    response = client.post(
        "/accounts/signup/",
        {
            "username": unique("nx"),
            "password1": PASSWORD,
            "password2": PASSWORD,
            "terms": "on",
            "next": "https://evil.example.com/",
        },
    )
    assert response["Location"] == "/"


def test_the_sign_in_page_tells_a_guest_how_to_keep_their_games(client: Client) -> None:
    assert "move to your account" not in client.get("/accounts/login/").content.decode()
    guest, _ = practise(client)
    html = client.get("/accounts/login/").content.decode()
    assert f"You are playing as <bdi>{guest.display_name}</bdi>." in html
    assert "move to your account" in html


def test_a_guest_who_signs_in_to_an_existing_account_brings_the_games(
    client: Client, make_user: Any
) -> None:
    account = make_user("has")
    guest, match = practise(client)
    # A friend room the guest hosts, where the account sits too: that seat stays the guest's.
    both = services.match_create(ruleset="classic", players=2, mode="friendly", host=guest)
    services.match_join(code=both.code, user=account)
    response = client.post(
        "/accounts/login/", {"username": account.username, "password": PASSWORD}, follow=True
    )
    assert response.redirect_chain and "games as a guest are now on your account" in (
        response.content.decode()
    )
    assert match.seats.filter(user=account).count() == 1
    assert Match.objects.get(pk=match.pk).host_id == account.pk
    assert (
        both.seats.filter(user=guest).count() == 1 and both.seats.filter(user=account).count() == 1
    )
    assert Match.objects.get(pk=both.pk).host_id == guest.pk
    entry = AuditEntry.objects.filter(action="user.guest_merged").last()
    assert entry is not None and entry.actor_id == account.pk
    assert entry.extra_data == {"guest": guest.username, "seats": 1, "matches": [match.pk]}
    html = client.get(f"/players/{account.username}/").content.decode()
    assert f'href="/r/{match.code}/replay/"' in html


def test_signing_in_without_a_guest_session_moves_nothing(client: Client, make_user: Any) -> None:
    account = make_user("plain")
    client.post("/accounts/login/", {"username": account.username, "password": PASSWORD})
    assert not AuditEntry.objects.filter(action="user.guest_merged").exists()
