"""Each player's reliability record: of their recent online matches with another person,
how many they abandoned, timed out of or were disconnected from for good, counted more
heavily when they were losing at the time.

Read from the match rows (nothing is stored beside them): the last `WINDOW` ended ranked or
friendly matches (quick match included) with at least two people seated. A match counts one
incident at most:

- *timed out*: forfeited on the turn clock (a "leave" event, reason "timeout");
- *disconnected*: forfeited when the disconnect grace ran out ("disconnected"), or still away
  (the computer playing for them) when the match ended;
- *abandoned*: left the room for good (a "gone" seat at the end, or taken out as a leaver
  who never returned, "left").

A resignation that ends a two-player match is a result, not an incident. *Losing at the time*:
before the incident, the player's pawns stood less far along than some rival's (the state
replayed up to that event); such an incident weighs `LOSING_WEIGHT`. The figure is
``100 × (1 − weighted incidents / matches)``, at least 0, shown once a player has
`MIN_MATCHES` matches counted.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.db.models import Count, Exists, IntegerField, OuterRef, Subquery
from django.db.models.fields.json import KT
from django.db.models.functions import Cast
from django.utils.translation import gettext as _

from games.engine import YARD, State
from games.match.replay import replay
from games.models import MatchEvent, Mode, Seat, Status

WINDOW = 50
LOSING_WEIGHT = 2.0
KINDS = ("abandoned", "timed_out", "disconnected")
_BY_REASON = {"timeout": "timed_out", "disconnected": "disconnected", "left": "abandoned"}


def min_matches() -> int:
    return int(settings.RELIABILITY_MIN_MATCHES)


def poor_below() -> int:
    return int(settings.RELIABILITY_POOR_BELOW)


def ranked_min() -> int:
    return int(settings.RANKED_MIN_RELIABILITY)


@dataclass(frozen=True)
class Incident:
    match_id: int
    code: str  # the match's room code
    kind: str  # one of KINDS
    losing: bool

    @property
    def weight(self) -> float:
        return LOSING_WEIGHT if self.losing else 1.0


@dataclass(frozen=True)
class Record:
    """One player's reliability over their last `WINDOW` counted matches."""

    matches: int
    incidents: tuple[Incident, ...]

    def count(self, kind: str) -> int:
        return sum(1 for i in self.incidents if i.kind == kind)

    @property
    def abandoned(self) -> int:
        return self.count("abandoned")

    @property
    def timed_out(self) -> int:
        return self.count("timed_out")

    @property
    def disconnected(self) -> int:
        return self.count("disconnected")

    @property
    def while_losing(self) -> int:
        return sum(1 for i in self.incidents if i.losing)

    @property
    def weighted(self) -> float:
        return sum(i.weight for i in self.incidents)

    @property
    def percent(self) -> int | None:
        """The one figure others see (0 to 100), or None with too few matches to tell."""
        if self.matches < min_matches():
            return None
        return max(0, round(100 * (1 - self.weighted / self.matches)))

    @property
    def poor(self) -> bool:
        """Poor reliability: such players meet each other first in the queues."""
        return self.percent is not None and self.percent < poor_below()

    @property
    def below_ranked(self) -> bool:
        """Too unreliable to join a ranked queue."""
        return self.percent is not None and self.percent < ranked_min()

    @property
    def shown(self) -> str:
        """The plain figure: "92%", or "new" before `MIN_MATCHES` matches."""
        return _("new") if self.percent is None else f"{self.percent}%"


def standing(state: State, corner: int) -> int:
    """How far along `corner`'s pawns stand, all together (a pawn at home counts its whole
    way; one in the yard nothing)."""
    return sum(p - YARD for p in state.pawns[corner])


def was_losing(state: State | None, corner: int) -> bool:
    """Whether `corner` stood behind a rival (a corner still playing, not its Pairs partner)
    in `state`."""
    if state is None or corner not in state.seats or corner in state.placings:
        return False
    partner = (corner + 2) % 4 if state.rules.pairs else -1
    rivals = [
        c
        for c in state.seats
        if c not in (corner, partner) and c not in state.out and state.pawns[c]
    ]
    mine = standing(state, corner)
    return any(standing(state, c) > mine for c in rivals)


def _counted_seats(user_id: int) -> list[Any]:
    people = (
        Seat.objects.filter(match=OuterRef("match"), user__isnull=False, bot__isnull=True)
        .order_by()
        .values("match")
        .annotate(n=Count("pk"))
        .values("n")
    )
    left = (
        MatchEvent.objects.filter(
            match=OuterRef("match"), kind="leave", data__reason__in=list(_BY_REASON)
        )
        .annotate(leaver=Cast(KT("data__corner"), IntegerField()))
        .filter(leaver=OuterRef("corner"))
    )
    return list(
        Seat.objects.filter(
            user_id=user_id,
            match__mode__in=(Mode.RANKED, Mode.FRIENDLY),
            match__status__in=(Status.FINISHED, Status.ABORTED),
        )
        .annotate(people=Subquery(people), left_early=Exists(left))
        .filter(people__gte=2)
        .select_related("match")
        .order_by("-match__finished_at", "-match_id")[:WINDOW]
    )


def _incident(seat: Any, leaves: list[MatchEvent], state_before: State | None) -> Incident | None:
    match = seat.match
    for event in leaves:
        kind = _BY_REASON.get(str(event.data.get("reason")))
        if kind is not None:
            return Incident(match.pk, match.code, kind, was_losing(state_before, seat.corner))
    if seat.gone or seat.away:
        kind = "abandoned" if seat.gone else "disconnected"
        final = match.state()
        last = max((s.place or 0) for s in match.seats.all())
        losing = was_losing(final, seat.corner) or bool(seat.place and seat.place == last)
        return Incident(match.pk, match.code, kind, losing)
    return None


def record(user_id: int) -> Record:
    """`user_id`'s reliability record now."""
    seats = _counted_seats(user_id)
    # The leave events only of the matches that have one (one query for the rest).
    corners = {s.match_id: s.corner for s in seats if s.left_early}
    leaves: dict[int, list[MatchEvent]] = {}
    for event in MatchEvent.objects.filter(match_id__in=corners, kind="leave").order_by("seq"):
        if event.data.get("corner") == corners[event.match_id]:
            leaves.setdefault(event.match_id, []).append(event)
    incidents = []
    for seat in seats:
        own = leaves.get(seat.match_id, [])
        counted = [e for e in own if str(e.data.get("reason")) in _BY_REASON]
        before = replay(seat.match, counted[0].seq - 1) if counted else None
        found = _incident(seat, counted, before)
        if found is not None:
            incidents.append(found)
    return Record(matches=len(seats), incidents=tuple(incidents))


def records(user_ids: Iterable[int]) -> dict[int, Record]:
    return {u: record(u) for u in set(user_ids)}


def poor_players(user_ids: Iterable[int]) -> set[int]:
    """Of `user_ids`, those of poor reliability."""
    return {u for u, r in records(user_ids).items() if r.poor}
