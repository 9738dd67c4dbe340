"""What a player's profile shows: ratings per ranked queue, results, and match history.

Reads only. A voided match stays in the history, marked void, and counts nowhere: not in the
results here, not in the ratings (`ranked.ratings.rerate` replays the queue without it).
Matches played on one device (local mode) are listed but count as no one's result.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.core.paginator import Page, Paginator
from django.db.models import Count, Exists, OuterRef, Q, QuerySet
from django.db.models.functions import Coalesce
from django.utils.translation import gettext as _
from django.utils.translation import pgettext

from fairplay.selectors import off_leaderboards
from games.match import names
from games.models import ENDED, Match, Mode, Seat, Status
from ranked.models import Queue, Rating
from ranked.ratings import leaderboard_min_games

from .models import User

HISTORY_PER_PAGE = 20


@dataclass(frozen=True)
class QueueRating:
    """A player's standing in one ranked queue (``rating`` None: not played there yet)."""

    queue: str
    label: str
    rating: Rating | None
    rank: int | None  # place on the leaderboard, once the player has played enough
    games_to_board: int  # rated games still needed to appear on the leaderboard


def queue_ratings(user: User) -> list[QueueRating]:
    """Every ranked queue with the player's rating in it, in the queues' order."""
    off = off_leaderboards()
    # A moderator's mark (fairplay) takes the player off the boards: no place, read with the
    # ratings in one query.
    mine = Rating.objects.filter(user=user).annotate(
        marked=Exists(off.filter(user_id=OuterRef("user_id")))
    )
    rows = {r.queue: r for r in mine}
    needed = leaderboard_min_games()
    out = []
    for queue, label in Queue.choices:
        row = rows.get(queue)
        rank = None
        if row is not None and row.games >= needed and not row.marked:
            ahead = (
                Rating.objects.filter(queue=queue, games__gte=needed)
                .exclude(user_id__in=off)
                .filter(
                    Q(ordinal__gt=row.ordinal) | Q(ordinal=row.ordinal, user_id__lt=row.user_id)
                )
            )
            rank = ahead.count() + 1
        games = row.games if row is not None else 0
        out.append(QueueRating(queue, label, row, rank, max(0, needed - games)))
    return out


@dataclass(frozen=True)
class Results:
    played: int  # finished matches that count (not local, not void)
    won: int
    by_mode: list[tuple[str, int, int]]  # (mode label, played, won)
    voided: int


def results(user: User) -> Results:
    """Finished matches and wins, overall and per mode; voided matches counted apart."""
    seats = Seat.objects.filter(user=user).exclude(match__mode=Mode.LOCAL)
    counted = seats.filter(match__status=Status.FINISHED)
    per_mode = {
        row["match__mode"]: (row["played"], row["won"])
        for row in counted.values("match__mode").annotate(
            played=Count("match", distinct=True), won=Count("match", filter=Q(place=1))
        )
    }
    by_mode = [(str(label), *per_mode[mode]) for mode, label in Mode.choices if mode in per_mode]
    return Results(
        played=sum(p for _, p, _ in by_mode),
        won=sum(w for _, _, w in by_mode),
        by_mode=by_mode,
        voided=seats.filter(match__status=Status.VOID).values("match").distinct().count(),
    )


def ordinal(n: int) -> str:
    """A place, "2nd", in the reader's language (the place words the ranked queue's page uses;
    a match seats at most four)."""
    if n == 1:
        return pgettext("place", "1st")
    if n == 2:
        return pgettext("place", "2nd")
    if n == 3:
        return pgettext("place", "3rd")
    return pgettext("place", "%(place)sth") % {"place": n}


@dataclass(frozen=True)
class HistoryRow:
    match: Match
    outcome: str  # Won, 2nd of 4, Void...
    won: bool
    counted: bool  # False for void, aborted and local matches
    rating_change: float | None
    opponents: list[dict[str, Any]]  # {"name", "username" (None for bots/guests), "bot"}


def _outcome(match: Match, seat: Seat) -> tuple[str, bool, bool]:
    """The history row's outcome for the player (in the reader's language), whether they
    won, and whether the match counts."""
    if match.status == Status.VOID:
        return _("Void"), False, False
    if match.status == Status.ABORTED:
        return _("Aborted"), False, False
    if match.mode == Mode.LOCAL:
        return _("Played on one device"), False, False
    if seat.place == 1:
        return _("Won"), True, True
    if seat.place:
        place = {"place": ordinal(seat.place), "players": match.players}
        if seat.left:
            return _("%(place)s of %(players)s (left)") % place, False, True
        return _("%(place)s of %(players)s") % place, False, True
    return pgettext("outcome", "Left"), False, True


def _opponent(seat: Seat) -> dict[str, Any]:
    if seat.bot:
        name = _("%(level)s computer") % {"level": names.level(seat.bot)}
        return {"name": name, "username": None, "bot": True}
    user = seat.user
    if user is None:
        return {"name": _("Empty seat"), "username": None, "bot": False}
    public = not user.username.startswith("guest-")
    return {"name": user.shown_name, "username": user.username if public else None, "bot": False}


def history_matches(user: User) -> QuerySet[Match]:
    """The player's ended matches, newest first."""
    return (
        Match.objects.filter(seats__user=user, status__in=ENDED)
        .distinct()
        .annotate(ended_at=Coalesce("finished_at", "voided_at", "started_at", "created_at"))
        .order_by("-ended_at", "-pk")
    )


def history(user: User, page_number: Any) -> tuple[Page[Match], list[HistoryRow]]:
    """One page of the player's match history and its rows."""
    page = Paginator(history_matches(user), HISTORY_PER_PAGE).get_page(page_number)
    matches = list(page.object_list)
    seats: dict[int, list[Seat]] = {}
    for seat in Seat.objects.filter(match__in=matches).select_related("user"):
        seats.setdefault(seat.match_id, []).append(seat)
    rows = []
    for match in matches:
        mine = [s for s in seats.get(match.pk, []) if s.user_id == user.pk]
        seat = mine[0]
        outcome, won, counted = _outcome(match, seat)
        others = [] if match.mode == Mode.LOCAL else seats.get(match.pk, [])
        rows.append(
            HistoryRow(
                match=match,
                outcome=outcome,
                won=won,
                counted=counted,
                rating_change=seat.rating_change if counted else None,
                opponents=[_opponent(s) for s in others if s.user_id != user.pk],
            )
        )
    return page, rows
