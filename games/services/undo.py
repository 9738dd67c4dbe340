"""Taking back the last roll or move of a person, in local play on one device."""

from __future__ import annotations

from functools import partial
from typing import Any

from django.db import transaction
from django.utils.translation import gettext_lazy

from audit import actions
from audit import services as audit
from games.match.errors import ServiceError, said
from games.match.replay import load_actions, undo_point
from games.models import (
    Mode,
    Turn,
)
from games.services.change import check_active
from games.services.kernel import ActionResult, begin, lock_match, result_of, save


def match_undo(*, match_id: int, user: Any, seq: int | None = None) -> ActionResult:
    """Local play only: take back the last roll or move a person made, with every computer
    step after it. The stream keeps what happened: an "undone" event withdraws the actions
    from that roll or move on, puts back the state before it and begins a new turn (see
    `games.match.replay`); later rolls draw fresh dice numbers.

    A move that was the only legal one is taken back with its roll (else it would play
    itself again). Refused (``no_undo``) in ranked, friendly and practice matches, and when
    nothing is left to take back (no person has acted, or someone left since). ``seq``, if
    given, is the match's seq the request was made against: a repeated request is refused
    as stale instead of taking back one more. Computer steps since ``seq`` (a bot's, or a
    lone move played by itself) do not make it stale: they are taken back too.
    """
    with transaction.atomic():
        match = lock_match(match_id)
        if match.mode != Mode.LOCAL:
            raise ServiceError(
                "no_undo", said(gettext_lazy("Undo is for local games on one device only"))
            )
        check_active(match)
        change = begin(match)
        if user is None or not any(s.user_id == user.pk for s in change.seats):
            raise ServiceError("not_seated", "You have no seat in this match")
        played = load_actions(match)
        if seq is not None and (
            seq > match.seq
            or any(a.seq > seq and getattr(a.row, "by", "") in ("", "player") for a in played)
        ):
            raise ServiceError(
                "stale", f"The match has moved on (v{match.seq}, not v{seq}): here is the new state"
            )
        people = {s.corner for s in change.seats if not s.bot}
        point = undo_point(match, people, played)
        if point is None:
            raise ServiceError(
                "no_undo", said(gettext_lazy("There is no roll or move of a person to take back"))
            )
        target, restored = point
        change.state = restored
        change.turn += 1
        data = {
            "from": target.seq,
            "to": match.seq,
            "corner": restored.to_play,
            "turn": change.turn,
        }
        at = change.event("undone", data)
        change.rows.append(
            Turn(match=match, n=change.turn, corner=restored.to_play, seq=at, started_at=change.now)
        )
        change.audits.append(
            partial(
                audit.record,
                action=actions.MATCH_UNDONE,
                actor=user,
                obj=match,
                extra={"code": match.code, **data},
            )
        )
        save(change)
        return result_of(change)
