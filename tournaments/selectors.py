"""Reading a tournament for its pages and its socket: the live standings (the top rows and
the viewer's own, the games being played)."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from .models import Game, Player, State, Tournament

STANDINGS_SHOWN = 100  # rows on the page, in the JSON and on the socket (plus the viewer's)
GAMES_SHOWN = 30


def group_name(code: str) -> str:
    """The channel group of an event's standings sockets."""
    return f"tournament.{code}"


def standings_data(t: Tournament, user: Any = None) -> dict[str, Any]:
    """What the page shows live: the state, the round, the top rows (and the viewer's), the
    games being played. The socket sends the same (without the viewer's part)."""
    rows = list(
        Player.objects.filter(tournament=t)
        .select_related("user")
        .order_by("rank", "pk")[:STANDINGS_SHOWN]
    )
    mine = None
    uid = getattr(user, "pk", None) if getattr(user, "is_authenticated", False) else None
    if uid is not None:
        mine = (
            Player.objects.filter(tournament=t, user_id=uid)
            .select_related("user", "game__match")
            .first()
        )
        if mine is not None and all(r.pk != mine.pk for r in rows):
            rows.append(mine)
    games = list(
        Game.objects.filter(tournament=t, status=Game.Status.PLAYING)
        .select_related("match")
        .order_by("-pk")[:GAMES_SHOWN]
    )
    names = {r.user_id: r.user.name_as_given for r in rows}
    missing = {int(u) for g in games for u in g.users} - set(names)
    if missing:
        names.update(
            {
                p.user_id: p.user.name_as_given
                for p in Player.objects.filter(tournament=t, user_id__in=missing).select_related(
                    "user"
                )
            }
        )
    data: dict[str, Any] = {
        "code": t.code,
        "state": t.state,
        "round": t.round,
        "rounds": t.rounds,
        "players": t.players.count(),
        "rows": [
            {
                "rank": r.rank,
                "user": r.user_id,
                "name": r.user.name_as_given,  # the JSON's names: the same for every reader
                "username": r.user.username,
                "score": r.score,
                "games": r.games,
                "wins": r.wins,
                "streak": r.streak,
                "buchholz": r.buchholz,
                "status": r.status,
            }
            for r in rows
        ],
        "games": [
            {
                "code": g.match.code,
                "url": f"/r/{g.match.code}/",
                "round": g.round,
                "players": [names.get(int(u), "?") for u in g.users],
            }
            for g in games
            if g.match is not None
        ],
    }
    if mine is not None:
        current = mine.game
        data["you"] = {
            "status": mine.status,
            "rank": mine.rank,
            "score": mine.score,
            "game": f"/r/{current.match.code}/" if current and current.match else None,
        }
    return data


def entered(user: Any) -> bool:
    """Whether `user` is in an event that is on or about to be (every page then listens for
    their next game: `next_game`)."""
    if not getattr(user, "is_authenticated", False):
        return False
    return Player.objects.filter(
        user_id=user.pk,
        status=Player.Status.ACTIVE,
        tournament__state__in=(State.UPCOMING, State.RUNNING),
    ).exists()


def next_game(user: Any, now: datetime) -> dict[str, Any] | None:
    """The game a tournament paired `user` into and that is being played, for the notice on
    every page: its room, its event and round, and when the player's clock starts if they
    have not opened it yet (the grace the match was made with)."""
    if not getattr(user, "is_authenticated", False):
        return None
    mine = (
        Player.objects.filter(
            user_id=user.pk,
            game__isnull=False,
            game__status=Game.Status.PLAYING,
            tournament__state=State.RUNNING,
        )
        .select_related("game__match", "tournament")
        .order_by("-game__pk")
        .first()
    )
    if mine is None or mine.game is None or mine.game.match is None:
        return None
    match, t = mine.game.match, mine.tournament
    grace = float((match.options or {}).get("grace") or 0)
    clock_at = match.created_at + timedelta(seconds=grace)
    return {
        "game": f"/r/{match.code}/",
        "code": t.code,
        "event": t.name,
        "event_url": f"/tournaments/{t.code}/",
        "round": mine.game.round,
        "rounds": t.rounds,
        "clock_at": clock_at.isoformat(),
        "clock_in": max(0, round((clock_at - now).total_seconds())),
    }


def game_of(match: Any) -> dict[str, Any] | None:
    """The event a match was played in, for its room: the name, the page, the round."""
    game = Game.objects.filter(match_id=match.pk).select_related("tournament").first()
    if game is None:
        return None
    t = game.tournament
    return {
        "name": t.name,
        "code": t.code,
        "url": f"/tournaments/{t.code}/",
        "kind": t.kind,
        "round": game.round,
        "rounds": t.rounds,
    }
