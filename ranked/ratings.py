"""Ratings for ranked play: Weng-Lin (openskill, Plackett-Luce) per queue.

A finished ranked match rates its players from the engine's final placings (a forfeit or a
resignation places below everyone who played on, as `games.engine.standings` orders them).
`rate_finished` runs inside the transaction that finishes the match (called by the match
services, which write the seats' before/after); `rerate` replays a whole queue's history
without the matches that were voided, so upholding a dispute leaves exactly the ratings a
history without that match would have given. Every rating change goes into the audit log.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.db import transaction
from openskill.models import PlackettLuce

from audit import actions
from audit import services as audit
from fairplay.selectors import off_leaderboards
from games.models import Match, Status

from .models import Queue, Rating

MODEL = PlackettLuce()
MU: float = MODEL.mu
SIGMA: float = MODEL.sigma

# Which rule set and player count each queue plays (plain presets: no house rules).
QUEUE_RULES: dict[str, tuple[str, int]] = {
    Queue.CLASSIC_2: ("classic", 2),
    Queue.CLASSIC_4: ("classic", 4),
    Queue.DUEL: ("duel", 2),
    Queue.QUICK_4: ("quick", 4),
}


def leaderboard_min_games() -> int:
    return int(settings.RANKED_LEADERBOARD_MIN_GAMES)


def ordinal(mu: float, sigma: float) -> float:
    return mu - 3 * sigma


def as_record(mu: float, sigma: float) -> dict[str, float]:
    """How a rating is stored on a seat and in the audit log."""
    return {"mu": round(mu, 6), "sigma": round(sigma, 6), "ordinal": round(ordinal(mu, sigma), 6)}


def queue_for(ruleset: str, players: int) -> str | None:
    for queue, (name, count) in QUEUE_RULES.items():
        if name == ruleset and count == players:
            return str(queue)
    return None


def queue_of(match: Any) -> str | None:
    """The ranked queue a match counts in, or None (not ranked, or not a queue's rules)."""
    if match.mode != "ranked":
        return None
    if match.options.get("rules", match.ruleset) != match.ruleset:
        return None  # house rules or party options: not a ranked queue
    return queue_for(match.ruleset, match.players)


@dataclass(frozen=True)
class Result:
    """One seat's rating change in one match."""

    user_id: int
    place: int
    before: dict[str, float]
    after: dict[str, float]

    @property
    def change(self) -> float:
        return round(self.after["ordinal"] - self.before["ordinal"], 6)


def _places(seats: Iterable[Any]) -> list[tuple[int, int]]:
    """(user id, place) for every player seat; a seat without a place is placed last."""
    seated = [s for s in seats if s.user_id is not None and not s.bot]
    last = max((s.place for s in seated if s.place), default=0) + 1
    return [(s.user_id, s.place or last) for s in seated]


def _rate(
    current: Sequence[tuple[float, float]], places: Sequence[int]
) -> list[tuple[float, float]]:
    teams = [[MODEL.rating(mu=mu, sigma=sigma)] for mu, sigma in current]
    rated = MODEL.rate(teams, ranks=list(places))
    return [(team[0].mu, team[0].sigma) for team in rated]


def _locked(queue: str, user_ids: Iterable[int]) -> dict[int, Rating]:
    """The users' rating rows in `queue`, created at the start value if new, locked."""
    ids = sorted(set(user_ids))
    Rating.objects.bulk_create(
        [
            Rating(user_id=u, queue=queue, mu=MU, sigma=SIGMA, ordinal=ordinal(MU, SIGMA))
            for u in ids
        ],
        ignore_conflicts=True,
    )
    rows = (
        Rating.objects.select_for_update().filter(queue=queue, user_id__in=ids).order_by("user_id")
    )
    return {r.user_id: r for r in rows}


def rate_finished(match: Any, seats: Iterable[Any]) -> list[Result]:
    """Rate a ranked match that has just finished (inside its transaction). Returns each
    player's result; the caller stores them on the seats and audits them (`record_changes`).
    Nothing for unranked matches."""
    queue = queue_of(match)
    if queue is None:
        return []
    places = _places(seats)
    if len(places) < 2:
        return []
    rows = _locked(queue, (u for u, _ in places))
    current = [(rows[u].mu, rows[u].sigma) for u, _ in places]
    new = _rate(current, [p for _, p in places])
    results = []
    for (user_id, place), (mu0, s0), (mu1, s1) in zip(places, current, new, strict=True):
        row = rows[user_id]
        row.mu, row.sigma, row.ordinal = mu1, s1, ordinal(mu1, s1)
        row.games += 1
        row.wins += place == 1
        row.save(update_fields=["mu", "sigma", "ordinal", "games", "wins", "updated_at"])
        results.append(Result(user_id, place, as_record(mu0, s0), as_record(mu1, s1)))
    return results


def record_changes(match: Any, results: Iterable[Result]) -> None:
    """Write each rating change of a finished match to the audit log."""
    queue = queue_of(match)
    for result in results:
        audit.record(
            action=actions.RATING_CHANGED,
            obj=match,
            extra={
                "user": result.user_id,
                "queue": queue,
                "code": match.code,
                "place": result.place,
                "before": result.before,
                "after": result.after,
            },
        )


def rerate(queue: str, *, reason: str = "") -> dict[int, Result]:
    """Recompute every rating in `queue` from its finished, not voided, ranked matches in the
    order they finished (a seat whose rating a moderator protected keeps its rating). Returns
    the result of every seat (by seat id) for the caller to store on the seats. Rating rows are
    rewritten; a player with no rated match left goes back to the start value. Must run inside
    a transaction (the queue's rows stay locked)."""
    assert transaction.get_connection().in_atomic_block, "rerate runs inside a transaction"
    rules, players = QUEUE_RULES[queue]
    rows = {r.user_id: r for r in Rating.objects.select_for_update().filter(queue=queue)}
    matches = (
        Match.objects.filter(mode="ranked", status=Status.FINISHED, ruleset=rules, players=players)
        .order_by("finished_at", "pk")
        .prefetch_related("seats")
    )
    state: dict[int, tuple[float, float, int, int]] = {}  # user -> mu, sigma, games, wins
    by_seat: dict[int, Result] = {}
    for match in matches:
        if queue_of(match) != queue:
            continue
        seats = list(match.seats.all())
        places = _places(seats)
        if len(places) < 2:
            continue
        current = [state.get(u, (MU, SIGMA, 0, 0))[:2] for u, _ in places]
        new = _rate(current, [p for _, p in places])
        seat_of = {s.user_id: s for s in seats if s.user_id is not None}
        for (user_id, place), (mu0, s0), (mu1, s1) in zip(places, current, new, strict=True):
            _, _, games, wins = state.get(user_id, (MU, SIGMA, 0, 0))
            if seat_of[user_id].rating_protected:
                # A moderator's remedy: the match leaves this player's rating as it was (the
                # others are still rated against them).
                state[user_id] = (mu0, s0, games, wins)
                by_seat[seat_of[user_id].pk] = Result(
                    user_id, place, as_record(mu0, s0), as_record(mu0, s0)
                )
                continue
            state[user_id] = (mu1, s1, games + 1, wins + (place == 1))
            by_seat[seat_of[user_id].pk] = Result(
                user_id, place, as_record(mu0, s0), as_record(mu1, s1)
            )
    changed = []
    for user_id in sorted(set(rows) | set(state)):
        mu, sigma, games, wins = state.get(user_id, (MU, SIGMA, 0, 0))
        row = rows.get(user_id) or Rating(user_id=user_id, queue=queue)
        before = (row.mu, row.sigma, row.games, row.wins) if row.pk else None
        if before == (mu, sigma, games, wins):
            continue
        row.mu, row.sigma, row.ordinal, row.games, row.wins = (
            mu,
            sigma,
            ordinal(mu, sigma),
            games,
            wins,
        )
        row.save()
        changed.append(
            {
                "user": user_id,
                "before": as_record(*before[:2]) if before else None,
                "after": as_record(mu, sigma),
                "games": games,
            }
        )
    if changed:
        audit.record(
            action=actions.RATING_RECOMPUTED,
            extra={"queue": queue, "reason": reason, "changed": changed},
        )
    return by_seat


def leaderboard(queue: str, *, limit: int = 100) -> list[Rating]:
    """The queue's players by ``mu - 3 sigma``, best first, once they have played enough;
    not those a moderator's mark takes off the leaderboards (fairplay)."""
    return list(
        Rating.objects.filter(queue=queue, games__gte=leaderboard_min_games())
        .exclude(user_id__in=off_leaderboards())
        .select_related("user")
        .order_by("-ordinal", "user_id")[:limit]
    )
