"""Disputes show in the admin read-only: only the dispute services write them."""

from __future__ import annotations

from typing import Any

from django.test import Client

from accounts.models import User


def test_disputes_admin_is_read_only(db: Any) -> None:
    boss = User.objects.create_superuser("boss", password="pw-for-tests")
    client = Client()
    client.force_login(boss)
    assert client.get("/admin/disputes/dispute/").status_code == 200
    assert client.get("/admin/disputes/dispute/add/").status_code == 403
