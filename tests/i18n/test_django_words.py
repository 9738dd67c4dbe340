"""Django's own words on the account pages, translated by the site's catalogues where
Django's leave a language without them (accounts/django_words.py)."""

from __future__ import annotations

import re
from pathlib import Path

import django
import pytest
from django.test import Client
from django.utils import translation

from accounts import django_words


def django_msgids() -> set[str]:
    po = Path(django.__file__).parent / "contrib/auth/locale/de/LC_MESSAGES/django.po"
    text = po.read_text()
    ids = set()
    for block in re.findall(r'^msgid ((?:".*"\n)+)', text, re.M):
        ids.add("".join(re.findall(r'"(.*)"', block)).replace('\\"', '"'))
    return ids


def test_every_word_is_still_one_of_djangos() -> None:
    ids = django_msgids()
    for text in django_words.SINGULAR:
        assert text in ids, text
    for plural in django_words.PLURAL:
        assert plural._kw["singular"] in ids  # type: ignore[attr-defined]


@pytest.mark.parametrize("lang", ["hi", "bn", "ur"])
def test_the_password_rules_read_in_languages_django_leaves_out(lang: str) -> None:
    with translation.override(lang):
        for text in django_words.SINGULAR:
            assert translation.gettext(text) != text, (lang, text)
        short = translation.ngettext(
            "This password is too short. It must contain at least %d character.",
            "This password is too short. It must contain at least %d characters.",
            8,
        )
        assert "too short" not in short


@pytest.mark.django_db
def test_the_sign_up_page_in_bengali_has_no_english_rule() -> None:
    html = Client().get("/accounts/signup/?lang=bn").content.decode()
    for english in ("Required. 150", "Your password can", "Your password must", "verification"):
        assert english not in html, english
