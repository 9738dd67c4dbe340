"""New accounts are limited per address, so a script cannot mint them."""

from __future__ import annotations

from typing import Any

from django.test import Client

from accounts.models import User

from .conftest import PASSWORD, fresh_ip, unique


def sign_up(client: Client, name: str) -> Any:
    return client.post(
        "/accounts/signup/",
        {"username": name, "password1": PASSWORD, "password2": PASSWORD, "terms": "on"},
    )


def test_a_third_account_from_one_address_in_an_hour_is_refused(db: Any, settings: Any) -> None:
    settings.SIGN_UPS_PER_IP = 2
    ip = fresh_ip()
    names = [unique("new") for _ in range(3)]
    for name in names[:2]:
        assert sign_up(Client(REMOTE_ADDR=ip), name).status_code == 302
    refused = sign_up(Client(REMOTE_ADDR=ip), names[2])
    assert refused.status_code == 429
    assert "Too many new accounts from your address" in refused.content.decode()
    assert not User.objects.filter(username=names[2]).exists()
    # Another address is not held back.
    assert sign_up(Client(REMOTE_ADDR=fresh_ip()), names[2]).status_code == 302
