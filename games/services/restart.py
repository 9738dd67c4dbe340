"""A turn's clock started again when its player could not be told of the change in time."""

from __future__ import annotations

from datetime import timedelta

from django.db import transaction

from audit.clock import db_now
from games.models import Match, Seat, Status
from games.services.deadlines import turn_seconds
from games.services.kernel import write_fenced


def match_clock_restart(*, match_id: int, seq: int) -> bool:
    """The player to act could not be told of change `seq` in time (its broadcast failed, or
    their socket was found behind it): their turn's clock starts again from now, so nobody is
    timed out because their screen was stale. Nothing happens (False) when the match moved on
    past `seq`, is not active, has no turn clock, or a bot (or the computer for an away
    player) is to act, or the deadline is later already."""
    with transaction.atomic():
        match = Match.objects.select_for_update().filter(pk=match_id).first()
        if match is None or match.status != Status.ACTIVE or match.seq != seq:
            return False
        seconds = turn_seconds(match)
        state = match.state()
        if seconds is None or match.turn_deadline is None or state is None:
            return False
        seat = Seat.objects.filter(match=match, corner=state.to_play).first()
        if seat is None or seat.bot or seat.away:
            return False
        deadline = db_now() + timedelta(seconds=seconds)
        if deadline <= match.turn_deadline:
            return False
        match.turn_deadline = deadline
        write_fenced(match, ["turn_deadline"])
    return True
