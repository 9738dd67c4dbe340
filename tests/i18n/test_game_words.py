"""The game's words of locale/GLOSSARY.md in the catalogues: words a native reading found wrong
stay out, and the Roll button reads as an action in every language."""

from __future__ import annotations

import re

import pytest
from django.conf import settings
from django.utils import translation
from django.utils.translation import to_locale

from ludo_site import catalogues

LANGUAGES = [to_locale(code) for code, _ in settings.LANGUAGES if code != "en"]

# Words that are wrong for the game (a language: a pattern no msgstr may hold, and why).
WRONG = {
    "pt_BR": (r"\b[Rr]olage[mn]", "rolagem is scrolling: a roll is a lance"),
    "bn": (r"ডাবল রোল", "an English word spelt in Bengali: দ্বিগুণ দান"),
    "ur": (r"ڈبل رول", "an English word spelt in Urdu: دہرا پاسہ"),
}
# The party's option keeps the language's own name where the language has one.
POWER_NAMED = {"pt_BR": "poder", "es": "poder", "fr": "pouvoir", "id": "Kekuatan"}


def strings(lang: str) -> list[tuple[str, str]]:
    found = []
    for domain in catalogues.DOMAINS:
        for m in catalogues.read(lang, domain):
            if not m.id:
                continue
            ids = [m.id] if isinstance(m.id, str) else list(m.id)
            texts = [m.string] if isinstance(m.string, str) else list(m.string)
            found += [(ids[0], t) for t in texts]
    return found


@pytest.mark.parametrize("lang", sorted(WRONG))
def test_no_word_a_native_reading_found_wrong(lang: str) -> None:
    pattern, why = WRONG[lang]
    bad = [(i, s) for i, s in strings(lang) if re.search(pattern, s)]
    assert bad == [], f"{lang}: {why}: {bad[:3]}"


@pytest.mark.parametrize("lang", sorted(POWER_NAMED))
def test_power_squares_are_named_in_the_language(lang: str) -> None:
    bad = [
        (i, s)
        for i, s in strings(lang)
        if "Power" in i and ("Power" in s or POWER_NAMED[lang].lower() not in s.lower())
    ]
    assert bad == [], f"{lang}: {bad[:3]}"


def test_bengali_keeps_a_roll_apart_from_a_move() -> None:
    """দান is a roll, চাল a move: the noun "Roll" and "Rolls" are দান."""
    with translation.override("bn"):
        assert translation.gettext("Roll") == "দান"
        assert translation.gettext("Rolls") == "দান"
        assert "চাল" in translation.gettext("Legal moves")


@pytest.mark.parametrize("lang", [code for code, _ in settings.LANGUAGES if code != "en"])
def test_the_roll_button_is_an_action_apart_from_the_noun(lang: str) -> None:
    """The room's button says what to do; "Roll" alone is also the proof table's column and
    "Roll k (counted from 1)...", a noun (French's "lancer" is both)."""
    with translation.override(lang):
        button = translation.pgettext("the button: roll the die", "Roll")
        noun = translation.gettext("Roll")
    assert button != "Roll" and noun != "Roll"
    assert button != noun or lang == "fr", (lang, button, noun)


def test_portuguese_rolls_are_lances() -> None:
    with translation.override("pt-br"):
        assert translation.pgettext("the button: roll the die", "Roll") == "Jogar o dado"
        assert translation.gettext("Roll") == "Lance"
        assert translation.gettext("Double roll") == "Dado em dobro"
