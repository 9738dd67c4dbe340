"""Reading a match's report (`games.models.MatchReport`) as the replay API and page show it."""

from __future__ import annotations

from typing import Any

from games.models import Match, MatchReport, Status


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
