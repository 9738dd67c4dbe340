"""Services for the disconnect grace, by the rules of `games.services` (to be merged there):
one transaction each, the match locked with ``SELECT ... FOR UPDATE``, rows appended through
the same change object, the broadcast after commit. Nothing here trusts the caller's timer:
each one re-reads the seat and does nothing if the player came back or the match moved on.
"""

from __future__ import annotations

from datetime import timedelta
from functools import partial

from django.db import transaction

from audit import services as audit

from . import broadcast, services
from .models import MatchEvent, Status


def grace_expired(*, match_id: int, corner: int) -> str | None:
    """A disconnected player's grace ran out. Returns what followed: "forfeit" (the seat is
    out, as in classic and duel), "away" (the computer plays their turns from now on, as in
    mensch and party), or None (they are back, or the match is over: nothing changed)."""
    with transaction.atomic():
        match = services._lock(match_id)
        if match.status != Status.ACTIVE:
            return None
        change = services._begin(match)
        seat = change.seat_at(corner)
        if seat is None or seat.connected or seat.left or seat.bot:
            return None
        rules = match.rules
        if rules.on_disconnect == "forfeit":
            change.leave(seat, reason="disconnected", forfeit=True)
            change.audits.append(
                partial(
                    audit.record,
                    action="match.forfeited",
                    actor=seat.user,
                    obj=match,
                    extra={"corner": seat.corner, "reason": "disconnected"},
                )
            )
            services._save(change)
            return "forfeit"
        if rules.on_disconnect in ("computer", "bot"):
            # Not a change of the game: no event, no seq; the room is told who plays the seat.
            event = {"kind": "away", "corner": corner, "by": rules.on_disconnect}
            transaction.on_commit(partial(broadcast.match_changed, match.pk, match.seq, [event]))
            return "away"
        return None


def away_act(*, match_id: int, corner: int) -> str | None:
    """The computer takes one step (a roll or a move) for `corner`, marked away, when it is
    their turn and a bot's pause has passed since the last change. Returns "acted", None
    (not now), or "gone" (the match ended, the seat left, or the player is back)."""
    with transaction.atomic():
        match = services._lock(match_id)
        if match.status != Status.ACTIVE:
            return "gone"
        change = services._begin(match)
        seat = change.seat_at(corner)
        if seat is None or seat.left or seat.connected:
            return "gone"
        state = change.state
        if state is None or state.phase == "over" or state.to_play != corner:
            return None
        last = MatchEvent.objects.filter(match=match).order_by("-seq").values_list("at").first()
        if last is not None and last[0] + timedelta(seconds=services.bot_delay()) > change.now:
            return None
        services._bot_step(change, seat)
        services._save(change)
        return "acted"
