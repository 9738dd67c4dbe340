"""Quick reactions in online rooms: a fixed set of faces and short phrases, never free text
(nothing to moderate). A reaction is stored with the match like any event (kind "reaction",
``{"corner", "r"}``) and broadcast to the room; the replay lists it.

A reaction is not a change of the game: an action made against the match's seq before a
reaction arrived is not stale for it (`only_reactions_since`). Each seat may react once every
`EVERY` seconds and `PER_MATCH` times in a match, counted by the database.
"""

from __future__ import annotations

from datetime import timedelta
from functools import partial
from typing import Any

from django.db import transaction
from django.db.models.functions import Now
from django.utils.translation import gettext_lazy as _

from games.match.errors import ServiceError, said
from games.models import Match, MatchEvent, Mode, Seat, Status
from games.services import broadcast
from games.services.kernel import write_fenced

# Wire key -> what the room shows. Add, never rename: old matches store the keys. The faces
# (ICONS) are drawn by the site (static/reactions.svg, issue 30: an emoji font is not on every
# system), their words here are what the history, the replay and a screen reader say.
CHOICES: dict[str, Any] = {
    "thumbs": _("Thumbs up"),
    "laugh": _("Laughing"),
    "wow": _("Wow"),
    "sad": _("Sad"),
    "angry": _("Angry"),
    "gl": _("Good luck!"),
    "nice": _("Nice move!"),
    "oops": _("Oops!"),
    "hurry": _("Your turn…"),
    "gg": _("Good game!"),
}
ICONS = frozenset({"thumbs", "laugh", "wow", "sad", "angry"})
KIND = "reaction"


def shown() -> dict[str, str]:
    """The reactions in the reader's language: key -> words (for the page's JSON)."""
    return {key: str(words) for key, words in CHOICES.items()}


EVERY = timedelta(seconds=2)
PER_MATCH = 120
ONLINE = frozenset({Mode.RANKED, Mode.FRIENDLY})


class ReactionError(ServiceError):
    codes = ServiceError.codes | {"rate_limited"}


def match_react(*, match_id: int, user: Any, reaction: str) -> dict[str, Any]:
    """`user` reacts in their room; returns the stored event as clients get it."""
    if reaction not in CHOICES:
        raise ReactionError("bad_request", f"Reactions are one of {', '.join(CHOICES)}")
    with transaction.atomic():
        try:
            match = Match.objects.select_for_update().annotate(db_now=Now()).get(pk=match_id)
        except Match.DoesNotExist:
            raise ReactionError("not_found", "There is no such match") from None
        if match.mode not in ONLINE:
            raise ReactionError("bad_request", said(_("Reactions are for online rooms")))
        if match.status == Status.WAITING:
            raise ReactionError("over", said(_("Reactions open when the match starts")))
        if match.status != Status.ACTIVE:  # finished, aborted or void: nothing to react to
            raise ReactionError("over", said(_("The match is over: reactions are closed")))
        seat = Seat.objects.filter(match=match, user=user).order_by("corner").first()
        if seat is None:
            raise ReactionError("not_seated", said(_("You are watching: only players react")))
        mine = MatchEvent.objects.filter(match=match, kind=KIND, data__corner=seat.corner)
        last = mine.order_by("-seq").values_list("at", flat=True).first()
        now = match.db_now
        if last is not None and now - last < EVERY:
            raise ReactionError("rate_limited", said(_("One reaction every two seconds")))
        if mine.count() >= PER_MATCH:
            raise ReactionError("rate_limited", said(_("That is enough reactions for one match")))
        match.seq += 1
        event = MatchEvent.objects.create(
            match=match,
            seq=match.seq,
            change=match.seq,
            kind=KIND,
            data={"corner": seat.corner, "r": reaction},
            at=now,
        )
        write_fenced(match, ["seq"])
        wire = event.as_wire()
        transaction.on_commit(partial(broadcast.match_changed, match.pk, match.seq, [wire]))
    return wire


def only_reactions_since(match: Match, seq: int) -> bool:
    """Whether every event after `seq` is a reaction (an action made against `seq` still
    stands)."""
    if seq >= match.seq:
        return False
    return not MatchEvent.objects.filter(match=match, seq__gt=seq).exclude(kind=KIND).exists()
