"""The rules page and its worked examples; sign up, sign in and sign out."""

from __future__ import annotations

import json
import re

import pytest
from django.test import Client

from accounts.models import User
from games.engine import RULESETS
from games.web.rules_page import board_config, examples

pytestmark = pytest.mark.django_db


def _json_script(html: str, element_id: str) -> object:
    found = re.search(
        rf'<script id="{element_id}" type="application/json">(.*?)</script>', html, re.S
    )
    assert found, f"no {element_id} on the page"
    return json.loads(found.group(1))


# ---------------------------------------------------------------------------- rules


def test_rules_page_shows_every_preset_and_its_examples(client: Client) -> None:
    html = client.get("/rules/").content.decode()
    for title in ("Classic", "Family", "Duel", "Mensch", "Party"):
        assert f">{title}</h2>" in html
    data = _json_script(html, "rules-data")
    assert isinstance(data, dict) and set(data) == set(RULESETS)
    for name in RULESETS:
        assert len(data[name]) == len(examples(name)) >= 2
        for ex in data[name]:
            assert ex["board"]["size"] == RULESETS[name].track_len
    # The family worked examples of docs/rules.md, with the engine's words.
    assert "Red captures Green&#x27;s pawn 1: back to the yard" in html
    assert "no pawn is out, and only a 6 brings one out of the yard" in html
    assert "six number 3 in a row is forfeited" in html


def test_worked_examples_follow_the_engine() -> None:
    family = {ex.title: ex for ex in examples("family")}
    lone = family["Red lands on square 20, on Green's lone pawn"].frames[-1].snapshot
    assert lone["pawns"][0][0] == 20 and lone["pawns"][1][0] == -1
    pair = family["Two Green pawns on square 20: no capture, no block"].frames[-1].snapshot
    assert pair["pawns"][0][0] == 20 and pair["pawns"][1][:2] == [7, 7]
    safe = family["On a safe square both stay"].frames[-1].snapshot
    assert safe["pawns"][1][0] == 8  # Green's pawn stays on the star (square 21)
    party = {ex.title: ex for ex in examples("party")}
    pairs = party["Pairs: partners (opposite corners) never capture each other"].frames[-1]
    assert pairs.snapshot["pawns"][0][0] == 20 and pairs.snapshot["pawns"][2][0] == 46
    mensch = {ex.title: ex for ex in examples("mensch")}
    forced = mensch["A six must bring a waiting pawn out"].frames[1].snapshot
    assert {m["from"] for m in forced["legal"]} == {-1}


def test_board_config_marks_and_safe_squares() -> None:
    classic = board_config(RULESETS["classic"])
    assert classic["stars"] == [8, 21, 34, 47]
    assert classic["marks"] == ["dot", "bar", "triangle", "diamond"]
    mensch = board_config(RULESETS["mensch"])
    assert mensch["size"] == 40 and mensch["safe"] == [] and mensch["colours"][1] == "blue"
    power = board_config(RULESETS["party"].with_options(power=True))
    assert len(power["bonus"]) == 16 and not set(power["bonus"]) & set(power["safe"])


# ---------------------------------------------------------------------------- accounts


def test_sign_up_sign_out_sign_in(client: Client) -> None:
    response = client.post(
        "/accounts/signup/",
        {
            "username": "ada",
            "display_name": "Ada",
            "password1": "a-long-pass-42",
            "password2": "a-long-pass-42",
            "terms": "on",
        },
    )
    assert response.status_code == 302
    assert "Signed in as <strong><bdi>Ada</bdi></strong>" in client.get("/").content.decode()
    client.post("/accounts/logout/")
    assert "Sign in" in client.get("/").content.decode()
    response = client.post("/accounts/login/", {"username": "ada", "password": "a-long-pass-42"})
    assert response.status_code == 302 and response["Location"] == "/"
    assert "Signed in as <strong><bdi>Ada</bdi></strong>" in client.get("/").content.decode()


def test_sign_up_refuses_guest_names_and_bad_passwords(client: Client) -> None:
    html = client.post(
        "/accounts/signup/",
        {
            "username": "guest-abc",
            "password1": "a-long-pass-42",
            "password2": "a-long-pass-42",
            "terms": "on",
        },
    ).content.decode()
    assert "kept for guests" in html
    html = client.post(
        "/accounts/signup/", {"username": "bo", "password1": "x", "password2": "y", "terms": "on"}
    ).content.decode()
    assert "field-error" in html
    assert not User.objects.filter(username__in=["guest-abc", "bo"]).exists()
