"""Rematch: the same seats, a new match, once a friend room, a practice or a local game is
over (ranked and quick players queue again instead).

The first player to ask opens the new room, with the old room's rules and its bots in the
same corners, taking the first free seat (as a host does); the old room records it with a
"rematch" event ``{"code", "by"}`` so the others are told and join the same new room
(`match_rematch` again, from their own page). Practice and local games start at once: every
seat is a bot or the one person.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.db.models.functions import Now

from games.match.errors import ServiceError
from games.models import Match, MatchEvent, Mode, Seat, Status
from games.services import broadcast
from games.services.create import match_create
from games.services.join import match_join

KIND = "rematch"
REMATCH_MODES = frozenset({Mode.FRIENDLY, Mode.PRACTICE, Mode.LOCAL})


def rematch_code(match: Match) -> str | None:
    """The room code of `match`'s rematch, if someone opened one."""
    event = MatchEvent.objects.filter(match=match, kind=KIND).order_by("seq").first()
    return str(event.data["code"]) if event is not None else None


def match_rematch(*, match_id: int, user: Any, ip: str | None = None) -> Match:
    """The rematch of a finished match for `user`, who had a seat in it: opened by the first
    to ask, joined by the others."""
    with transaction.atomic():
        try:
            old = Match.objects.select_for_update().annotate(db_now=Now()).get(pk=match_id)
        except Match.DoesNotExist:
            raise ServiceError("not_found", "There is no such match") from None
        if old.mode not in REMATCH_MODES:
            raise ServiceError("bad_request", "Ranked players queue again for a new match")
        if old.status != Status.FINISHED:
            raise ServiceError("bad_request", "A rematch is for a finished match")
        seats = list(Seat.objects.filter(match=old).order_by("corner"))
        if not any(s.user_id == user.pk for s in seats):
            raise ServiceError("not_seated", "Only the match's players ask for a rematch")
        code = rematch_code(old)
        if code is not None:
            new = Match.objects.get(code=code)
            if not new.seats.filter(user=user).exists() and new.status == Status.WAITING:
                match_join(code=code, user=user, ip=ip)
            return new
        options = old.options or {}
        new = match_create(
            ruleset=old.ruleset,
            players=old.players,
            mode=old.mode,
            house_rules=options.get("house_rules") or [],
            options=[n for n in ("pairs", "power") if options.get(n)],
            host=user,
            bots={s.corner: s.bot for s in seats if s.bot},
            ip=ip,
            pace=options.get("pace"),
        )
        old.seq += 1
        mine = next(s.corner for s in seats if s.user_id == user.pk)
        event = MatchEvent.objects.create(
            match=old,
            seq=old.seq,
            change=old.seq,
            kind=KIND,
            data={"code": new.code, "by": mine},
            at=old.db_now,
        )
        old.save(update_fields=["seq"])
        wire = event.as_wire()
        transaction.on_commit(lambda: broadcast.match_changed(old.pk, old.seq, [wire]))
    return new
