"""The stored ladder (games/bots/ladder.json): it names the levels of `games.bots.BOTS` in the
picker's order, its figures are consistent and strictly rising, the picker's words come from
it, and ``bot_tournament --ladder`` writes it."""

import io
import json

import pytest
from django.core.management import CommandError, call_command

from games.bots import BOTS
from games.bots.tournament import LADDER_OPPONENT, LADDER_RULES, out_of_order, wilson
from games.web import ladder


def stored():
    return json.loads(ladder.LADDER_FILE.read_text())


def test_the_stored_ladder_names_the_levels_in_the_pickers_order():
    data = stored()
    assert [row["level"] for row in data["levels"]] == list(BOTS)
    assert (data["rules"], data["opponent"]) == (LADDER_RULES, LADDER_OPPONENT)


def test_the_stored_levels_are_in_strictly_increasing_measured_strength():
    data = stored()
    assert out_of_order(data) == []
    rates = [row["rate"] for row in data["levels"]]
    assert rates == sorted(set(rates))


def test_each_stored_figure_is_its_wins_over_its_games_with_the_wilson_interval():
    for row in stored()["levels"]:
        assert row["games"] >= 200
        assert row["rate"] == pytest.approx(row["wins"] / row["games"], abs=1e-4)
        low, high = wilson(row["wins"], row["games"])
        assert (row["low"], row["high"]) == (
            pytest.approx(low, abs=1e-4),
            pytest.approx(high, abs=1e-4),
        )


def test_out_of_order_names_a_level_no_stronger_than_the_one_before():
    data = {"levels": [{"level": "a", "rate": 0.5}, {"level": "b", "rate": 0.5}]}
    assert out_of_order(data) == ["b (50.0%) is not above a (50.0%)"]


def test_the_picker_says_how_each_level_plays_and_its_measured_strength():
    rows = {row["level"]: row for row in stored()["levels"]}
    texts = dict(ladder.levels())
    assert list(texts) == list(BOTS)
    for level, text in texts.items():
        percent = round(rows[level]["rate"] * 100)
        assert text == (
            f"{level.capitalize()} — {BOTS[level].about}; wins {percent}% against a random mover"
        )


def test_the_command_measures_every_level_and_stores_the_ladder(tmp_path):
    path = tmp_path / "ladder.json"
    out = io.StringIO()
    args = ["--ladder", "--games=2", "--seed=5", f"--ladder-file={path}"]
    try:
        call_command("bot_tournament", *args, stdout=out)
        refused = None
    except CommandError as exc:
        refused = str(exc)
    data = json.loads(path.read_text())
    assert [row["level"] for row in data["levels"]] == list(BOTS)
    assert all(row["games"] == 2 for row in data["levels"])
    assert data["seed"] == 5
    text = out.getvalue()
    assert text.count("95% interval") == len(BOTS)
    # Two games a level cannot order six levels: the command says so when they are not.
    assert (refused is not None) == bool(out_of_order(data))
    if refused:
        assert "not in increasing strength" in refused


def ladder_command(*args):
    out = io.StringIO()
    try:
        call_command("bot_tournament", "--ladder", *args, stdout=out)
    except CommandError as exc:
        assert "not in increasing strength" in str(exc)
    return out.getvalue()


def test_levels_remeasures_one_level_and_keeps_the_others(tmp_path):
    path = tmp_path / "ladder.json"
    ladder_command("--games=2", "--seed=5", f"--ladder-file={path}")
    first = json.loads(path.read_text())
    first["levels"][0]["wins"] = 99  # a stale row, to see which rows are measured again
    first["levels"][1]["wins"] = 98
    path.write_text(json.dumps(first))
    text = ladder_command("--games=2", "--seed=5", "--levels=easy", f"--ladder-file={path}")
    again = json.loads(path.read_text())
    assert [row["level"] for row in again["levels"]] == list(BOTS)
    assert again["levels"][0]["wins"] == 99  # kept
    assert again["levels"][1]["wins"] <= 2  # measured again
    assert text.count("95% interval") == len(BOTS)
    with pytest.raises(CommandError, match="--games 2 --seed 5"):
        call_command(
            "bot_tournament",
            "--ladder",
            "--games=3",
            "--seed=5",
            "--levels=easy",
            f"--ladder-file={path}",
            stdout=io.StringIO(),
        )
    with pytest.raises(CommandError, match="no such level"):
        call_command("bot_tournament", "--ladder", "--levels=wizard", f"--ladder-file={path}")
