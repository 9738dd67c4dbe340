"""The one error a match service raises: a short machine code and a message for a person."""

from __future__ import annotations

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


class ServiceError(Exception):
    """A refused action. Nothing was written; ``code`` is one of the class's ``codes``
    (`CODES` here; other services' errors subclass it with codes of their own)."""

    codes: frozenset[str] = CODES

    def __init__(self, code: str, message: str) -> None:
        if code not in self.codes:
            raise ValueError(f"unknown {type(self).__name__} code {code!r}")
        super().__init__(message)
        self.code = code
        self.message = message

    def as_dict(self) -> dict[str, str]:
        """The wire form of the error (sent to the sender only)."""
        return {"code": self.code, "message": self.message}

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.code!r}, {self.message!r})"
