"""The one error a match service raises: a short machine code and a message for a person.

The wire and the JSON API carry the code and the English ``message`` (outside clients read
them), and ``text``: the same in the reader's language (issue 29). A service marks its message
for translation (``said(gettext_lazy("Roll the die first"))``, or with data,
``said(gettext_lazy("Corner %(corner)s has no seat"), corner=2)``, or a plural one,
``said(ngettext_lazy("%(n)s day", "%(n)s days", "n"), n=3)``); a message left plain is told in
the reader's language by its code's sentence (`TEXTS`)."""

from __future__ import annotations

from contextlib import nullcontext
from typing import Any

from django.utils import translation
from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _

CODES = frozenset(
    {
        "not_found",  # no such match (or room code)
        "not_seated",  # the user has no seat in this match
        "not_your_turn",  # the seat is not the one to act
        "stale",  # the action was made against an older state (its seq is not the match's)
        "illegal",  # the rules do not allow it (the engine's message)
        "full",  # every seat is taken
        "bad_request",  # the arguments make no sense (unknown rule set, bad seed, ...)
        "ranked_no_bots",  # ranked matches never seat a bot
        "already_seated",  # the user already has a seat here
        "over",  # the match has ended (finished, aborted or void)
        "not_finished",  # only a finished match can be voided
        "already_void",  # the match was voided already
        "no_undo",  # undo is for local games only, and there must be something to undo
        "ranked_busy",  # an account plays one ranked match at a time
        "ranked_by_matchmaking",  # ranked matches are made, and sat in, by quick match only
        "forbidden",  # the user may not do this (not a moderator, not their match, ...)
        "too_many_guests",  # this address made its hour's guest players already
        "too_many_rooms",  # this player has as many open rooms as allowed, or made its hour's
        "pause",  # a roll no pawn could use: the die passes on after a short pause
        "not_void",  # an un-void on a match that is not void
        "not_ranked",  # rating protection on a match that moved no rating
        "already_protected",  # the player's rating is protected from this match already
    }
)


# What each code means, in the reader's language, for a refusal whose message is not marked.
TEXTS: dict[str, Promise] = {
    "not_found": _("There is no such match"),
    "not_seated": _("You have no seat in this match"),
    "not_your_turn": _("It is not your turn"),
    "stale": _("The match has moved on: here is the new state"),
    "illegal": _("The rules do not allow that move"),
    "full": _("Every seat in this match is taken"),
    "bad_request": _("That request makes no sense here"),
    "ranked_no_bots": _("Ranked matches never seat a bot"),
    "already_seated": _("You already have a seat in this match"),
    "over": _("This match has ended"),
    "not_finished": _("Only a finished match can be changed"),
    "already_void": _("This match is void already"),
    "no_undo": _("There is nothing to take back"),
    "ranked_busy": _("You are already in a ranked match: finish it first"),
    "ranked_by_matchmaking": _("Ranked matches are made by quick match: join a ranked queue"),
    "forbidden": _("You may not do that"),
    "too_many_guests": _("Too many guest players from this address: try again later"),
    "too_many_rooms": _("You have too many open rooms: start or leave one first"),
    "pause": _("No pawn could use the last roll: the die passes on in a moment"),
    "not_void": _("This match is not void"),
    "not_ranked": _("This match moved no rating"),
    "already_protected": _("That player's rating is protected already"),
    "rate_limited": _("Too many at once: slow down"),
}


class _Said(Promise):
    """A marked message with its data: rendered in the language active when it is read."""

    def __init__(self, message: str | Promise, params: dict[str, Any]) -> None:
        self.said = message
        self.params = params

    def __str__(self) -> str:
        # `%` on the lazy message itself: an ``ngettext_lazy`` one picks its plural form from
        # the data it names.
        return str(self.said % self.params) if self.params else str(self.said)


def said(message: str | Promise, **params: Any) -> Promise:
    """A message marked with ``gettext_lazy`` and the data it names, read in each reader's
    language: ``said(gettext_lazy("Corner %(corner)s has no seat in this match"), corner=2)``."""
    return _Said(message, params)


class ServiceError(Exception):
    """A refused action. Nothing was written; ``code`` is one of the class's ``codes``
    (`CODES` here; other services' errors subclass it with codes of their own). `message`
    is English (the wire's and the API's); `text()` is for the person who reads it."""

    codes: frozenset[str] = CODES

    def __init__(self, code: str, message: str | Promise) -> None:
        if code not in self.codes:
            raise ValueError(f"unknown {type(self).__name__} code {code!r}")
        if isinstance(message, Promise):
            with translation.override("en"):
                english = str(message)
        else:
            english = message
        super().__init__(english)
        self.code = code
        self.message = english
        self.said = message
        # For a ``stale`` refusal: the match and its seats as the service read them (the
        # answer's new state), when it has them.
        self.loaded: tuple[Any, list[Any]] | None = None

    def text(self, language: str | None = None) -> str:
        """The refusal in `language` (else the active one): the marked message, else the
        code's sentence, else the English message."""
        with translation.override(language) if language else nullcontext():
            if isinstance(self.said, Promise):
                return str(self.said)
            meant = TEXTS.get(self.code)
            if meant is None or translation.get_language() in (None, "en"):
                return self.message
            return str(meant)

    def as_dict(self, language: str | None = None) -> dict[str, str]:
        """The wire form of the error (sent to the sender only): the code, the English
        message and the text in the reader's language."""
        return {"code": self.code, "message": self.message, "text": self.text(language)}

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.code!r}, {self.message!r})"
