"""Ranked matches played quickly through the services, and ratings computed straight from
openskill to compare with: shared by the ratings, accounts and disputes tests."""

from __future__ import annotations

from openskill.models import PlackettLuce

from accounts.models import User
from games import services
from games.models import Match, Status

MODEL = PlackettLuce()


def ranked_match(ruleset: str, players: list[User]) -> Match:
    """A started ranked match: the first player hosts, the others join."""
    match = services.match_create(
        ruleset=ruleset, players=len(players), mode="ranked", host=players[0], paired=players
    )
    for user in players[1:]:
        services.match_join(code=match.code, user=user)
    match.refresh_from_db()
    assert match.status == Status.ACTIVE
    return match


def finish(match: Match, order: list[User]) -> Match:
    """End the match with `order` as the placings: everyone but the winner resigns, last
    place first."""
    for user in reversed(order[1:]):
        services.match_resign(match_id=match.pk, user=user)
    match.refresh_from_db()
    assert match.status == Status.FINISHED
    return match


def expected(history: list[list[int]], user_ids: list[int]) -> dict[int, tuple[float, float]]:
    """Ratings computed straight from openskill over `history` (each a list of user ids,
    winner first)."""
    current = {u: (MODEL.mu, MODEL.sigma) for u in user_ids}
    for placing in history:
        teams = [[MODEL.rating(mu=current[u][0], sigma=current[u][1])] for u in placing]
        rated = MODEL.rate(teams, ranks=list(range(1, len(placing) + 1)))
        for u, team in zip(placing, rated, strict=True):
            current[u] = (team[0].mu, team[0].sigma)
    return current
