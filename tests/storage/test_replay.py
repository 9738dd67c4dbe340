"""Replay equals the live match: after every action for a few dozen matches, and at the end
(with the full verification) for a few hundred, across every preset, option and player count.
"""

from __future__ import annotations

import random

import pytest

from games.management.commands.simulate_match import simulate
from games.match.replay import replay, replay_snapshot, steps
from games.match.verify import verify_match
from games.models import Match, Status

from .driver import VARIANTS, current, local_match, play, variant_id


def same_as_replay(match: Match) -> None:
    match = current(match)
    assert match.snapshot == replay_snapshot(match), f"after seq {match.seq}"


@pytest.mark.django_db
@pytest.mark.parametrize("variant", VARIANTS, ids=variant_id)
def test_replay_equals_snapshot_after_every_action(variant, host) -> None:
    for seed in range(2):
        rng = random.Random(f"{variant_id(variant)}:{seed}")
        match = local_match(variant, host)
        same_as_replay(match)
        match = play(match, rng, actions=20, after_each=same_as_replay, leave_rate=0.02)
        assert match.status == Status.FINISHED
        report = verify_match(match)
        assert report.ok, report.line


@pytest.mark.django_db
@pytest.mark.parametrize("variant", VARIANTS, ids=variant_id)
def test_replay_equals_snapshot_at_the_end(variant, host) -> None:
    """Eight matches per variant (160 in all, with the 40 above: 200), of random length."""
    for seed in range(8):
        rng = random.Random(f"end:{variant_id(variant)}:{seed}")
        match = local_match(variant, host)
        match = play(match, rng, actions=rng.randint(3, 24), leave_rate=0.01)
        assert match.status == Status.FINISHED
        assert match.snapshot == replay_snapshot(match)
        report = verify_match(match)
        assert report.ok, report.line


@pytest.mark.django_db
@pytest.mark.parametrize(
    "ruleset,players",
    [("classic", 4), ("party+pairs+power", 4)],
)
def test_whole_bot_matches_replay_and_verify(ruleset: str, players: int) -> None:
    """Whole matches to their natural end; the replay at every step of the way agrees with
    a fold of the stored rows, and the end with the cache."""
    match = simulate(ruleset=ruleset, players=players, seed="replay")
    assert match.status == Status.FINISHED
    state = match.state()
    assert state is not None and state.phase == "over"
    assert len(state.placings) == players
    report = verify_match(match)
    assert report.ok, report.line
    walked = list(steps(match))
    assert walked[-1].state == state
    # The state at any seq: half way through is the state after the action at or before it.
    middle = walked[len(walked) // 2]
    assert replay(match, upto_seq=middle.action.seq) == middle.state


@pytest.mark.django_db
def test_timeouts_and_friendly_seats_replay(make_user, settings) -> None:
    """Human seats in a clocked mode: timeouts (auto-moves, missed turns, forfeits) replay."""
    from games import services
    from games.models import Roll

    for seed in range(2):
        rng = random.Random(f"timeouts:{seed}")
        users = [make_user() for _ in range(4)]
        ruleset = ["classic", "party"][seed]
        match = services.match_create(ruleset=ruleset, players=4, mode="friendly", host=users[0])
        for user in users[1:]:
            services.match_join(code=match.code, user=user)
        match = current(match)
        assert match.status == Status.ACTIVE
        match = play(match, rng, actions=30, after_each=same_as_replay, timeout_rate=0.5)
        report = verify_match(match)
        assert report.ok, report.line
        assert Roll.objects.filter(match=match, by="timeout").exists()
