"""``"bots"`` on ``POST /api/matches``: a list of corners or an object from corners to levels;
anything else is a coded 400 (a null corner gave a 500)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.test import Client

from accounts.models import User


@pytest.fixture
def api_user(db: Any) -> Client:
    user = User.objects.create(username="bots-poke")
    client = Client()
    client.force_login(user)
    return client


@pytest.mark.parametrize(
    "bots",
    [[None, 2], [1, None], ["x"], [True], {"x": "easy"}, {"1": 3}, {"1": ["easy"]}, "easy", 3],
)
def test_bad_bots_are_a_coded_400(api_user: Client, bots: Any) -> None:
    body = {"ruleset": "classic", "players": 4, "mode": "practice", "bots": bots}
    response = api_user.post("/api/matches", json.dumps(body), content_type="application/json")
    assert response.status_code == 400, response.content
    assert response.json()["code"] == "bad_request"


@pytest.mark.parametrize("bots", [[1, 2, 3], {"1": "easy", "2": None, "3": "hard"}])
def test_good_bots_open_the_match(api_user: Client, bots: Any) -> None:
    body = {"ruleset": "classic", "players": 4, "mode": "practice", "bots": bots}
    response = api_user.post("/api/matches", json.dumps(body), content_type="application/json")
    assert response.status_code == 201, response.content
