"""Storing a finished match's report (`games.bots.analysis`): once, never changed.

`analyse_match` is what the Celery task (`games.analyse_finished`) and `manage.py
analyse_match CODE` both call. A voided match keeps the report made when it finished (the
replay says it was voided); one voided before it was analysed is analysed all the same.
"""

from __future__ import annotations

import time
from typing import Any

from django.db import IntegrityError, transaction
from django.utils.translation import gettext as _

from games.bots.analysis import VERSION, analyse
from games.engine import Move
from games.match.errors import ServiceError
from games.match.replay import initial_state, load_actions
from games.models import Match, MatchEvent, MatchReport, Status
from games.models import Move as MoveRow
from games.models import Roll as RollRow

ANALYSED = (Status.FINISHED, Status.VOID)


def effective_actions(match: Match) -> list[tuple[Any, ...]]:
    """The match's rolls, moves and leaves in order, without those an undo withdrew."""
    kept: list[tuple[Any, ...]] = []
    for action in load_actions(match):
        row = action.row
        if action.kind == "undo":
            assert isinstance(row, MatchEvent)
            low, high = int(row.data["from"]), int(row.data["to"])
            kept = [a for a in kept if not low <= a[1] <= high]
        elif isinstance(row, RollRow):
            kept.append(("roll", action.seq, row.face, row.bonus))
        elif isinstance(row, MoveRow):
            named = Move(row.pawn_corner, row.pawn, row.frm, row.to)
            kept.append(("move", action.seq, named, row.shield))
        else:
            assert isinstance(row, MatchEvent)
            kept.append(("leave", action.seq, int(row.data["corner"]), str(row.data["reason"])))
    return kept


def analyse_match(match_id: int) -> MatchReport:
    """The report of a finished (or voided) match: the stored one, or made and stored now."""
    found = MatchReport.objects.filter(match_id=match_id).first()
    if found is not None:
        return found
    match = Match.objects.get(pk=match_id)
    if match.status not in ANALYSED or match.finished_at is None:
        raise ServiceError("not_finished", _("Only a finished match has a report"))
    start = initial_state(match)
    if start is None:
        raise ServiceError("not_finished", _("Only a finished match has a report"))
    began = time.process_time()
    data = analyse(start, effective_actions(match))
    seconds = time.process_time() - began
    try:
        with transaction.atomic():
            return MatchReport.objects.create(
                match=match, version=VERSION, data=data, seconds=seconds
            )
    except IntegrityError:  # another worker stored it first: that one stands
        return MatchReport.objects.get(match_id=match_id)


def pending(limit: int) -> list[int]:
    """Finished matches without a report, oldest first."""
    return list(
        Match.objects.filter(status__in=ANALYSED, finished_at__isnull=False, report__isnull=True)
        .order_by("finished_at")
        .values_list("pk", flat=True)[:limit]
    )
