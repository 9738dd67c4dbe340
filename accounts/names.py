"""The one normaliser of the names people choose (usernames and display names), and the rule
that no person may pass for one of the site's bots or for its staff.

Bots sit at the table as ``Kai, medium bot`` (`games.match.selectors.seat_name`) and moderators
act as the site; a human seat named ``BOT`` or ``Moderator (staff)`` would pass for either. A
name is refused when it holds a character that changes how it reads without being seen (a bidi
control such as U+202E, any other format character, a blank letter), or when, once folded
(`fold`: compatibility forms, accents dropped, case-folded, look-alikes read as the letters they
imitate by Unicode's confusables table and the site's own for digits and signs), one of its
words is a reserved word (bot, moderator, admin, staff and their plurals), the whole name run
together is one (``B.O.T``, ``s t a f f``), it holds a bot's level or name followed by "bot"
(``mediumbot``, ``KaiBot``), or a bot's name followed by a level (``Kai, medium``).
"""

from __future__ import annotations

import re
import unicodedata
from functools import cache

from confusable_homoglyphs.confusables import confusables_data
from django import forms
from django.utils.translation import gettext as _

from games.bots import BOTS
from games.match.selectors import BOT_NAMES

RESERVED = frozenset(
    {
        "bot",
        "bots",
        "moderator",
        "moderators",
        "mod",
        "mods",
        "admin",
        "admins",
        "administrator",
        "administrators",
        "staff",
        "staffs",
        "sysop",
        "official",
    }
)

# Characters that read as a Latin letter: Cyrillic, Greek and other look-alikes that survive
# NFKC, and the digits and signs people use for letters (b0t, 4dmin, $taff).
LOOK_ALIKES = str.maketrans(
    {
        # Cyrillic
        "а": "a", "в": "b", "е": "e", "ё": "e", "к": "k", "м": "m", "н": "h", "о": "o",
        "р": "p", "с": "c", "т": "t", "у": "y", "х": "x", "ѕ": "s", "і": "i", "ї": "i",
        "ј": "j", "ԁ": "d", "ԛ": "q", "ԝ": "w", "һ": "h", "ӏ": "l", "ь": "b", "ɑ": "a",
        # Greek
        "α": "a", "β": "b", "ε": "e", "η": "n", "ι": "i", "κ": "k", "μ": "m", "ν": "v",
        "ο": "o", "ρ": "p", "τ": "t", "υ": "u", "χ": "x", "ϲ": "c", "ς": "s", "σ": "o",
        # Latin look-alikes
        "ı": "i", "ȷ": "j", "ł": "l", "ø": "o", "đ": "d", "ħ": "h", "ŧ": "t", "ƅ": "b",
        "ß": "ss",
        # Digits and signs
        "0": "o", "1": "l", "3": "e", "4": "a", "5": "s", "7": "t", "8": "b", "9": "g",
        "@": "a", "$": "s", "|": "l", "!": "i", "+": "t",
    }
)  # fmt: skip

# Letters a word is split at: everything but letters, digits and the signs above.
_SEPARATORS = re.compile(r"[^\w@$|!+]+|_+")
# A lower-case letter followed by an upper-case one starts a new word: KaiBot -> Kai, Bot.
_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")


# Joiners that scripts need inside words (Bengali, Hindi, Urdu...): kept in a name, but read
# as nothing when it is folded. Every other format or invisible character is refused.
_JOINERS = frozenset("\u200c\u200d")
# Letters and signs that show nothing, though Unicode calls them letters or spaces.
_BLANKS = frozenset("\u115f\u1160\u3164\uffa0\u2800\u17b4\u17b5\u034f\u180e")


def hidden_characters(text: str) -> bool:
    """Whether `text` holds a character that changes how the rest reads without being seen:
    bidi controls (U+202E turns ``tob muidem ,iaK`` into "Kai, medium bot"), other format
    characters, controls, private-use and blank letters. The joiners scripts need pass."""
    for c in text:
        if c in _JOINERS:
            continue
        if c in _BLANKS or unicodedata.category(c) in ("Cf", "Cc", "Co", "Cs", "Cn", "Zl", "Zp"):
            return True
    return False


@cache
def _skeleton(c: str) -> str:
    """The ASCII letter or digit `c` is confusable with, by Unicode's confusables table
    (through confusable_homoglyphs): the nearest one, following the table's look-alikes and
    the case of each (small capital ``ᴅ`` -> Cherokee ``ꭰ`` -> ``Ꭰ`` -> ``D``); `c` itself
    when none is near."""
    if c.isascii():
        return c
    # The small capitals the table leaves out (ꜰ, ɪ, ɴ) read as their letters, by name.
    name = unicodedata.name(c, "")
    if name.startswith("LATIN LETTER SMALL CAPITAL ") and len(name) == 28:
        return name[-1].lower()
    seen, frontier = {c}, [c]
    for _step in range(4):
        found: list[str] = []
        nxt: list[str] = []
        for node in frontier:
            steps = [h["c"] for h in confusables_data.get(node, ())]
            steps += [node.upper(), node.lower()]
            for s in steps:
                if len(s) != 1 or s in seen:
                    continue
                seen.add(s)
                if s.isascii() and s.isalnum():
                    found.append(s)
                nxt.append(s)
        if found:
            return min(found, key=lambda s: (not s.isalpha(), s.casefold()))
        frontier = nxt
    return c


def fold(text: str) -> str:
    """`text` as it reads: compatibility forms unified (fullwidth, ligatures), accents and
    invisible characters dropped, case-folded, look-alikes mapped to the letters they imitate
    (Unicode's confusables, then the digits and signs people use for letters). Two names
    that fold alike look alike."""
    decomposed = unicodedata.normalize("NFKD", text)
    kept = "".join(c for c in decomposed if unicodedata.category(c) not in ("Mn", "Me", "Cf", "Cc"))
    plain = "".join(_skeleton(c) for c in kept)
    return unicodedata.normalize("NFKD", plain).casefold().translate(LOOK_ALIKES)


def words(text: str) -> list[str]:
    """The folded words of `text`, split at spaces, signs and case changes (KaiBot)."""
    plain = "".join(
        c
        for c in unicodedata.normalize("NFKD", text)
        if unicodedata.category(c) not in ("Mn", "Me", "Cf", "Cc")
    )
    found: list[str] = []
    for part in _SEPARATORS.split(plain):
        for piece in _CAMEL.split(part):
            if piece:
                found.append(fold(piece))
                # "admin1" or "staff2024": the word without digits at its ends counts too.
                bare = piece.strip("0123456789")
                if bare and bare != piece:
                    found.append(fold(bare))
    return found


_BOT_STEMS = tuple(fold(n) for n in (*BOTS, *BOT_NAMES, "computer", "ai", "cpu"))
_BOT_NAMES = tuple(fold(n) for n in BOT_NAMES)
_LEVELS = tuple(fold(n) for n in BOTS)


def passes_for_the_site(text: str) -> bool:
    """Whether the name `text` could pass for one of the site's bots or for its staff."""
    if not text.strip():
        return False
    if any(word in RESERVED for word in words(text)):
        return True
    together = re.sub(r"[^a-z]", "", fold(text))
    if together in RESERVED:
        return True
    if any(f"{stem}bot" in together for stem in _BOT_STEMS):
        return True
    # A bot's name then a level ("Kai, medium"): the room would show it beside "bot".
    said = [w for w in words(text) if w.isalpha()]
    return any(a in _BOT_NAMES and b in _LEVELS for a, b in zip(said, said[1:], strict=False))


def check_name(text: str) -> str:
    """`text`, or a `ValidationError`: code ``hidden_characters`` when it holds characters
    that change how it reads without being seen (`hidden_characters`), ``reserved_name``
    when it passes for a bot or for staff. Every form that sets a name calls this."""
    if hidden_characters(text):
        raise forms.ValidationError(
            _(
                "Choose another name: names may not hold invisible characters or ones that "
                "reverse the text around them."
            ),
            code="hidden_characters",
        )
    if passes_for_the_site(text):
        raise forms.ValidationError(
            _(
                "Choose another name: names that read as a bot, a moderator, an admin or "
                "staff are kept for the site."
            ),
            code="reserved_name",
        )
    return text
