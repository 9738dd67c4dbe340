"""Tournament bits for other pages: a player's tournament results on their profile, the
event a match's room belongs to, and the watch for a player's next game on every page."""

from __future__ import annotations

from typing import Any

from django import template

from .. import selectors
from ..models import Player

register = template.Library()


@register.inclusion_tag("tournaments/_profile.html")
def player_tournaments(player: Any, limit: int = 10) -> dict[str, Any]:
    """The player's latest tournaments with their rank and points (nothing if none)."""
    entries = (
        Player.objects.filter(user_id=player.pk)
        .select_related("tournament")
        .order_by("-tournament__starts_at", "-pk")[:limit]
    )
    return {"entries": list(entries)}


@register.simple_tag
def tournament_of(match: Any) -> dict[str, Any] | None:
    """The event and round of a tournament match (its room names them and leads back)."""
    if getattr(match, "mode", None) != "ranked":
        return None
    return selectors.game_of(match)


@register.inclusion_tag("tournaments/_watch.html", takes_context=True)
def tournament_watch(context: Any) -> dict[str, Any]:
    """On every page of a player entered in an event on or about to be: the notice of their
    next game and the script that fills it."""
    request = context.get("request")
    user = getattr(request, "user", None)
    return {"watch": selectors.entered(user)}
