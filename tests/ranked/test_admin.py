"""Ratings and queue entries are visible to staff in the admin, and cannot be edited there."""

from __future__ import annotations

from typing import Any

from django.test import Client

from accounts.models import User
from ranked.models import Rating


def test_admin_lists_ratings_and_entries_read_only(db: Any) -> None:
    boss = User.objects.create_superuser("boss", password="pw-for-tests")
    player = User.objects.create_user("pat", password="pw-for-tests")
    rating = Rating.objects.create(user=player, queue="duel", mu=27.0, sigma=7.0, ordinal=6.0)
    client = Client()
    client.force_login(boss)
    page = client.get("/admin/ranked/rating/")
    assert page.status_code == 200 and b"pat" in page.content
    assert client.get("/admin/ranked/entry/").status_code == 200
    assert client.get("/admin/ranked/rating/add/").status_code == 403
    client.post(f"/admin/ranked/rating/{rating.pk}/change/", {"mu": "99", "sigma": "1"})
    rating.refresh_from_db()
    assert rating.mu == 27.0
