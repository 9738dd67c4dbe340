"""The matches' own audit chains anchored into the global chain while they run.

A match's chain (`audit.actions.MATCH_CHAIN_ACTIONS`: connections, the clock's seat changes,
undos) is anchored when the match ends (`kernel.save`); while it runs, `anchor_running`
anchors every active match whose chain moved on since its last anchor, at most once every
`every` seconds for a match. The clock sweep calls it (every few minutes is enough: an anchor
bounds how much of a running match's chain could be cut back unnoticed).
"""

from __future__ import annotations

from datetime import timedelta

from django.db.models import Max
from django.db.models.functions import Now

from audit import actions
from audit import services as audit
from audit.models import AuditEntry
from games.models import Match, Status

ANCHOR_EVERY = 300.0  # seconds between two anchors of one running match's chain


def anchor_running(*, every: float = ANCHOR_EVERY, batch: int = 500) -> int:
    """Anchor the chains of active matches that moved on since their last anchor (or never
    had one) and were not anchored in the last `every` seconds; returns how many."""
    active = list(
        Match.objects.filter(status=Status.ACTIVE).order_by("id").values_list("id", flat=True)
    )
    done = 0
    for start in range(0, len(active), 2000):
        ids = active[start : start + 2000]
        heads = audit.chain_heads(ids)
        if not heads:
            continue
        anchored = audit.last_anchored(list(heads))
        recent = set(
            AuditEntry.objects.filter(
                chain__isnull=True,
                action=actions.MATCH_CHAIN_ANCHORED,
                object_type=actions.MATCH_OBJECT,
                object_id__in=[str(m) for m in heads],
                event_time__gt=Now() - timedelta(seconds=every),
            )
            .order_by()
            .values("object_id")
            .annotate(last=Max("id"))
            .values_list("object_id", flat=True)
        )
        for match_id, last in heads.items():
            if anchored.get(match_id) == last or str(match_id) in recent:
                continue
            if audit.anchor_chain(match_id, reason="running") is not None:
                done += 1
            if done >= batch:
                return done
    return done
