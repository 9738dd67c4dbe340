"""The translation catalogues in locale/ (issue 29): compile and check them with Python only.

    .venv/bin/python -m ludo_site.catalogues compile   # every locale/*/LC_MESSAGES/*.po -> .mo
    .venv/bin/python -m ludo_site.catalogues check     # per language: strings, done, problems

The compiled .mo files are committed, so `make run` serves every language on a machine with no
GNU gettext; `compile` (babel, in requirements-dev.txt) refreshes them after a translator's edit,
and tests/i18n fails when a .mo is out of step with its .po. Refreshing the .po files from the
code needs GNU gettext (`makemessages`, locale/README.md).
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass, field
from io import BytesIO
from pathlib import Path

from babel.messages.catalog import Catalog, Message
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

LOCALE = Path(__file__).resolve().parent.parent / "locale"
DOMAINS = ("django", "djangojs")

# Languages whose translators declared them complete: tests/i18n checks that every string of
# both domains is translated, none fuzzy. Translators add their language here when done.
COMPLETE: list[str] = ["hi", "ar", "es", "pt_BR", "ur", "bn", "de", "fr", "id", "tr"]

# Placeholders that must survive translation: %(name)s, %s / %d, and {{ name }} is not one
# (blocktranslate writes %(name)s into the catalogue).
PLACEHOLDER = re.compile(r"%\(\w+\)[sdif]|%[sdif]")


def po_path(language: str, domain: str) -> Path:
    return LOCALE / language / "LC_MESSAGES" / f"{domain}.po"


def languages() -> list[str]:
    """The locale directories that hold catalogues (``pt_BR`` style names)."""
    return sorted(p.name for p in LOCALE.iterdir() if (p / "LC_MESSAGES").is_dir())


def read(language: str, domain: str) -> Catalog:
    with po_path(language, domain).open("rb") as f:
        return read_po(f, locale=None, domain=domain)


def compile_catalogue(language: str, domain: str) -> bytes:
    """The .mo bytes of one catalogue: translated, non-fuzzy messages only."""
    out = BytesIO()
    write_mo(out, read(language, domain), use_fuzzy=False)
    return out.getvalue()


def compile_all() -> list[Path]:
    written = []
    for language in languages():
        for domain in DOMAINS:
            if not po_path(language, domain).exists():
                continue
            mo = po_path(language, domain).with_suffix(".mo")
            data = compile_catalogue(language, domain)
            if not mo.exists() or mo.read_bytes() != data:
                mo.write_bytes(data)
                written.append(mo)
    return written


def _texts(message: Message) -> tuple[list[str], list[str]]:
    ids = list(message.id) if isinstance(message.id, (list, tuple)) else [message.id]
    strings = (
        list(message.string) if isinstance(message.string, (list, tuple)) else [message.string]
    )
    return ids, strings


@dataclass
class Report:
    language: str
    domain: str
    total: int = 0
    translated: int = 0
    fuzzy: list[str] = field(default_factory=list)
    untranslated: list[str] = field(default_factory=list)
    placeholders: list[str] = field(default_factory=list)


def check(language: str, domain: str) -> Report:
    """Counts, fuzzy and untranslated msgids, and translations whose placeholders differ from
    their msgid's (each plural form against the plural msgid's set)."""
    report = Report(language, domain)
    for message in read(language, domain):
        if not message.id:
            continue  # the header
        report.total += 1
        ids, strings = _texts(message)
        key = ids[0]
        if message.fuzzy:
            report.fuzzy.append(key)
        if not all(strings):
            report.untranslated.append(key)
            continue
        report.translated += 1
        wanted = set().union(*(set(PLACEHOLDER.findall(i)) for i in ids))
        for s in strings:
            got = set(PLACEHOLDER.findall(s))
            # A plural form may leave the count out (one: "a pawn"), never add or rename.
            if not got <= wanted or (len(ids) == 1 and got != wanted):
                report.placeholders.append(key)
                break
    return report


def main(argv: list[str]) -> int:
    if argv[:1] == ["compile"]:
        for path in compile_all():
            print("wrote", path.relative_to(LOCALE.parent))
        return 0
    if argv[:1] == ["check"]:
        bad = 0
        for language in languages():
            for domain in DOMAINS:
                if not po_path(language, domain).exists():
                    continue
                r = check(language, domain)
                print(
                    f"{language:6} {domain:9} {r.translated:4}/{r.total:<4} translated, "
                    f"{len(r.fuzzy)} fuzzy, {len(r.placeholders)} placeholder mismatches"
                )
                bad += len(r.fuzzy) + len(r.placeholders)
        return 1 if bad else 0
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
