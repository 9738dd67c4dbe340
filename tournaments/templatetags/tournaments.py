"""Tournament bits for other pages: a player's tournament results on their profile."""

from __future__ import annotations

from typing import Any

from django import template

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
