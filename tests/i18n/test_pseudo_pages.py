"""Nothing a person reads is left unmarked (issue 29): each page rendered in the pseudo-locale
``xx`` (tests/i18n/pseudo.py) shows no plain English word beyond its data (names, codes)."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from accounts.models import User
from games.match.selectors import BOT_NAMES
from tests.i18n.pseudo import english_words, pseudo, pseudo_locale

pytestmark = pytest.mark.django_db

# Words that are data or are not translated: the site's name for the brand's letters is
# marked; these come from the fixtures (usernames), the bots' names and from formats.
DATA = {"ada", "KB", "UTC", *BOT_NAMES}

# Strings of the Python layers still read in English, by page: none left (issue 29 marked them
# all). A page that shows a new unmarked word fails; list one here only with a reason.
PENDING: dict[str, set[str]] = {}


def page(client: Client, path: str) -> str:
    response = client.get(path, {"lang": "xx"})
    assert response.status_code == 200, path
    assert response["Content-Language"] == "xx", path
    return response.content.decode()


def check(path: str, html: str, code: str = "") -> None:
    """No word of `html` unmarked but its data: DATA, and pieces of the room `code`."""
    left = {w for w in english_words(html, DATA) if not (w.isupper() and set(w) <= set(code))}
    pending = PENDING.get(re.sub(r"^/r/\w+/", "/r/CODE/", path), set())
    assert left - pending == set(), f"{path}: unmarked words {sorted(left - pending)}"
    assert pending - left == set(), (
        f"{path}: marked now, drop from PENDING {sorted(pending - left)}"
    )


def test_pseudo_transforms_words_not_placeholders() -> None:
    assert pseudo("Room %(code)s: <strong>%(n)s</strong> &amp; more") == (
        "Ｒｏｏｍ %(code)s: <strong>%(n)s</strong> &amp; ｍｏｒｅ"
    )


@pytest.mark.parametrize(
    "path",
    [
        "/",
        "/rules/",
        "/terms/",
        "/leaderboards/",
        "/accounts/login/",
        "/accounts/signup/",
        "/accounts/password/reset/",
        "/rules/classic/",
        "/rules/quick/",
        "/rules/party/",
        "/rules/family/",
        "/rules/duel/",
        "/rules/mensch/",
        "/guides/duel-rules/",
        "/guides/duel-strategy/",
        "/play/local/",
        "/play/quick/",
    ],
)
def test_public_pages_in_the_pseudo_locale(client: Client, monkeypatch, path: str) -> None:  # type: ignore[no-untyped-def]
    with pseudo_locale(monkeypatch):
        html = page(client, path)
        assert '<html lang="xx" dir="ltr">' in html
        check(path, html)


def test_signed_in_pages_and_a_practice_room(client: Client, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    User.objects.create_user("ada", password="pw-for-tests")
    client.login(username="ada", password="pw-for-tests")
    with pseudo_locale(monkeypatch):
        response = client.post("/play/computer/?lang=xx", {"ruleset": "classic", "players": "2"})
        assert response.status_code == 302
        room = response["Location"]
        code = room.strip("/").split("/")[-1]
        for path in ["/accounts/", "/players/ada/", room, f"{room}replay/", "/disputes/"]:
            check(path, page(client, path), code)
