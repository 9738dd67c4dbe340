"""Fair play bits for other pages: the reliability record on a profile (with the player's
own sanctions, and Block for others), each person's figure in a room, one's own in the
queue."""

from __future__ import annotations

from typing import Any

from django import template

from accounts.models import is_guest
from accounts.rights import is_moderator
from games.match.selectors import seat_label

from .. import reliability, selectors

register = template.Library()


def _viewer(context: Any) -> Any:
    user = context.get("user")
    return user if user is not None and user.is_authenticated else None


@register.inclusion_tag("fairplay/_profile.html", takes_context=True)
def fair_play_on_profile(context: Any, player: Any) -> dict[str, Any]:
    viewer = _viewer(context)
    own = viewer is not None and viewer.pk == player.pk
    may_block = viewer is not None and not own and not is_guest(viewer)
    return {
        "player": player,
        "own": own,
        "record": reliability.record(player.pk),
        "min_matches": reliability.min_matches(),
        "ranked_min": reliability.ranked_min(),
        "window": reliability.WINDOW,
        "sanctions": selectors.sanctions_of(player) if own else [],
        "may_block": may_block,
        "blocked": may_block and player.pk in selectors.blocked_by(viewer),
        "moderator": is_moderator(viewer),
        "csrf_token": context.get("csrf_token"),
    }


@register.inclusion_tag("fairplay/_seats.html", takes_context=True)
def seat_reliability(context: Any, match: Any) -> dict[str, Any]:
    """Each person seated in an online room, with their one plain figure, and a way to report
    the others (the room and the replay both show it)."""
    people = [
        s
        for s in match.seats.select_related("user").order_by("corner")
        if s.user_id is not None and not s.bot
    ]
    online = match.mode in ("ranked", "friendly") and len(people) > 1
    viewer = _viewer(context)
    may_report = viewer is not None and not is_guest(viewer)
    rows = [
        {
            "name": seat_label(s, match),  # the page's words: a guest's name in its language
            "shown": reliability.record(s.user_id).shown,
            "report": may_report and s.user_id != viewer.pk and not is_guest(s.user),
            "username": s.user.username,
        }
        for s in people
    ]
    return {"rows": rows if online else [], "match": match}


@register.inclusion_tag("fairplay/_mine.html", takes_context=True)
def my_reliability(context: Any) -> dict[str, Any]:
    viewer = _viewer(context)
    if viewer is None:
        return {"record": None}
    return {
        "record": reliability.record(viewer.pk),
        "poor_below": reliability.poor_below(),
        "ranked_min": reliability.ranked_min(),
        "suspension": selectors.suspension(viewer),
    }
