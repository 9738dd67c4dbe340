"""A pseudo-locale for the tests (issue 29): ``xx`` translates every string that goes through
gettext by writing its letters as fullwidth letters (Ｒｏｌｌ ｔｈｅ ｄｉｅ), keeping
placeholders, tags and entities. A page rendered in ``xx`` that still shows a plain ASCII word
shows a string nobody marked (or data, which the test names)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from html.parser import HTMLParser

from django.conf.locale import LANG_INFO
from django.test import override_settings
from django.utils.translation import trans_real

CODE = "xx"
KEEP = re.compile(r"(%\(\w+\)[sdif]|%[sdif%]|<[^>]*>|&#?\w+;|\{\{[^}]*\}\}|\{\w*\})")


def pseudo(text: str) -> str:
    """`text` with every ASCII letter outside a placeholder, tag or entity made fullwidth."""
    parts = KEEP.split(text)
    for i in range(0, len(parts), 2):
        parts[i] = "".join(
            chr(ord(c) - 0x21 + 0xFF01) if ("a" <= c <= "z" or "A" <= c <= "Z") else c
            for c in parts[i]
        )
    return "".join(parts)


class PseudoTranslation(trans_real.DjangoTranslation):
    """Every message translated by `pseudo`, Django's own included."""

    def __init__(self) -> None:
        self._fallback = None
        self._catalog = {}  # type: ignore[assignment]
        self._info = {}
        self._charset = "utf-8"
        self._output_charset = None
        self.plural = lambda n: int(n != 1)
        self._DjangoTranslation__language = CODE  # type: ignore[attr-defined]
        self._DjangoTranslation__locale = CODE  # type: ignore[attr-defined]
        self._DjangoTranslation__to_language = CODE  # type: ignore[attr-defined]

    def gettext(self, message: str) -> str:
        if "\x04" in message:  # pgettext: "context\x04message"
            return pseudo(message.split("\x04", 1)[1])
        return pseudo(message)

    def ngettext(self, msgid1: str, msgid2: str, n: int) -> str:
        return pseudo(msgid1 if n == 1 else msgid2)

    def language(self) -> str:
        return CODE

    def to_language(self) -> str:
        return CODE


@contextmanager
def pseudo_locale(monkeypatch) -> Iterator[None]:  # type: ignore[no-untyped-def]
    """``xx`` among the site's languages while the block runs (``?lang=xx`` picks it)."""
    from django.conf import settings

    monkeypatch.setitem(
        LANG_INFO,
        CODE,
        {"bidi": False, "code": CODE, "name": "Pseudo", "name_local": "Ｐｓｅｕｄｏ"},
    )
    with override_settings(LANGUAGES=[*settings.LANGUAGES, (CODE, "Pseudo")]):
        real_check = trans_real.check_for_language
        monkeypatch.setattr(
            trans_real, "check_for_language", lambda code: code == CODE or real_check(code)
        )
        trans_real._translations[CODE] = PseudoTranslation()
        try:
            yield
        finally:
            trans_real._translations.pop(CODE, None)
            trans_real.deactivate()


class ReadText(HTMLParser):
    """What a person reads on a page: text outside script and style, and the readable
    attributes (aria-label, title, placeholder, alt, a meta description, and data-about: an
    option's description that levels.js shows when it is chosen)."""

    ATTRS = {"aria-label", "title", "placeholder", "alt", "data-about"}

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.skip = 0
        # Elements in a language of their own (the picker's language names): not English.
        self.other_language: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if tag in ("script", "style") or (values.get("lang") and tag != "html"):
            self.skip += 1
            self.other_language.append(tag)
        for name in self.ATTRS:
            if values.get(name):
                self.parts.append(values[name] or "")
        if tag == "meta" and values.get("name") == "description":
            self.parts.append(values.get("content") or "")
        if tag == "input" and values.get("type") in ("submit", "button") and values.get("value"):
            self.parts.append(values["value"] or "")

    def handle_endtag(self, tag: str) -> None:
        if self.other_language and self.other_language[-1] == tag:
            self.other_language.pop()
            self.skip -= 1

    def handle_data(self, data: str) -> None:
        if not self.skip:
            self.parts.append(data)


def english_words(html: str, allowed: set[str] = frozenset()) -> set[str]:  # type: ignore[assignment]
    """The plain ASCII words (two letters or more) a person reads on `html`, less `allowed`."""
    reader = ReadText()
    reader.feed(html)
    text = re.sub(r"\b[0-9a-fA-F]{8,}\b", " ", " ".join(reader.parts))  # hashes, seeds: data
    words = set(re.findall(r"[A-Za-z]{2,}", text))
    return {w for w in words if w not in allowed and w.lower() not in allowed}


# The scripts' side of the pseudo-locale: appended to the JavaScript catalogue (/i18n/js/) of
# an ``xx`` page, it makes gettext and its kin write what they are given in fullwidth
# letters, keeping placeholders as `pseudo` does.
PSEUDO_JS = r"""
;(function (globals) {
  const KEEP = /(%\(\w+\)[sdif]|%[sdif%]|<[^>]*>|&#?\w+;|\{\{[^}]*\}\}|\{\w*\})/;
  const letter = (c) => String.fromCharCode(c.charCodeAt(0) - 0x21 + 0xff01);
  const wide = (text) => String(text).split(KEEP)
    .map((part, i) => (i % 2 ? part : part.replace(/[A-Za-z]/g, letter))).join("");
  const django = globals.django || (globals.django = {});
  django.gettext = (msgid) => wide(msgid);
  django.ngettext = (one, many, n) => wide(n === 1 ? one : many);
  django.pgettext = (context, msgid) => wide(msgid);
  django.npgettext = (context, one, many, n) => wide(n === 1 ? one : many);
  for (const name of ["gettext", "ngettext", "pgettext", "npgettext"]) globals[name] = django[name];
})(window);
"""


def install() -> None:
    """The pseudo-locale for good in this process: the browser tests' server started with
    LUDO_TEST_PSEUDO_LOCALE=1 (tests/browser/asgi_static.py). Pages, sockets and the scripts'
    catalogue all speak ``xx`` to a reader who asks for it (``?lang=xx``, the cookie)."""
    from django.conf import settings
    from django.utils.translation import get_language
    from django.views.i18n import JavaScriptCatalog

    LANG_INFO[CODE] = {"bidi": False, "code": CODE, "name": "Pseudo", "name_local": "Ｐｓｅｕｄｏ"}
    override_settings(LANGUAGES=[*settings.LANGUAGES, (CODE, "Pseudo")]).enable()
    real_check = trans_real.check_for_language
    trans_real.check_for_language = lambda code: code == CODE or real_check(code)  # type: ignore[assignment]
    trans_real._translations[CODE] = PseudoTranslation()
    real_get = JavaScriptCatalog.get

    def get(self, request, *args, **kwargs):  # type: ignore[no-untyped-def]
        response = real_get(self, request, *args, **kwargs)
        if get_language() == CODE:
            response.content = response.content + PSEUDO_JS.encode()
        return response

    JavaScriptCatalog.get = get  # type: ignore[method-assign]
