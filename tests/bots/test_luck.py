"""Dice luck and the parts of a seat's chance in a match report (games.bots.analysis): luck
has expectation zero for every seat, and luck, decisions, the other seats' turns and the rest
of a seat's own turns add up to what its chance did. Pure, on the engine alone."""

from __future__ import annotations

import random
from typing import Any

import pytest

from games.bots.analysis import analyse
from games.bots.calibrate import luck_check, mean_interval, recorded
from games.engine import rules_from_name

LEVELS = ("beginner", "medium", "hard", "greedy")


def _game(table: str, players: int, seed: int) -> tuple[Any, list[tuple[Any, ...]]]:
    rng = random.Random(seed)
    rules = rules_from_name(table)
    names = {c: rng.choice(LEVELS) for c in rules.seats_for(players)}
    return recorded(rules, players, names.__getitem__, rng)


@pytest.mark.parametrize(
    "table,players,seed",
    [("classic", 4, 1), ("quick", 4, 3), ("mensch", 3, 4), ("party+pairs", 4, 5)],
)
def test_luck_decisions_others_and_the_rest_add_up_to_the_change(
    table: str, players: int, seed: int
) -> None:
    start, actions = _game(table, players, seed)
    report = analyse(start, actions)
    first, last = report["chances"][0]["chances"], report["chances"][-1]["chances"]
    for key, s in report["seats"].items():
        c = int(key)
        assert s["change"] == pytest.approx(last[c] - first[c], abs=2e-4)
        parts = s["luck"] - s["lost"] + s["others"] + s["own"]
        assert parts == pytest.approx(s["change"], abs=5e-4)
        assert s["lost"] >= 0.0


def test_in_a_duel_the_other_seats_turns_are_what_the_rival_did_on_its_own() -> None:
    """Two seats' chances sum to one: what the rival's turns did to a seat is what they did to
    the rival, with the sign turned."""
    start, actions = _game("duel", 2, 6)
    seats = analyse(start, actions)["seats"]
    a, b = seats["0"], seats["2"]
    assert a["others"] == pytest.approx(-(b["luck"] - b["lost"] + b["own"]), abs=5e-4)
    assert b["others"] == pytest.approx(-(a["luck"] - a["lost"] + a["own"]), abs=5e-4)


@pytest.mark.parametrize("table,players", [("duel", 2), ("quick", 4)])
def test_a_rolls_luck_averages_zero_over_its_six_faces(table: str, players: int) -> None:
    """The expectation of every roll's luck is zero for the seat that rolls, whatever came
    before: the luck after each of the six faces, averaged, is the luck before the roll."""
    start, actions = _game(table, players, 7)
    rolls = [i for i, a in enumerate(actions) if a[0] == "roll"]
    for i in rolls[1 : len(rolls) // 2 : max(1, len(rolls) // 8)]:
        before = analyse(start, actions[:i])["seats"]
        corner = str(_to_play(start, actions[:i]))
        kind, seq, _face, bonus = actions[i]
        after = [
            analyse(start, [*actions[:i], (kind, seq, f, bonus)])["seats"][corner]["luck"]
            for f in range(1, 7)
        ]
        # Each report rounds its luck to four places.
        assert sum(after) / 6 == pytest.approx(before[corner]["luck"], abs=2e-4)


def _to_play(start: Any, actions: list[tuple[Any, ...]]) -> int:
    from games.engine import move, roll

    state = start
    for a in actions:
        state = roll(state, a[2], bonus=a[3])[0] if a[0] == "roll" else move(state, a[2])[0]
    return int(state.to_play)


def test_luck_averages_zero_for_every_seat_over_a_few_games() -> None:
    """Over whole games of bots at random levels, each seat's luck a game is centred on zero:
    its 95% interval holds zero, and the interval is narrow enough to mean it."""
    check = luck_check(("duel", 2, 40, 3))
    assert check.worst_identity < 5e-4
    for corner, values in check.by_seat.items():
        mean, half = mean_interval(values)
        assert len(values) == 40
        assert abs(mean) <= half, (corner, mean, half)
        assert half < 0.15
