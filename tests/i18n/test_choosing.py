"""Choosing a language (issue 29): Accept-Language first, the header's picker remembered in a
guest's cookie and in a signed-in player's settings; <html lang dir>; hreflang alternates."""

from __future__ import annotations

import json
import re

import pytest
from django.conf import settings
from django.test import Client

from accounts.models import User

pytestmark = pytest.mark.django_db


def lang_of(html: str) -> tuple[str, str]:
    m = re.search(r'<html lang="([^"]+)" dir="(ltr|rtl)">', html)
    assert m, "no <html lang dir>"
    return m.group(1), m.group(2)


def test_accept_language_then_the_cookie(client: Client) -> None:
    assert lang_of(client.get("/").content.decode()) == ("en", "ltr")
    assert lang_of(client.get("/", HTTP_ACCEPT_LANGUAGE="ur").content.decode()) == ("ur", "rtl")
    assert lang_of(client.get("/", HTTP_ACCEPT_LANGUAGE="pt-BR").content.decode())[0] == "pt-br"
    response = client.post("/i18n/setlang/", {"language": "de", "next": "/rules/"})
    assert response.status_code == 302 and response["Location"] == "/rules/"
    assert client.cookies[settings.LANGUAGE_COOKIE_NAME].value == "de"
    assert lang_of(client.get("/", HTTP_ACCEPT_LANGUAGE="ur").content.decode())[0] == "de"


def test_the_picker_lists_every_language_in_its_own_name(client: Client) -> None:
    html = client.get("/").content.decode()
    form = re.search(r'<form class="language-picker".*?</form>', html, re.S)
    assert form and 'action="/i18n/setlang/"' in form.group(0)
    codes = re.findall(r'<option value="([^"]+)" lang="[^"]+"', form.group(0))
    assert codes == [code for code, _ in settings.LANGUAGES]
    for name in ("Deutsch", "العربيّة", "اردو", "বাংলা", "हिंदी", "Türkçe"):
        assert name in form.group(0)


def test_a_players_choice_follows_them_to_another_device(client: Client) -> None:
    User.objects.create_user("ada", password="pw-for-tests")
    client.login(username="ada", password="pw-for-tests")
    client.post("/i18n/setlang/", {"language": "ar", "next": "/"})
    assert User.objects.get(username="ada").language == "ar"
    other = Client()  # no cookie; a browser asking for English
    other.login(username="ada", password="pw-for-tests")
    assert lang_of(other.get("/", HTTP_ACCEPT_LANGUAGE="en").content.decode()) == ("ar", "rtl")
    # A guest's choice stays in the cookie only.
    guest = Client()
    guest.post("/play/computer/", {"ruleset": "classic", "players": "2"})
    guest.post("/i18n/setlang/", {"language": "fr", "next": "/"})
    assert not User.objects.filter(language="fr").exists()
    assert lang_of(guest.get("/").content.decode())[0] == "fr"


def test_hreflang_alternates_and_lang_parameter(client: Client) -> None:
    html = client.get("/rules/").content.decode()
    links = dict(re.findall(r'<link rel="alternate" hreflang="([^"]+)" href="([^"]+)">', html))
    assert set(links) == {code for code, _ in settings.LANGUAGES} | {"x-default"}
    assert links["bn"] == "http://testserver/rules/?lang=bn"
    assert links["x-default"] == "http://testserver/rules/"
    assert lang_of(client.get("/rules/", {"lang": "bn"}).content.decode()) == ("bn", "ltr")
    # ?lang= is for that page only: nothing remembered.
    assert lang_of(client.get("/rules/").content.decode())[0] == "en"


def test_the_scripts_catalogue_follows_the_pages_language(client: Client) -> None:
    """A page chosen by ``?lang=`` asks for its scripts' words in the same language: the
    catalogue's URL names it, so the room's script texts match the page around them."""
    html = client.get("/?lang=hi", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    src = re.search(r'<script src="(/i18n/js/[^"]*)"', html)
    assert src and src.group(1) == "/i18n/js/?lang=hi"
    hindi = client.get(src.group(1), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    english = client.get("/i18n/js/?lang=en").content.decode()
    die = json.dumps("पासा")[1:-1]  # the catalogue escapes what is not ASCII
    assert die in hindi and die not in english
