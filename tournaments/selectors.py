"""Reading a tournament for its pages and its socket: the live standings (the top rows and
the viewer's own, the games being played)."""

from __future__ import annotations

from typing import Any

from .models import Game, Player, Tournament

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
