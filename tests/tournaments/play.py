"""Tournament games finished quickly through the match services (resignations), with the
after-commit count the site runs."""

from __future__ import annotations

from typing import Any

from games import services
from games.models import Match, Status
from tournaments.models import Game, Tournament


def playing(t: Tournament) -> list[Game]:
    return list(Game.objects.filter(tournament=t, status=Game.Status.PLAYING).order_by("pk"))


def finish_game(game: Game, order: list[int], capture: Any) -> Match:
    """End the game's match with `order` (user ids, winner first): the others resign, last
    place first; the after-commit callbacks (the tournament's count) run."""
    with capture(execute=True):
        for user_id in reversed(order[1:]):
            services.match_resign(match_id=game.match_id, user=_user(user_id))
    match = Match.objects.get(pk=game.match_id)
    assert match.status == Status.FINISHED
    return match


def _user(pk: int) -> Any:
    from accounts.models import User

    return User.objects.get(pk=pk)
