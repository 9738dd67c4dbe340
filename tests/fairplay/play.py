"""Matches played through the services for the fair play tests."""

from __future__ import annotations

import itertools

from accounts.models import User
from fairplay.reliability import standing
from games import services
from games.models import Match, Status

_ids = itertools.count()


def step(match: Match) -> None:
    """One action for the seat to play: a roll, or its first legal move."""
    match.refresh_from_db()
    state = match.state()
    assert state is not None and match.status == Status.ACTIVE, (
        match.status,
        state,
        list(match.events.order_by("-seq").values_list("kind", "data")[:4]),
    )
    corner = state.to_play
    action = f"t{next(_ids)}"
    if state.phase == "roll":
        services.match_roll(match_id=match.pk, corner=corner, seq=match.seq, action_id=action)
    else:
        first = state.legal[0]
        services.match_move(
            match_id=match.pk,
            corner=corner,
            seq=match.seq,
            action_id=action,
            pawn=first.pawn,
            pawn_corner=first.corner,
        )


def play_until_apart(match: Match, most: int = 400) -> int:
    """Play (first legal moves) until one corner stands further along than the other, at a
    roll; returns the corner behind (the dice decide which)."""
    for _ in range(most):
        state = Match.objects.get(pk=match.pk).state()
        assert state is not None
        a, b = state.seats[0], state.seats[1]
        if standing(state, a) != standing(state, b) and state.phase == "roll":
            return a if standing(state, a) < standing(state, b) else b
        step(match)
    raise AssertionError("the corners never came apart")


def duel(a: User, b: User, *, ranked: bool = True) -> Match:
    """A started duel between `a` (corner 0) and `b` (corner 2)."""
    mode = "ranked" if ranked else "friendly"
    paired = [a, b] if ranked else None
    match = services.match_create(
        ruleset="duel", players=2, mode=mode, host=a, paired=paired, first=0
    )
    services.match_join(code=match.code, user=b)
    match.refresh_from_db()
    assert match.status == Status.ACTIVE
    return match
