"""The one normaliser of the names people choose (usernames and display names), and the rule
that no person may pass for one of the site's bots or for its staff.

Bots sit at the table as ``Kai, medium bot`` (`games.match.selectors.seat_name`) and moderators
act as the site; a human seat named ``BOT`` or ``Moderator (staff)`` would pass for either. A
name is refused when, once folded (`fold`: compatibility forms, accents dropped, case-folded,
look-alike letters and digits read as the letters they imitate, invisible characters removed),
one of its words is a reserved word (bot, moderator, admin, staff and their plurals), the whole
name run together is one (``B.O.T``, ``s t a f f``), or it holds a bot's level or name followed
by "bot" (``mediumbot``, ``KaiBot``).
"""

from __future__ import annotations

import re
import unicodedata

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


def fold(text: str) -> str:
    """`text` as it reads: compatibility forms unified (fullwidth, ligatures), accents and
    invisible characters dropped, case-folded, look-alikes mapped to the letters they imitate.
    Two names that fold alike look alike."""
    decomposed = unicodedata.normalize("NFKD", text)
    kept = "".join(c for c in decomposed if unicodedata.category(c) not in ("Mn", "Me", "Cf", "Cc"))
    return kept.casefold().translate(LOOK_ALIKES)


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


def passes_for_the_site(text: str) -> bool:
    """Whether the name `text` could pass for one of the site's bots or for its staff."""
    if not text.strip():
        return False
    if any(word in RESERVED for word in words(text)):
        return True
    together = re.sub(r"[^a-z]", "", fold(text))
    if together in RESERVED:
        return True
    return any(f"{stem}bot" in together for stem in _BOT_STEMS)


def check_name(text: str) -> str:
    """`text`, or a `ValidationError` (code ``reserved_name``) when it passes for a bot or
    for staff. Every form that sets a name calls this."""
    if passes_for_the_site(text):
        raise forms.ValidationError(
            _(
                "Choose another name: names that read as a bot, a moderator, an admin or "
                "staff are kept for the site."
            ),
            code="reserved_name",
        )
    return text
