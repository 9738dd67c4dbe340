"""Reading a match's report (`games.models.MatchReport`) as the replay API and page show it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from games.models import Match, MatchReport, Mode, Seat, Status


def report_for(match: Match) -> dict[str, Any] | None:
    """The replay's `report`: None while the match is still on (or was aborted); else
    ``{"state": "pending"}`` until the analysis is stored, then the stored report with
    ``"state": "ready"`` and ``"voided"`` (true once a moderator voided the match: the report
    is the one made when it finished)."""
    if match.status not in (Status.FINISHED, Status.VOID):
        return None
    voided = match.status == Status.VOID
    stored = MatchReport.objects.filter(match=match).first()
    if stored is None:
        return {"state": "pending", "voided": voided}
    return {**stored.data, "state": "ready", "voided": voided}


RECENT = 20  # a profile's matches for luck and decisions


@dataclass(frozen=True)
class PlayedReport:
    """One of a player's analysed matches, from their seat's side."""

    code: str
    ended_at: Any
    ruleset: str
    players: int
    luck: float  # winning chances the dice gave (+) or took (-) over the match
    choices: int  # moves with a real choice
    best: int  # ... where the best move was played
    lost: float  # winning chances given away by moves

    @property
    def luck_points(self) -> float:
        return self.luck * 100


@dataclass(frozen=True)
class LuckSummary:
    """Luck and decisions over a player's recent analysed matches (newest first in
    `matches`). `running` is the average luck a match over the first 1, 2, 5, 10 and 20 of
    them counted from the oldest: it shrinks towards zero as matches add up (luck evens out),
    while single matches swing far (`swing`: the largest luck of one match, either way)."""

    matches: list[PlayedReport]
    luck: float  # average a match
    swing: float
    running: list[tuple[int, float]]
    best_share: float | None  # over every choice of every match
    lost_per_choice: float | None

    # As the profile shows them: percentage points.
    @property
    def luck_points(self) -> float:
        return self.luck * 100

    @property
    def swing_points(self) -> float:
        return self.swing * 100

    @property
    def best_percent(self) -> float | None:
        return None if self.best_share is None else self.best_share * 100

    @property
    def lost_points(self) -> float | None:
        return None if self.lost_per_choice is None else self.lost_per_choice * 100

    @property
    def running_points(self) -> list[tuple[int, float]]:
        return [(n, avg * 100) for n, avg in self.running]


def player_reports(user: Any, limit: int = RECENT) -> LuckSummary:
    """The player's latest finished (not voided), analysed matches at their own seat (local
    games on one device are left out: several people played one account there)."""
    rows = (
        Seat.objects.filter(
            user_id=user.pk,
            bot__isnull=True,
            match__status=Status.FINISHED,
            match__report__isnull=False,
        )
        .exclude(match__mode=Mode.LOCAL)
        .select_related("match", "match__report")
        .order_by("-match__finished_at", "-match_id")[:limit]
    )
    found = []
    for seat in rows:
        data = seat.match.report.data
        mine = data.get("seats", {}).get(str(seat.corner))
        if not mine:
            continue
        choices = int(mine.get("choices", 0))
        share = mine.get("best_share")
        found.append(
            PlayedReport(
                seat.match.code,
                seat.match.finished_at,
                seat.match.options.get("rules", seat.match.ruleset),
                seat.match.players,
                float(mine["luck"]),
                choices,
                round(share * choices) if share is not None else 0,
                float(mine["lost"]),
            )
        )
    if not found:
        return LuckSummary([], 0.0, 0.0, [], None, None)
    oldest_first = list(reversed(found))
    running = []
    for n in (1, 2, 5, 10, 20):
        if n <= len(oldest_first):
            running.append((n, sum(r.luck for r in oldest_first[:n]) / n))
    choices = sum(r.choices for r in found)
    return LuckSummary(
        found,
        sum(r.luck for r in found) / len(found),
        max(abs(r.luck) for r in found),
        running,
        sum(r.best for r in found) / choices if choices else None,
        sum(r.lost for r in found) / choices if choices else None,
    )
