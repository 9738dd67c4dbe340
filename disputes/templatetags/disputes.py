"""Dispute bits for other pages: the nav links, and a match's box on its replay page."""

from __future__ import annotations

from typing import Any

from django import template
from django.utils.translation import pgettext, pgettext_lazy

from games.models import Status

from .. import services
from ..models import Dispute, DisputeStatus

register = template.Library()

# The seats' device hints (`games.match.devices.device_hint`) as a moderator reads them.
DEVICES = {
    "script": pgettext_lazy("device", "script"),
    "tablet": pgettext_lazy("device", "tablet"),
    "phone": pgettext_lazy("device", "phone"),
    "desktop": pgettext_lazy("device", "desktop"),
}


@register.filter
def device_name(code: str) -> str:
    """A device hint in the reader's language ("unknown" when no header was sent)."""
    if not code:
        return pgettext("device", "unknown")
    return str(DEVICES.get(code, code))


@register.inclusion_tag("disputes/_nav.html", takes_context=True)
def disputes_nav(context: dict[str, Any]) -> dict[str, Any]:
    """Moderators: the queue with its open count. Players with disputes: theirs, with the
    number of decisions they have not read yet (the site's notice of a settlement)."""
    user = context.get("user")
    out: dict[str, Any] = {"moderator": False, "mine": False}
    if user is None or not user.is_authenticated:
        return out
    if services.is_moderator(user):
        out["moderator"] = True
        out["open"] = Dispute.objects.filter(status=DisputeStatus.OPEN).count()
    mine = Dispute.objects.filter(player=user)
    if mine.exists():
        out["mine"] = True
        out["unread"] = mine.filter(seen=False).count()
    return out


@register.inclusion_tag("disputes/_match_box.html", takes_context=True)
def match_disputes(context: dict[str, Any], match: Any) -> dict[str, Any]:
    """On a match's page: a void notice; for its players, their disputes and decisions and
    the way to open one; for moderators, the match's disputes."""
    user = context.get("user")
    out: dict[str, Any] = {
        "match": match,
        "void": match.status == Status.VOID,
        "mine": [],
        "can_open": False,
        "moderator": False,
        "all": [],
    }
    if user is None or not user.is_authenticated:
        return out
    out["mine"] = list(Dispute.objects.filter(match=match, player=user).order_by("-opened_at"))
    why = services.disputable(match, user)
    # Against bots alone there is nobody to dispute with: the way to open one is not offered
    # (a dispute already filed is still shown).
    with_people = match.seats.filter(bot__isnull=True, user__isnull=False).exclude(user=user)
    people = bool(out["mine"]) or with_people.exists()
    out["can_open"] = why is None and people
    out["closed"] = why == "window_closed" and people and not out["mine"]
    out["days"] = services.window_days()
    if services.is_moderator(user):
        out["moderator"] = True
        out["all"] = list(
            Dispute.objects.filter(match=match).select_related("player").order_by("opened_at")
        )
    return out


@register.filter
def colour(corner: Any, colours: dict[int, str]) -> str:
    """A corner's colour name from the review's {corner: colour} map."""
    if corner is None:
        return ""
    return colours.get(int(corner), str(corner))


@register.inclusion_tag("disputes/_profile.html", takes_context=True)
def player_disputes(context: dict[str, Any], player: Any) -> dict[str, Any]:
    """On a profile: the player's own latest disputes and decisions, for the player alone."""
    user = context.get("user")
    if user is None or not user.is_authenticated or user.pk != player.pk:
        return {"disputes": []}
    rows = Dispute.objects.filter(player=player).select_related("match")
    return {"disputes": list(rows.order_by("-opened_at", "-id")[:5]), "total": rows.count()}


@register.filter
def pct(value: Any) -> str:
    """A share (0 to 1) as a whole percentage; a dash without one."""
    if value is None:
        return "–"
    return f"{float(value) * 100:.0f}%"


@register.filter
def ms(value: Any) -> str:
    """Milliseconds, readably: "40 ms", "1.2 s"; a dash without a value."""
    if value is None:
        return "–"
    value = float(value)
    return f"{value:.0f} ms" if value < 1000 else f"{value / 1000:.1f} s"
