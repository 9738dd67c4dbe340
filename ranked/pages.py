"""The leaderboard pages: one per ranked queue, by ``mu - 3 sigma``, once a player has played
the minimum number of rated games."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET

from . import ratings
from .models import Queue, Rating, provisional_games

BOARD_SIZE = 100


@require_GET
def leaderboards(request: HttpRequest) -> HttpResponse:
    """The first queue's board."""
    return leaderboard(request, Queue.values[0])


@require_GET
def leaderboard(request: HttpRequest, queue: str) -> HttpResponse:
    if queue not in Queue.values:
        raise Http404(_("There is no such ranked queue"))
    rows = ratings.leaderboard(queue, limit=BOARD_SIZE)
    mine = None
    user = request.user
    if user.is_authenticated and not any(r.user_id == user.pk for r in rows):
        # Signed in but not on the board: say where they stand and what is missing.
        mine = Rating.objects.filter(user_id=user.pk, queue=queue).first()
    context = {
        "queue": queue,
        "label": Queue(queue).label,
        "queues": Queue.choices,
        "rows": rows,
        "mine": mine,
        "min_games": ratings.leaderboard_min_games(),
        "provisional_games": provisional_games(),
        "board_size": BOARD_SIZE,
    }
    return render(request, "ranked/leaderboard.html", context)
