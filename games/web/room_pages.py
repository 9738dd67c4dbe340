"""A room's page and the forms posted from it: take a seat, start, switch a seat between a
person and a computer (one device), start over, rematch."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.templatetags.static import static
from django.urls import reverse
from django.utils import translation
from django.utils.safestring import mark_safe
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from accounts.addresses import client_ip
from accounts.views import player_for
from fairplay.selectors import blocked_by
from games import services
from games.live import tickets, watchers
from games.match import rooms
from games.match.errors import ServiceError
from games.match.replay import undo_point
from games.match.selectors import latest_events, match_by_code, snapshot_for
from games.services import reactions
from games.services.rematch import REMATCH_MODES
from games.web import ladder
from games.web.choices import LOCAL_BOT_LEVEL, choice, default_level, levels
from games.web.rules_page import board_config
from ranked.models import Entry, Queue
from ranked.ratings import queue_of


def match_or_404(code: str) -> Any:
    """The match with this room code (any spelling `rooms.normalise` reads), or a 404."""
    try:
        return match_by_code(code)
    except ServiceError as e:
        raise Http404(e.text()) from None


def _socket_path(code: str, user: Any) -> str:
    """The room's socket, with a signed ticket for a signed-in viewer (the socket then opens
    without a session load: `games.live.tickets`)."""
    path = f"/ws/match/{code}/"
    # The page's language: the socket tells refusals in it (issue 29).
    query = {"ticket": tickets.issue(user, code)} if user is not None else {}
    query["lang"] = translation.get_language() or "en"
    return f"{path}?{urlencode(query)}"


def room(request: HttpRequest, code: str) -> HttpResponse:
    """The room: the board, the seats and the controls; the socket does the rest."""
    match = match_or_404(code)
    if match.code != code:
        return redirect("room", code=match.code)
    user = request.user if request.user.is_authenticated else None
    seats = list(match.seats.select_related("user").order_by("corner"))  # read once
    snapshot = snapshot_for(match, viewer_user=user, seats=seats)
    mine = [s.corner for s in seats if user is not None and s.user_id == user.pk]
    join_url = request.build_absolute_uri(rooms.join_path(match.code))
    config = {
        "code": match.code,
        "ws": _socket_path(match.code, user),
        "api": f"/api/matches/{match.code}",
        "replay": reverse("replay", args=[match.code]),
        "mode": match.mode,
        "mine": mine,
        "board": board_config(match.rules),
        "snapshot": snapshot,
    }
    # The room's history survives a reload: the latest events, oldest first.
    config["history"] = latest_events(match, mine=mine)
    config.update(_room_extras(match, seats, user, snapshot))
    if match.mode == "local" and snapshot["status"] == "active":
        # A reloaded page knows at once whether there is anything to take back.
        people = {s.corner for s in seats if not s.bot}
        config["undo_empty"] = undo_point(match, people) is None
    return render(
        request,
        "games/room.html",
        {
            "match": match,
            "config": config,
            "snapshot": snapshot,
            "mine": mine,
            "spoken": rooms.spoken(match.code),
            "join_url": join_url,
            # Inline: segno's SVG has no xmlns, so it cannot be an <img> source.
            "qr": mark_safe(rooms.qr_svg(join_url)) if snapshot["status"] == "waiting" else "",
            # A ranked room seats only the players quick match paired (no dead Join button).
            "can_join": snapshot["status"] == "waiting"
            and not mine
            and (
                match.mode != "ranked"
                or (user is not None and user.pk in match.options.get("paired", ()))
            ),
            # A visitor with no seat in a friends' room with a free seat sits down at once.
            "auto_join": snapshot["status"] == "waiting"
            and not mine
            and match.mode == "friendly"
            and len(seats) < match.players,
            "can_start": snapshot["status"] == "waiting"
            and user is not None
            and match.host_id == user.pk
            and match.mode != "ranked",
            "level_choices": ladder.choices(),
            "default_level": default_level(),
            "default_level_about": ladder.level_text(default_level()),
            "local_seats": _local_seats(match, seats, snapshot) if match.mode == "local" else [],
            "local_level": LOCAL_BOT_LEVEL,
        },
    )


def _room_extras(
    match: Any, seats: list[Any], user: Any, snapshot: dict[str, Any]
) -> dict[str, Any]:
    """What the room's page needs beyond the snapshot: the reactions on offer, the spectator
    count, where "again" leads, and whether another person played (a dispute makes sense)."""
    others = any(
        s.user_id is not None and not s.bot and (user is None or s.user_id != user.pk)
        for s in seats
    )
    quick = match.mode == "friendly" and Entry.objects.filter(match=match).exists()
    blocked = blocked_by(user) if match.mode in reactions.ONLINE else set()
    again = None
    if match.mode == "ranked":
        again = reverse("play-ranked")
    elif quick:
        again = reverse("play-quick")
    return {
        "reactions": reactions.shown() if match.mode in reactions.ONLINE else {},
        "reaction_icons": sorted(reactions.ICONS),
        "reaction_sprite": static("reactions.svg"),
        # The corners of players this viewer blocked: their reactions are not shown (fairplay).
        "hidden_reactions": sorted(s.corner for s in seats if s.user_id in blocked),
        "watchers": watchers.count(match.pk),
        "others_played": others and match.mode != "local",
        "queue": queue_of(match),
        "queue_label": str(Queue(queue_of(match)).label) if queue_of(match) else None,
        "again": again,
        "rematch": reverse("room-rematch", args=[match.code])
        if match.mode in REMATCH_MODES and not quick
        else None,
        "rematch_code": services.rematch_code(match) if snapshot["status"] == "finished" else None,
        "home": reverse("home"),
        "replay_url": reverse("replay", args=[match.code]),
        "report": reverse("disputes:open", args=[match.code]),
    }


def _local_seats(match: Any, seats: list[Any], snapshot: dict[str, Any]) -> list[dict[str, Any]]:
    """One device: each seat still playing, as the switch under the board shows it."""
    if snapshot["status"] not in ("waiting", "active"):
        return []
    colours = match.rules.colours
    return [
        {"corner": s.corner, "colour": colours[s.corner].capitalize(), "bot": s.bot or ""}
        for s in seats
        if not s.left
    ]


@require_POST
def room_join(request: HttpRequest, code: str) -> HttpResponse:
    match = match_or_404(code)
    try:
        services.match_join(
            code=match.code,
            user=player_for(request),
            ip=client_ip(request),
            user_agent=request.META.get("HTTP_USER_AGENT", ""),
        )
    except ServiceError as e:
        messages.error(request, e.text())
    return redirect("room", code=match.code)


@require_POST
def room_seat(request: HttpRequest, code: str) -> HttpResponse:
    """One device: switch a seat between a person and a computer during the game."""
    match = match_or_404(code)
    who = request.POST.get("who", "person")
    bot = None if who == "person" else choice(who, levels(), LOCAL_BOT_LEVEL)
    try:
        corner = int(request.POST.get("corner", ""))
        services.match_set_seat(
            match_id=match.pk,
            user=request.user if request.user.is_authenticated else None,
            corner=corner,
            bot=bot,
        )
    except ValueError:
        messages.error(request, _("Say which seat to switch."))
    except ServiceError as e:
        messages.error(request, e.text())
    return redirect("room", code=match.code)


@require_POST
def room_start_over(request: HttpRequest, code: str) -> HttpResponse:
    """One device: the same seats in a fresh game."""
    match = match_or_404(code)
    try:
        fresh = services.match_start_over(
            match_id=match.pk,
            user=request.user if request.user.is_authenticated else None,
            ip=client_ip(request),
        )
    except ServiceError as e:
        messages.error(request, e.text())
        return redirect("room", code=match.code)
    return redirect("room", code=fresh.code)


@require_POST
def room_start(request: HttpRequest, code: str) -> HttpResponse:
    """The host starts a waiting friend room, bots taking the empty seats."""
    match = match_or_404(code)
    if not request.user.is_authenticated or match.host_id != request.user.pk:
        messages.error(request, _("Only the host can start the match."))
        return redirect("room", code=match.code)
    level = choice(request.POST.get("level"), levels(), default_level())
    try:
        services.match_start(match_id=match.pk, bots_for_empty=level)
    except ServiceError as e:
        messages.error(request, e.text())
    return redirect("room", code=match.code)


@require_POST
def room_rematch(request: HttpRequest, code: str) -> HttpResponse:
    """Rematch: the same players and bots in a new room (the first to ask opens it)."""
    match = match_or_404(code)
    if not request.user.is_authenticated:
        messages.error(request, _("Only the match's players ask for a rematch."))
        return redirect("room", code=match.code)
    try:
        new = services.match_rematch(match_id=match.pk, user=request.user, ip=client_ip(request))
    except ServiceError as e:
        messages.error(request, e.text())
        return redirect("room", code=match.code)
    return redirect("room", code=new.code)
