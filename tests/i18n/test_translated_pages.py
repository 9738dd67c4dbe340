"""Every marked string a page shows is in each language's catalogue: a string marked in the
code but never carried into the .po files (a new tip, a guide's sentence) reads as English on
a Hindi page, and the pseudo-locale cannot see it (it translates whatever is marked). Each
page is rendered in the ten languages while every gettext call that finds no translation is
recorded; and every string the scripts mark is in djangojs.po."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from django.conf import settings
from django.test import Client
from django.utils.translation import to_locale, trans_real

from accounts.models import User
from ludo_site import catalogues

pytestmark = pytest.mark.django_db

LANGUAGES = [code for code, _ in settings.LANGUAGES if code != "en"]
# Looked up but never read: {% get_available_languages %} translates the languages' English
# names, and the picker shows each language's own name; a label's suffix ":" has no words.
UNREAD = {name for _code, name in settings.LANGUAGES}

SKIP_DIRS = {"staticfiles", "node_modules", "__pycache__"}

PAGES = [
    "/rules/classic/",
    "/rules/family/",
    "/rules/duel/",
    "/rules/mensch/",
    "/rules/quick/",
    "/rules/party/",
    "/guides/duel-rules/",
    "/guides/duel-strategy/",
    "/play/local/",
]


def read(text: str) -> bool:
    return bool(re.search(r"[A-Za-z]", text)) and text not in UNREAD


@contextmanager
def missing_translations() -> Iterator[set[str]]:
    """The msgids looked up while the block runs that the active catalogue lacks (English is
    the source: it has nothing to miss)."""
    missed: set[str] = set()
    real_gettext = trans_real.DjangoTranslation.gettext
    real_ngettext = trans_real.DjangoTranslation.ngettext

    def gettext(self, message):  # type: ignore[no-untyped-def]
        text = message.split("\x04", 1)[-1]
        if self.language() != "en" and read(text) and message not in self._catalog:
            missed.add(text)
        return real_gettext(self, message)

    def ngettext(self, msgid1, msgid2, n):  # type: ignore[no-untyped-def]
        text = msgid1.split("\x04", 1)[-1]
        if self.language() != "en" and read(text) and (msgid1, 0) not in self._catalog:
            missed.add(text)
        return real_ngettext(self, msgid1, msgid2, n)

    trans_real.DjangoTranslation.gettext = gettext  # type: ignore[method-assign]
    trans_real.DjangoTranslation.ngettext = ngettext  # type: ignore[method-assign]
    try:
        yield missed
    finally:
        trans_real.DjangoTranslation.gettext = real_gettext  # type: ignore[method-assign]
        trans_real.DjangoTranslation.ngettext = real_ngettext  # type: ignore[method-assign]


def shown(client: Client, path: str, lang: str) -> str:
    response = client.get(path, {"lang": lang})
    assert response.status_code == 200, (path, lang)
    assert response["Content-Language"] == lang, (path, lang)
    return response.content.decode()


def test_the_recorder_sees_a_string_the_catalogue_lacks() -> None:
    from django.utils import translation

    with missing_translations() as missed, translation.override("hi"):
        assert translation.gettext("Roll") != "Roll"
        assert translation.gettext("A sentence no catalogue holds") == (
            "A sentence no catalogue holds"
        )
    assert missed == {"A sentence no catalogue holds"}


@pytest.mark.parametrize("lang", LANGUAGES)
def test_guides_and_the_local_setup_are_translated(client: Client, lang: str) -> None:
    with missing_translations() as missed:
        for path in PAGES:
            shown(client, path, lang)
    assert missed == set(), f"{lang}: not in the catalogue {sorted(missed)[:8]}"


@pytest.mark.parametrize("lang", ["hi", "ar", "pt-br"])
def test_a_practice_rooms_replay_and_the_profile_are_translated(client: Client, lang: str) -> None:
    User.objects.create_user("ada", password="pw-for-tests")
    client.login(username="ada", password="pw-for-tests")
    response = client.post(f"/play/computer/?lang={lang}", {"ruleset": "classic", "players": "2"})
    assert response.status_code == 302
    room = response["Location"]
    with missing_translations() as missed:
        for path in [room, f"{room}replay/", "/players/ada/", "/accounts/"]:
            shown(client, path, lang)
    assert missed == set(), f"{lang}: not in the catalogue {sorted(missed)[:8]}"


def test_the_guides_read_in_the_pages_language(client: Client) -> None:
    """The duel guides are built once per language, not once for whoever came first: a Hindi
    reader first, then an English one, then a Hindi one again, each reads their own."""

    def article(lang: str) -> str:
        html = shown(client, "/guides/duel-strategy/", lang)
        found = re.search(r"<article.*</article>", html, re.S)
        assert found is not None
        return found.group(0)

    hindi = article("hi")
    english = article("en")
    assert "brings pawn 1 home" in english and "Red rolls 3" in english
    assert "brings pawn 1 home" not in hindi and "Red rolls" not in hindi
    assert article("hi") == hindi
    # The bots' reasons are told whole, in the reader's language, inside one sentence.
    assert re.search(r'<span class="bot-tag">[^<]*BOT</span> [^a-zA-Z<]+,', hindi)


JS_MARKED = re.compile(r"""\b(?:gettext|ngettext)\(\s*(["'])((?:\\.|(?!\1).)*)\1""", re.S)


def test_every_string_the_scripts_mark_is_in_djangojs() -> None:
    marked = set()
    for script in Path(settings.BASE_DIR, "static", "js").glob("*.js"):
        for _quote, text in JS_MARKED.findall(script.read_text(encoding="utf-8")):
            marked.add(text.encode().decode("unicode_escape").encode("latin-1").decode())
    assert len(marked) > 100
    for lang in LANGUAGES:
        have = {
            m.id if isinstance(m.id, str) else m.id[0]
            for m in catalogues.read(to_locale(lang), "djangojs")
            if m.id
        }
        assert marked - have == set(), f"{lang}: not in djangojs.po {sorted(marked - have)[:5]}"


def test_python_marks_strings_with_names_makemessages_knows() -> None:
    """makemessages finds gettext, gettext_lazy, ngettext... and ``_``: a string marked through
    another alias (the preset tips were ``_l("...")``) is translated at run time but never
    reaches a catalogue, so every reader gets English."""
    alias = re.compile(r"from django\.utils\.translation import .*\b(\w*gettext\w*) as (\w+)")
    odd = []
    for root, dirs, files in os.walk(settings.BASE_DIR):
        dirs[:] = [d for d in dirs if not d.startswith(".") and d not in SKIP_DIRS]
        for name in (f for f in files if f.endswith(".py")):
            path = Path(root, name)
            for line in path.read_text(encoding="utf-8").splitlines():
                found = alias.search(line)
                if found and found.group(2) != "_":
                    odd.append(f"{path.relative_to(settings.BASE_DIR)}: {line.strip()}")
    assert odd == []
