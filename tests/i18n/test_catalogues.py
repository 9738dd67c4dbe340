"""The catalogues in locale/ (issue 29): one per language and domain, compiled in step, no
fuzzy entry, placeholders kept; the languages declared complete are fully translated."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.utils.translation import to_locale

from ludo_site import catalogues

LANGUAGES = [to_locale(code) for code, _ in settings.LANGUAGES if code != "en"]
CATALOGUES = [(lang, domain) for lang in LANGUAGES for domain in catalogues.DOMAINS]


def test_every_language_has_both_catalogues() -> None:
    assert len(LANGUAGES) == 10
    for lang, domain in CATALOGUES:
        assert catalogues.po_path(lang, domain).exists(), (lang, domain)


@pytest.mark.parametrize(("lang", "domain"), CATALOGUES)
def test_catalogue_sound_and_compiled(lang: str, domain: str) -> None:
    report = catalogues.check(lang, domain)
    assert report.total > (500 if domain == "django" else 100), "a catalogue nearly empty"
    assert report.fuzzy == [], f"{lang} {domain}: fuzzy entries {report.fuzzy[:5]}"
    assert report.placeholders == [], (
        f"{lang} {domain}: placeholders differ {report.placeholders[:5]}"
    )
    mo = catalogues.po_path(lang, domain).with_suffix(".mo")
    assert mo.exists() and mo.read_bytes() == catalogues.compile_catalogue(lang, domain), (
        f"{mo} is out of step with its .po: python -m ludo_site.catalogues compile"
    )
    if lang in catalogues.COMPLETE:
        assert report.untranslated == [], f"{lang} {domain}: untranslated {report.untranslated[:5]}"


def test_both_domains_hold_the_same_strings_in_every_language() -> None:
    """makemessages ran for every language: the msgids agree across languages."""
    for domain in catalogues.DOMAINS:
        ids = {
            lang: {
                m.id if isinstance(m.id, str) else m.id[0] for m in catalogues.read(lang, domain)
            }
            for lang in LANGUAGES
        }
        first = ids[LANGUAGES[0]]
        for lang, got in ids.items():
            assert got == first, (domain, lang, sorted(got ^ first)[:5])


def test_the_checker_catches_a_renamed_placeholder(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    po = tmp_path / "de" / "LC_MESSAGES" / "django.po"
    po.parent.mkdir(parents=True)
    po.write_text(
        'msgid ""\nmsgstr "Content-Type: text/plain; charset=UTF-8\\n"\n\n'
        'msgid "Room %(code)s"\nmsgstr "Raum %(kode)s"\n\n'
        '#, fuzzy\nmsgid "Roll"\nmsgstr "Würfeln"\n\n'
        'msgid "Home"\nmsgstr ""\n',
        encoding="utf-8",
    )
    monkeypatch.setattr(catalogues, "LOCALE", tmp_path)
    report = catalogues.check("de", "django")
    assert report.placeholders == ["Room %(code)s"]
    assert report.fuzzy == ["Roll"]
    assert report.untranslated == ["Home"]
    assert report.total == 3 and report.translated == 2


def test_a_translation_is_served(client, tmp_path, monkeypatch, db) -> None:  # type: ignore[no-untyped-def]
    """The machinery end to end: a translated msgid in a compiled catalogue shows on the page
    for a reader whose browser asks for that language (Accept-Language), in the language's
    direction."""
    from babel.messages.catalog import Catalog
    from babel.messages.mofile import write_mo
    from django.test import override_settings

    catalog = Catalog(locale="ar")
    catalog.add("Play ranked", "العب مصنفًا")
    mo = tmp_path / "ar" / "LC_MESSAGES" / "django.mo"
    mo.parent.mkdir(parents=True)
    with mo.open("wb") as f:
        write_mo(f, catalog)
    with override_settings(LOCALE_PATHS=[tmp_path, *settings.LOCALE_PATHS]):
        html = client.get("/", HTTP_ACCEPT_LANGUAGE="ar,en;q=0.5").content.decode()
    assert '<html lang="ar" dir="rtl">' in html
    assert "العب مصنفًا" in html
