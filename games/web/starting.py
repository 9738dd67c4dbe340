"""Starting games from the forms: practice against the computer, a friends' room, one
device, and joining a room by its code."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from accounts.addresses import client_ip
from accounts.views import player_for
from games import services
from games.engine import RULESETS
from games.match import rooms
from games.match.errors import ServiceError
from games.models import Match
from games.web import ladder
from games.web.choices import (
    HOUSE_RULES,
    LOCAL_BOT_LEVEL,
    PACES,
    PARTY_OPTIONS,
    PRESETS,
    choice,
    default_level,
    levels,
    pace_of,
    players_of,
    remembered_pace,
    variant,
)
from games.web.pages import home_page


def _create(request: HttpRequest, **kwargs: Any) -> HttpResponse:
    try:
        host = player_for(request)
        match = services.match_create(
            host=host,
            ip=client_ip(request),
            user_agent=request.META.get("HTTP_USER_AGENT", ""),
            **kwargs,
        )
    except ServiceError as e:
        messages.error(request, e.text())
        return redirect("home")
    return redirect("room", code=match.code)


@require_POST
def play_computer(request: HttpRequest) -> HttpResponse:
    """Practice against bots, now: the person takes Red, bots take the other seats."""
    ruleset = choice(request.POST.get("ruleset"), [(k, k) for k, _, _ in PRESETS], "classic")
    players = 2 if ruleset == "duel" else players_of(request.POST.get("players"))
    level = choice(request.POST.get("level"), levels(), default_level())
    corners = RULESETS[ruleset].seats_for(players)
    return _create(
        request,
        ruleset=ruleset,
        players=players,
        mode="practice",
        bots={c: level for c in corners[1:]},
        pace=pace_of(request),
        **variant(request, ruleset),
    )


@require_POST
def play_friends(request: HttpRequest) -> HttpResponse:
    """A friend room: the host takes the first seat, friends join with the code."""
    ruleset = choice(request.POST.get("ruleset"), [(k, k) for k, _, _ in PRESETS], "classic")
    players = 2 if ruleset == "duel" else players_of(request.POST.get("players"))
    return _create(
        request, ruleset=ruleset, players=players, mode="friendly", **variant(request, ruleset)
    )


def play_local(request: HttpRequest) -> HttpResponse:
    """One device, 2-4 seats, each a person or a computer; at least one person."""
    if request.method != "POST":
        return render(
            request,
            "games/local.html",
            {
                "presets": PRESETS,
                "level_choices": ladder.choices(),
                "default_level": LOCAL_BOT_LEVEL,
                "default_level_about": ladder.level_text(LOCAL_BOT_LEVEL),
                "corners": _local_corners(),
                "house_rules": HOUSE_RULES,
                "party_options": PARTY_OPTIONS,
                "paces": PACES,
                "pace": remembered_pace(request),
            },
        )
    ruleset = choice(request.POST.get("ruleset"), [(k, k) for k, _, _ in PRESETS], "family")
    players = 2 if ruleset == "duel" else players_of(request.POST.get("players"))
    corners = RULESETS[ruleset].seats_for(players)
    bots = {}
    names = {}
    for c in corners:
        who = request.POST.get(f"seat{c}", "person")
        if who != "person":
            bots[c] = choice(who, levels(), LOCAL_BOT_LEVEL)
        else:
            names[c] = request.POST.get(f"name{c}", "")
    return _create(
        request,
        ruleset=ruleset,
        players=players,
        mode="local",
        bots=bots,
        seat_names=names,
        pace=pace_of(request),
        **variant(request, ruleset),
    )


def _local_corners() -> list[dict[str, Any]]:
    return [{"corner": c, "colour": RULESETS["family"].colours[c]} for c in range(4)]


@require_GET
def join(request: HttpRequest) -> HttpResponse:
    """Join by code: the room page for the code typed, or back home saying what is wrong."""
    typed = request.GET.get("code", "")
    code = rooms.normalise(typed)
    if code is None:
        error = _("A room code is six letters and digits, like KMN-479.")
    elif not Match.objects.filter(code=code).exists():
        error = _("There is no room with the code %(code)s: check it with your friend.") % {
            "code": typed.strip()[:12]
        }
    else:
        return redirect("room", code=code)
    # Answered on the form itself, beside the field.
    return home_page(request, join_error=error, join_code=typed[:12])
