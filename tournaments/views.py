"""The tournament pages under ``/tournaments/``: the list (upcoming, running, finished), each
event's page (standings, games, results, entry), its JSON standings (the page's script
polls them and the socket sends them), joining and withdrawing, and the verify page. Thin:
they read the rows and call `tournaments.services`."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from accounts.addresses import client_ip
from accounts.models import is_guest
from audit.clock import db_now
from games.match.errors import ServiceError

from . import services
from .models import Game, Kind, Player, State, Tournament
from .selectors import next_game as next_game_of
from .selectors import standings_data
from .verify import verified

GAMES_SHOWN = 30


def _event(code: str) -> Tournament:
    t = Tournament.objects.filter(code=str(code).upper()).first()
    if t is None:
        raise Http404(_("There is no tournament %s") % code)
    return t


def _wants_json(request: HttpRequest) -> bool:
    return "application/json" in request.headers.get("Accept", "")


def _place(place: int | None) -> str:
    return {1: _("1st"), 2: _("2nd"), 3: _("3rd"), 4: _("4th")}.get(place or 0, "")


@require_GET
def tournament_list(request: HttpRequest) -> HttpResponse:
    now = db_now()
    upcoming = Tournament.objects.filter(state=State.UPCOMING).order_by("starts_at", "pk")[:30]
    running = Tournament.objects.filter(state=State.RUNNING).order_by("starts_at", "pk")
    finished = Tournament.objects.filter(state=State.FINISHED).order_by("-finished_at", "-pk")[:30]
    return render(
        request,
        "tournaments/list.html",
        {
            "upcoming": [_card(t, now) for t in upcoming],
            "running": [_card(t, now) for t in running],
            "finished": [_card(t, now) for t in finished],
        },
    )


def _card(t: Tournament, now: Any) -> dict[str, Any]:
    return {
        "t": t,
        "ends_at": services.ends_at(t) if t.kind == Kind.ARENA else None,
        "players": t.players.count(),
        "winner": t.players.filter(rank=1).select_related("user").first()
        if t.state == State.FINISHED
        else None,
    }


@require_GET
def tournament_page(request: HttpRequest, code: str) -> HttpResponse:
    t = _event(code)
    user = request.user
    data = standings_data(t, user)
    refusal = None
    entered = data.get("you")
    if entered is None or entered["status"] != Player.Status.ACTIVE:
        refusal = services.entry_refusal(t, user)
    finished_games = (
        Game.objects.filter(tournament=t)
        .exclude(status=Game.Status.PLAYING)
        .select_related("match")
        .order_by("-ended_at", "-pk")[:GAMES_SHOWN]
    )
    finished_games = list(finished_games)
    shown = {int(u) for g in finished_games for u in g.users}
    names, logins = {}, {}
    for uid, name, login in Player.objects.filter(tournament=t, user_id__in=shown).values_list(
        "user_id", "user__display_name", "user__username"
    ):
        names[uid], logins[uid] = name, login
    for g in finished_games:
        g.names = [names.get(int(u)) or logins.get(int(u), "?") for u in g.users]
        places = {int(u): p for u, p in (g.places or {}).items()}
        ordered = sorted(
            zip(g.names, g.users, strict=True), key=lambda pair: places.get(int(pair[1])) or 99
        )
        g.placed = [(n, _place(places.get(int(u)))) for n, u in ordered]
    return render(
        request,
        "tournaments/detail.html",
        {
            "t": t,
            "data": data,
            "you": entered,
            "refusal": refusal,
            "account": user.is_authenticated and not is_guest(user),
            "ends_at": services.ends_at(t) if t.kind == Kind.ARENA else None,
            "deadline": services.round_deadline(t) if t.kind == Kind.SWISS else None,
            "finished_games": finished_games,
            "size": services.table_size(t),
        },
    )


@require_GET
def next_game(request: HttpRequest) -> JsonResponse:
    """The signed-in player's tournament game being played, if any (every page of an entrant
    asks, to take them to it: `static/js/paired.js`)."""
    return JsonResponse({"next": next_game_of(request.user, db_now())})


@require_GET
def tournament_standings(request: HttpRequest, code: str) -> JsonResponse:
    return JsonResponse(standings_data(_event(code), request.user))


def _act(request: HttpRequest, code: str, action: Any, done: str) -> HttpResponse:
    t = _event(code)
    try:
        action(code=t.code, user=request.user, ip=client_ip(request))
    except ServiceError as e:
        if _wants_json(request):
            status = 403 if e.code == "forbidden" else 400
            return JsonResponse({"error": {"code": e.code, "message": e.message}}, status=status)
        messages.error(request, e.message)
        return redirect("tournament", code=t.code)
    if _wants_json(request):
        return JsonResponse(standings_data(t, request.user))
    messages.success(request, done)
    return redirect("tournament", code=t.code)


@require_POST
def tournament_join(request: HttpRequest, code: str) -> HttpResponse:
    return _act(request, code, services.join, _("You are in. Your games open here by themselves."))


@require_POST
def tournament_withdraw(request: HttpRequest, code: str) -> HttpResponse:
    return _act(request, code, services.withdraw, _("You left the tournament."))


@require_GET
def tournament_verify(request: HttpRequest, code: str) -> HttpResponse:
    t = _event(code)
    report = verified(t)  # once per change of the event, not per request
    names = dict(Player.objects.filter(tournament=t).values_list("user_id", "user__username"))
    return render(
        request,
        "tournaments/verify.html",
        {"t": t, "report": report, "rows": [(r, names.get(r.user, "?")) for r in report.rows]},
    )
