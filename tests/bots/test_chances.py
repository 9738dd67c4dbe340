"""The winning-chances evaluator (games.bots.chances) and the match analysis on it
(games.bots.analysis): pure, on the engine alone."""

from __future__ import annotations

import random

import pytest

from games.bots import BOTS
from games.bots.analysis import analyse, hint
from games.bots.calibrate import recorded, tables
from games.bots.chances import after_choices, chances, faces
from games.bots.words import pawn_name
from games.engine import legal_moves, move, new_game, roll, rules_from_name, setup


def _game(table: str, players: int, seed: int) -> tuple[object, list[tuple[object, ...]]]:
    """A whole game of medium bots, as the analysis takes it: the start and the actions."""
    return recorded(rules_from_name(table), players, lambda _c: "medium", random.Random(seed))


@pytest.mark.parametrize("table,players", tables(), ids=lambda v: str(v))
def test_chances_are_probabilities_of_every_table(table: str, players: int) -> None:
    rules = rules_from_name(table)
    state = new_game(rules, players, first=rules.seats_for(players)[0])
    found = chances(state)
    seated = [found[c] for c in state.seats]
    assert all(0.0 <= p <= 1.0 for p in found)
    assert [found[c] for c in range(4) if c not in state.seats] == [0.0] * (4 - players)
    if rules.pairs:
        assert found[0] == found[2] and found[1] == found[3]
        assert found[0] + found[1] == pytest.approx(1.0)
    else:
        assert sum(seated) == pytest.approx(1.0)
        # At the start the seats are close to even, the first to roll a little ahead.
        assert max(seated) - min(seated) < 0.15


def test_a_seat_far_ahead_is_the_favourite_and_a_winner_is_certain() -> None:
    rules = rules_from_name("classic")
    ahead = setup(rules, {0: [56, 56, 56, 50], 2: [-1, -1, -1, 3]}, to_play=2)
    found = chances(ahead)
    assert found[0] > 0.9 > 0.1 > found[2]
    done = setup(rules, {0: [56, 56, 56, 56], 2: [-1, -1, -1, 3]}, to_play=2)
    assert chances(done)[0] == 1.0 and chances(done)[2] == 0.0


def test_faces_a_six_is_worth_most_with_every_pawn_in_the_yard() -> None:
    rules = rules_from_name("classic")
    state = new_game(rules, 2, first=0)
    values = [f[0] for f in faces(state)]
    assert values[5] == max(values) and values[5] > values[0]


@pytest.mark.parametrize("table,players", [("classic", 4), ("mensch", 3), ("party+pairs", 4)])
def test_a_report_counts_every_roll_and_choice(table: str, players: int) -> None:
    start, actions = _game(table, players, seed=5)
    report = analyse(start, actions)
    rolls = [a for a in actions if a[0] == "roll"]
    seats = report["seats"]
    assert set(seats) == {str(c) for c in start.seats}
    assert sum(s["rolls"] for s in seats.values()) == len([a for a in rolls if a[3] != "control"])
    assert sum(s["sixes"] for s in seats.values()) == sum(
        1 for a in rolls if a[2] == 6 and a[3] != "control"
    )
    for s in seats.values():
        assert s["expected_sixes"] == pytest.approx(s["rolls"] / 6, abs=0.01)
        low, high = s["sixes_interval"]
        assert low < s["expected_sixes"] < high
        assert s["best_share"] is None or 0.0 <= s["best_share"] <= 1.0
        lost = [c["lost"] for c in s["costliest"]]
        assert lost == sorted(lost, reverse=True) and len(lost) <= 3
        assert all(
            c["played"] != c["better"] or c["played_move"] != c["better_move"]
            for c in s["costliest"]
        )
        assert s["lost"] >= sum(lost) - 1e-6
    timeline = report["chances"]
    assert timeline[0]["seq"] == 0 and timeline[-1]["seq"] == actions[-1][1]
    winner = report["placings"][0]
    assert timeline[-1]["chances"][winner] == 1.0


def test_medium_loses_more_to_its_moves_than_hard() -> None:
    """The decisions measure what the levels are: medium plays a random move 3 turns in 10."""
    lost = {}
    for level in ("medium", "hard"):
        rules = rules_from_name("classic")
        rng = random.Random(9)
        total = choices = 0.0
        for _ in range(3):
            start, actions = recorded(rules, 2, lambda _c, level=level: level, rng)
            seats = analyse(start, actions)["seats"]
            total += sum(s["lost"] for s in seats.values())
            choices += sum(s["choices"] for s in seats.values())
        lost[level] = total / choices
    assert lost["medium"] > lost["hard"]


def test_hint_names_the_best_move_and_why() -> None:
    rules = rules_from_name("classic")
    # Red can capture Yellow's pawn 3 squares ahead (Yellow's progress 1 is Red's 27).
    state = setup(rules, {0: [24, 5, -1, -1], 2: [1, -1, -1, -1]}, to_play=0)
    state, _ = roll(state, 3)
    best, why, chance = hint(state)
    assert best.captures, best
    assert "captur" in why
    assert 0.0 < chance < 1.0


def test_the_hint_never_offers_the_best_pawn_as_its_own_alternative() -> None:
    """The Hint says why its move beats the next best, before it is played: over random
    positions of a game between bots it never says "moving pawn 2 instead" of pawn 2, and it
    names the pawn it compares with."""
    rules = rules_from_name("classic")
    bot = BOTS["medium"]
    rng = random.Random(5)
    state = new_game(rules, 4, first=rules.seats_for(4)[0])
    hinted = 0
    while state.phase != "over" and hinted < 60:
        state, _ = roll(state, rng.randint(1, 6))
        if state.phase != "move" or not legal_moves(state):
            continue
        if len(state.legal) > 1:
            best, why, _ = hint(state)
            assert "instead" not in why, why
            assert f"than moving {pawn_name(state, best)}" not in why, why
            assert f"moving {pawn_name(state, best)} would" not in why, why
            hinted += 1
        chosen, _ = bot.choose(state, rng)
        state, _ = move(state, chosen)
    assert hinted >= 20


def test_the_first_hint_takes_any_pawn_out_of_the_yard_as_one_choice() -> None:
    """With every pawn in the yard and a six, the four ways out lead to one position: the Hint
    does not compare a pawn of the yard with another; and beside a pawn on the track, the
    choice it weighs is that pawn, not a second pawn of the yard."""
    rules = rules_from_name("classic")
    state, _ = roll(new_game(rules, 4, first=0), 6)
    assert len(state.legal) == 4
    _best, why, _ = hint(state)
    assert why.code == "same", why
    assert "same position" in why
    assert [len(same) for _m, _c, same in after_choices(state)] == [4]
    state, _ = roll(setup(rules, {0: [10, -1, -1, -1], 2: [30, -1, -1, -1]}, to_play=0), 6)
    choices = after_choices(state)
    assert len(state.legal) == 4 and len(choices) == 2
    best, why, _ = hint(state)
    other = next(m for m, _c, _same in choices if m != best)
    assert {best.frm, other.frm} == {10, -1}, why
    assert why.code == "best"


def test_a_report_counts_a_choice_only_where_the_positions_differ() -> None:
    """Bringing out one yard pawn or another is no choice: a game of all-yard sixes played by
    any pawn has no choices and no moves lost."""
    rules = rules_from_name("classic")
    start = new_game(rules, 2, first=0)
    state, _ = roll(start, 6)
    report = analyse(start, [("roll", 1, 6, ""), ("move", 2, state.legal[3], False)])
    seat = report["seats"]["0"]
    assert seat["choices"] == 0 and seat["lost"] == 0.0 and seat["costliest"] == []
