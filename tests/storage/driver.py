"""Play matches through the services with random (seeded) choices, as clients would."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from games import services
from games.engine import STORED_BONUSES, State
from games.models import Match, Status

# Every preset, house rule and party option with every player count it allows.
VARIANTS: list[tuple[str, list[str], list[str], int]] = []
for _name, _house, _opts, _counts in [
    ("classic", [], [], (2, 3, 4)),
    ("classic", ["compulsory_capture"], [], (4,)),
    ("family", [], [], (2, 3, 4)),
    ("duel", [], [], (2,)),
    ("mensch", [], [], (2, 3, 4)),
    ("mensch", ["compulsory_capture", "no_jump_home_column"], [], (3,)),
    ("mensch", ["optional_bring_out"], [], (2,)),
    ("party", [], [], (2, 3, 4)),
    ("party", [], ["pairs"], (4,)),
    ("party", [], ["power"], (2, 3, 4)),
    ("party", [], ["pairs", "power"], (4,)),
]:
    for _players in _counts:
        VARIANTS.append((_name, _house, _opts, _players))


def variant_id(variant: tuple[str, list[str], list[str], int]) -> str:
    name, house, opts, players = variant
    return "+".join([name, *house, *opts]) + f"-{players}p"


def current(match: Match) -> Match:
    return Match.objects.get(pk=match.pk)


def _roll_kwargs(state: State, rng: random.Random) -> dict[str, Any]:
    if not state.rules.power or rng.random() > 0.4:
        return {}
    stock = state.stock[state.to_play]
    usable = [
        kind
        for k, kind in enumerate(STORED_BONUSES)
        if stock[k] and state.bonus in ("", kind) and not (state.bonus and kind == "shield")
    ]
    if not usable:
        return {}
    kind = rng.choice(usable)
    if kind == "control":
        return {"bonus": kind, "face": rng.randint(1, 6)}
    return {"bonus": kind}


def step(
    match: Match, rng: random.Random, n: int, *, leave_rate: float = 0.0, timeout_rate: float = 0.0
) -> None:
    """One random action on an active match: a roll, a move, a timeout or a leave."""
    state = match.state()
    assert state is not None and match.status == Status.ACTIVE
    r = rng.random()
    if r < leave_rate:
        playing = [c for c in state.seats if c not in state.out and c not in state.placings]
        services.match_forfeit(match_id=match.pk, corner=rng.choice(playing), reason="test")
        return
    if r < leave_rate + timeout_rate and match.turn_deadline is not None:
        services.match_timeout(match_id=match.pk, turn_seq=match.turn_seq)
        return
    common = {"match_id": match.pk, "corner": state.to_play, "seq": match.seq, "action_id": f"a{n}"}
    if state.phase == "roll":
        services.match_roll(**common, **_roll_kwargs(state, rng))
        return
    chosen = rng.choice(state.legal)
    shield = (
        state.rules.power
        and state.stock[state.to_play][2] > 0
        and state.bonus == ""
        and chosen.to <= state.rules.last_track
        and rng.random() < 0.5
    )
    services.match_move(**common, pawn=chosen.pawn, pawn_corner=chosen.corner, shield=shield)


def finish_by_leaving(match: Match, rng: random.Random) -> None:
    """Forfeit players until the match ends."""
    while True:
        match = current(match)
        if match.status != Status.ACTIVE:
            return
        state = match.state()
        assert state is not None
        playing = [c for c in state.seats if c not in state.out and c not in state.placings]
        services.match_forfeit(match_id=match.pk, corner=rng.choice(playing), reason="test")


def play(
    match: Match,
    rng: random.Random,
    *,
    actions: int,
    after_each: Callable[[Match], None] | None = None,
    leave_rate: float = 0.0,
    timeout_rate: float = 0.0,
) -> Match:
    """Up to `actions` random actions, then forfeits to the end; `after_each` checks."""
    for n in range(actions):
        match = current(match)
        if match.status != Status.ACTIVE:
            break
        step(match, rng, n, leave_rate=leave_rate, timeout_rate=timeout_rate)
        if after_each is not None:
            after_each(match)
    finish_by_leaving(match, rng)
    if after_each is not None:
        after_each(match)
    return current(match)


def local_match(variant: tuple[str, list[str], list[str], int], host: Any, **kw: Any) -> Match:
    name, house, opts, players = variant
    return services.match_create(
        ruleset=name,
        players=players,
        mode="local",
        house_rules=house,
        options=opts,
        host=host,
        **kw,
    )
