"""The game's names as a person reads them, in the reader's language (issue 29): presets, bot
levels, colours. The codes (``classic``, ``hard``, ``red``) travel on the wire and in the API;
these are what a page shows for them (locale/GLOSSARY.md's words)."""

from __future__ import annotations

from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

PRESETS: dict[str, Promise] = {
    "classic": _("Classic"),
    "family": _("Family"),
    "duel": _("Duel"),
    # Mensch keeps its German name in every language (the glossary).
    "mensch": pgettext_lazy("preset", "Mensch"),
    "quick": _("Quick"),
    "party": _("Party"),
}

LEVELS: dict[str, Promise] = {
    "beginner": _("Beginner"),
    "easy": _("Easy"),
    "medium": _("Medium"),
    "hard": _("Hard"),
    "greedy": _("Greedy"),
    "expert": _("Expert"),
}

COLOURS: dict[str, Promise] = {
    "red": _("Red"),
    "green": _("Green"),
    "yellow": _("Yellow"),
    "blue": _("Blue"),
}


# Why a seat is out of the match (the engine's and the services' codes).
OUT_REASONS: dict[str, Promise] = {
    "resigned": pgettext_lazy("out", "resigned"),
    "timeout": pgettext_lazy("out", "timeout"),
    "left": pgettext_lazy("out", "left"),
    "disconnected": pgettext_lazy("out", "disconnected"),
}


def out_reason(reason: str) -> str:
    """Why a seat is out of the match, in the reader's language (an unknown code as it is)."""
    name = OUT_REASONS.get(reason)
    return str(name) if name is not None else reason


def preset(code: str) -> str:
    """ "Klassisch" for ``classic`` in German; an unknown code as it is, capitalised."""
    name = PRESETS.get(code)
    return str(name) if name is not None else code.capitalize()


def level(code: str) -> str:
    name = LEVELS.get(code)
    return str(name) if name is not None else code.capitalize()


def colour(code: str) -> str:
    name = COLOURS.get(code)
    return str(name) if name is not None else code.capitalize()
