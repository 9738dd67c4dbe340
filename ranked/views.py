"""Quick match pages and their JSON endpoints (under ``/play/``).

``/play/ranked/`` and ``/play/quick/`` show the queues (ranked: accounts only, by rating;
casual: anyone, a labelled bot steps in when nobody is free). ``queue/join``, ``queue/cancel``
and ``queue/status`` answer JSON to the page's script (`static/js/lobby.js`), or, posted from
a plain form without script, send the browser back to the page. Thin: they call
`ranked.matchmaking`, which does the work.
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.middleware.csrf import get_token
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import require_GET, require_POST

from accounts.addresses import client_ip
from accounts.models import is_guest
from accounts.views import player_for
from games.match.errors import ServiceError
from games.match.rooms import spoken
from games.models import Seat, Status

from . import matchmaking
from .models import Queue, Rating, is_provisional
from .ratings import MU, SIGMA, ordinal

# How each queue is offered on the page.
QUEUE_CHOICES = [
    (Queue.CLASSIC_2.value, _("Classic"), _("2 players")),
    (Queue.CLASSIC_4.value, _("Classic"), _("4 players")),
    (Queue.DUEL.value, _("Duel"), _("2 players, head to head")),
    (Queue.QUICK_4.value, _("Quick"), _("4 players, 5 to 10 minutes")),
]

# Each queue's name in the player's ratings table.
RATING_TITLES = {
    Queue.CLASSIC_2.value: _("Classic, 2 players"),
    Queue.CLASSIC_4.value: _("Classic, 4 players"),
    Queue.DUEL.value: _("Duel, 2 players"),
    Queue.QUICK_4.value: _("Quick, 4 players"),
}


def _wants_json(request: HttpRequest) -> bool:
    return "application/json" in request.headers.get("Accept", "")


def _account(user: Any) -> bool:
    return bool(user.is_authenticated) and not is_guest(user)


def _ratings(user: Any) -> list[dict[str, Any]]:
    """The player's rating in each ranked queue (the start value where they have not played)."""
    rows = {r.queue: r for r in Rating.objects.filter(user_id=user.pk)}
    out = []
    for key, title, _players in QUEUE_CHOICES:
        row = rows.get(key)
        out.append(
            {
                "queue": key,
                "title": str(RATING_TITLES.get(key, title)),
                "ordinal": row.ordinal if row else ordinal(MU, SIGMA),
                "mu": row.mu if row else MU,
                "sigma": row.sigma if row else SIGMA,
                "games": row.games if row else 0,
                "provisional": is_provisional(row.games, row.sigma) if row else True,
            }
        )
    return out


def _last_ranked(user: Any) -> Seat | None:
    """The player's last finished ranked match (their seat in it), with its rating change."""
    return (
        Seat.objects.filter(
            user_id=user.pk,
            match__mode="ranked",
            match__status=Status.FINISHED,
            rating_after__isnull=False,
        )
        .select_related("match")
        .order_by("-match__finished_at", "-pk")
        .first()
    )


def _page(request: HttpRequest, *, ranked: bool) -> HttpResponse:
    user = request.user
    account = _account(user)
    context: dict[str, Any] = {
        "ranked": ranked,
        "account": account,
        "guest": is_guest(user),
        "queues": QUEUE_CHOICES,
        "status": matchmaking.status(user) if user.is_authenticated else {"state": "idle"},
        "settings": {
            "window_start": matchmaking.window_start(),
            "window_growth": matchmaking.window_growth(),
            "bot_after": matchmaking.bot_after(),
        },
    }
    if ranked and account:
        context["ratings"] = _ratings(user)
        context["last"] = last = _last_ranked(user)
        context["last_code"] = spoken(last.match.code) if last else ""
    context["config"] = {
        "ranked": ranked,
        "join": reverse("queue-join"),
        "cancel": reverse("queue-cancel"),
        "status": reverse("queue-status"),
        "ws": "/ws/lobby/",
        "initial": context["status"],
    }
    return render(request, "ranked/queue.html", context)


@require_GET
def ranked_page(request: HttpRequest) -> HttpResponse:
    """Ranked quick match: queues for accounts, matched by rating."""
    return _page(request, ranked=True)


@require_GET
def quick_page(request: HttpRequest) -> HttpResponse:
    """Casual quick match: anyone, guests too; a labelled bot steps in when nobody is free."""
    return _page(request, ranked=False)


def _refused(request: HttpRequest, error: matchmaking.QueueError, back: str) -> HttpResponse:
    codes = {
        "forbidden": 403,
        "suspended": 403,
        "unreliable": 403,
        "too_new": 403,
        "held": 403,
        "ranked_busy": 409,
    }
    status = {**codes, "too_many_guests": 429}.get(error.code, 400)
    if _wants_json(request):
        return JsonResponse({"error": error.as_dict()}, status=status)
    messages.error(request, error.text())
    return redirect(back)


@require_POST
def queue_join(request: HttpRequest) -> HttpResponse:
    ranked = request.POST.get("ranked", "1") not in ("0", "false", "")
    back = reverse("play-ranked" if ranked else "play-quick")
    queue = str(request.POST.get("queue", ""))
    if ranked and not _account(request.user):
        error = matchmaking.QueueError("forbidden", matchmaking.ACCOUNTS_ONLY)
        return _refused(request, error, back)
    try:
        user = player_for(request)  # casual quick match: a guest gets a player name here
    except ServiceError as e:
        return _refused(request, matchmaking.QueueError(e.code, e.said), back)
    try:
        matchmaking.join(user=user, queue=queue, ranked=ranked, ip=client_ip(request))
    except matchmaking.QueueError as e:
        return _refused(request, e, back)
    state = matchmaking.status(user)
    if _wants_json(request):
        # A visitor who became a guest just now has a new session and so a new CSRF token:
        # the page's other forms need it.
        return JsonResponse({**state, "csrf": get_token(request)})
    if state["state"] == "matched":
        return redirect(state["url"])
    return redirect(back)


@require_POST
def queue_cancel(request: HttpRequest) -> HttpResponse:
    user = request.user
    back = reverse("play-quick" if request.POST.get("back") == "quick" else "play-ranked")
    if user.is_authenticated:
        matchmaking.cancel(user=user, ip=client_ip(request))
        state = matchmaking.status(user)
    else:
        state = {"state": "idle"}
    if _wants_json(request):
        return JsonResponse(state)
    if state["state"] == "matched":
        return redirect(state["url"])
    return redirect(back)


@require_GET
def queue_status(request: HttpRequest) -> JsonResponse:
    user = request.user
    if not user.is_authenticated:
        return JsonResponse({"state": "idle"})
    return JsonResponse(matchmaking.status(user))
