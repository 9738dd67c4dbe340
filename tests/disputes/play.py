"""Matches played through the services by scripted seats, for the dispute evidence tests."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from games import services
from games.bots import BOTS
from games.engine import State
from games.models import Match, Status

Policy = Callable[[State, random.Random], Any]


def random_policy(state: State, rng: random.Random) -> Any:
    return rng.choice(list(state.legal))


def hard_policy(state: State, rng: random.Random) -> Any:
    return BOTS["hard"].choose(state, rng)[0]


def play_out(
    match: Match, policies: dict[int, Policy], *, seed: int = 1, limit: int = 3000
) -> Match:
    """Play the match to its end: a corner in `policies` is a scripted person acting at once
    through the services, any other corner a bot seat (its step taken at once)."""
    rng = random.Random(seed)
    for n in range(limit):
        match = Match.objects.get(pk=match.pk)
        state = match.state()
        if match.status != Status.ACTIVE or state is None or state.phase == "over":
            return match
        corner = state.to_play
        seat = match.seats.get(corner=corner)
        if corner not in policies:
            services.bot_act(match_id=match.pk, turn_seq=match.turn_seq, seq=match.seq)
        elif state.phase == "roll":
            services.match_roll(
                match_id=match.pk, corner=corner, user=seat.user, seq=match.seq, action_id=f"r{n}"
            )
        else:
            chosen = policies[corner](state, rng)
            services.match_move(
                match_id=match.pk,
                user=seat.user,
                corner=corner,
                seq=match.seq,
                action_id=f"m{n}",
                pawn=chosen.pawn,
                pawn_corner=chosen.corner,
            )
    raise AssertionError("the match did not end")
