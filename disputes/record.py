"""A player's record, for moderators: disputes they filed and disputes about matches they
played (with outcomes), their recent matches, the voids among them, the accounts seen at
their addresses (with when), the moderation history, and the bot evidence over their recent
matches."""

from __future__ import annotations

from typing import Any

from django.db.models import Q

from audit.models import AuditEntry
from games.models import Mode, Seat, Status

from . import evidence
from .addresses import addresses_of, same_sides, sharing
from .models import Dispute

RECENT = 20

# Audit actions that are moderation: decisions and remedies, rights and reviews.
MODERATION = (
    "dispute.settled",
    "dispute.void_proposed",
    "dispute.proposal_refused",
    "dispute.assigned",
    "dispute.info_requested",
    "match.voided",
    "match.unvoided",
    "match.rating_protected",
    "user.rights_changed",
)


def record(user: Any) -> dict[str, Any]:
    filed = list(
        Dispute.objects.filter(player=user)
        .select_related("match", "settled_by", "appeal_of")
        .order_by("-opened_at", "-id")
    )
    played = Seat.objects.filter(user=user).values("match_id")
    against = list(
        Dispute.objects.filter(match_id__in=played)
        .exclude(player=user)
        .select_related("match", "player", "settled_by")
        .order_by("-opened_at", "-id")
    )
    seats = list(
        Seat.objects.filter(user=user)
        .exclude(match__mode=Mode.LOCAL)
        .select_related("match")
        .order_by("-match__created_at", "-match_id")[:RECENT]
    )
    voids = [
        s.match
        for s in Seat.objects.filter(user=user, match__status=Status.VOID).select_related("match")
    ]
    # Every address, the server's own loopback included and marked, as the review page shows
    # them (the conflict checks leave loopback out).
    seen = addresses_of(user.pk, local=True)
    shared = sharing(user.pk, set(seen), local=True)
    match_ids = [str(m) for m in Seat.objects.filter(user=user).values_list("match_id", flat=True)]
    dispute_ids = [str(d.pk) for d in filed] + [str(d.pk) for d in against]
    history = list(
        AuditEntry.objects.filter(action__in=MODERATION)
        .filter(
            Q(object_type="games.match", object_id__in=match_ids)
            | Q(object_type="disputes.dispute", object_id__in=dispute_ids)
            | Q(object_type="accounts.user", object_id=str(user.pk))
        )
        .order_by("-id")[:100]
    )
    found = evidence.player_evidence(user)
    return {
        "player": user,
        "filed": filed,
        "against": against,
        "seats": seats,
        "voids": voids,
        "addresses": sorted(seen.values(), key=lambda s: s.last, reverse=True),
        "shared": shared,
        "history": history,
        "same_sides": same_sides(user.pk),
        "think": found["think"],
        "agree": found["agree"],
        "population": found["population"],
        "pop_agree": found["pop_agree"],
        "flags": found["flags"],
        "recent_matches": evidence.RECENT_MATCHES,
    }
