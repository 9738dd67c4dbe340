"""A guest who signs in to an existing account brings their games along."""

from __future__ import annotations

from typing import Any

from django.db import transaction

from audit import actions
from audit import services as audit
from games.models import (
    Match,
    Mode,
    Seat,
)


def seats_hand_over(*, guest: Any, account: Any) -> int:
    """A guest who signs in to an existing account brings their games along: the guest's
    seats (and the rooms they host) become the account's, in every match where the account
    has no seat of its own (there the guest's seat stays the guest's: nobody plays
    themselves). Guests never sit in ranked matches. Returns how many seats moved."""
    with transaction.atomic():
        theirs = list(
            Seat.objects.select_for_update().filter(user=guest).exclude(match__mode=Mode.RANKED)
        )
        taken = set(Seat.objects.filter(user=account).values_list("match_id", flat=True))
        moved = [seat for seat in theirs if seat.match_id not in taken]
        for seat in moved:
            seat.user = account
        Seat.objects.bulk_update(moved, ["user"])
        matches = sorted({seat.match_id for seat in moved})
        Match.objects.filter(pk__in=matches, host=guest).update(host=account)
        if moved:
            audit.record(
                action=actions.USER_GUEST_MERGED,
                actor=account,
                obj=account,
                extra={"guest": guest.username, "seats": len(moved), "matches": matches},
            )
        return len(moved)
