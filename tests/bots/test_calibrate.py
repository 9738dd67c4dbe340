"""The evaluator's fitting and checks (games.bots.calibrate) and what they changed in it
(games.bots.chances): quick's race on the pawns that must come home, the sharpness."""

from __future__ import annotations

import pytest

from games.bots.calibrate import (
    Bin,
    check,
    fit_sharp,
    log_loss,
    mean_gap,
    merged,
    samples,
    worst_gap,
)
from games.bots.chances import FITTED, Params, _sharpened, chances
from games.engine import rules_from_name, setup


def test_quick_races_on_its_pawn_furthest_along() -> None:
    # One pawn a roll from home and three in the yard, against four pawns halfway round: in
    # quick (the first pawn home wins) the first is the favourite, in classic the second.
    pawns = {0: [-1, -1, -1, 54], 2: [28, 28, 29, 29]}
    quick = chances(setup(rules_from_name("quick"), pawns, to_play=2))
    classic = chances(setup(rules_from_name("classic"), pawns, to_play=2))
    assert quick[0] > 0.7 and classic[0] < 0.3


def test_sharpness_moves_shares_towards_even_or_away_and_keeps_the_order() -> None:
    shares = [0.6, 0.3, 0.1]
    flat, sharp = _sharpened(shares, 0.5), _sharpened(shares, 2.0)
    assert sum(flat) == pytest.approx(1.0) and sum(sharp) == pytest.approx(1.0)
    assert flat[0] < 0.6 < sharp[0] and flat[2] > 0.1 > sharp[2]
    assert sorted(flat, reverse=True) == flat and sorted(sharp, reverse=True) == sharp
    assert _sharpened(shares, 1.0) == shares


def test_every_fitted_table_has_its_sharpness() -> None:
    assert all(isinstance(p, Params) and p.sharp > 0 for p in FITTED.values())
    assert {("quick", n) for n in (2, 3, 4)} <= set(FITTED)


def test_fitting_the_sharpness_does_not_lose_against_the_start() -> None:
    data = samples("duel", 2, 12, seed=5)
    start = FITTED[("duel", 2)]._replace(sharp=1.0)
    fitted = fit_sharp(data, start, steps=12)
    assert fitted[:4] == start[:4]
    assert log_loss(data, fitted) <= log_loss(data, start) + 1e-9
    # Predictions made twice as sure as they are: the fit takes most of it back.
    overconfident = start._replace(sharp=3.0)
    assert fit_sharp(data, overconfident, steps=12).sharp < 3.0


def test_a_check_bins_every_side_of_every_position_and_rolls_some_on() -> None:
    found = check("mensch", 3, games=4, seed=9, positions=2, rollout_games=3)
    assert found.positions > 0
    assert sum(b.count for b in found.bins) == found.positions * 3
    assert sum(b.won for b in found.bins) == found.positions  # one side won each
    assert len(found.rollouts) == 2
    assert all(0.0 <= p <= 1.0 and w in (0.0, 1 / 3, 2 / 3, 1.0) for p, w in found.rollouts)
    both = merged([found, found])
    assert [b.count for b in both] == [2 * b.count for b in found.bins]


def test_the_gaps_of_a_calibration_table() -> None:
    bins = [Bin(0.0, 0.5, 300, 300 * 0.25, 90), Bin(0.5, 1.0, 100, 100 * 0.75, 70)]
    assert worst_gap(bins) == pytest.approx(0.05)  # the 100-side bin is below 200 sides
    assert worst_gap(bins, least=50) == pytest.approx(0.05)
    assert mean_gap(bins) == pytest.approx((15 + 5) / 400)
