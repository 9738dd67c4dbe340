"""The tournament: a short seeded one where hard clearly beats a random mover, the Wilson
interval, and the management command's output."""

import io

import pytest
from django.core.management import CommandError, call_command

from games.bots.tournament import TABLES, report, run, wilson


def test_hard_beats_a_random_mover_clearly():
    result = run("duel", "hard", "random", games=60, seed=3)
    assert result.games == 60
    low, _ = wilson(result.wins_a, result.games)
    assert low > 0.55, report(result)


def test_seats_rotate_and_every_game_counts():
    # The same policy on both sides wins about half, over games that rotate the seats.
    result = run("classic", "hard", "hard", games=40, seed=4, players=4)
    assert result.wins_a + result.wins_b == 40
    assert 0 < result.wins_a < 40
    assert result.timing["hard"].calls > 0


def test_jobs_play_the_same_games_in_several_processes():
    one = run("classic", "expert", "hard", games=8, seed=5, players=4)
    two = run("classic", "expert", "hard", games=8, seed=5, players=4, jobs=2)
    assert (two.games, two.wins_a, two.rolls) == (one.games, one.wins_a, one.rolls)
    assert two.timing["expert"].calls == one.timing["expert"].calls
    assert two.timing["hard"].choices == one.timing["hard"].choices


def test_wilson_interval():
    low, high = wilson(50, 100)
    assert low == pytest.approx(0.4038, abs=1e-4)
    assert high == pytest.approx(0.5962, abs=1e-4)
    assert wilson(0, 10)[0] == 0.0
    assert wilson(10, 10)[1] == pytest.approx(1.0)


def test_the_command_prints_win_rates_with_intervals():
    out = io.StringIO()
    call_command(
        "bot_tournament",
        "--ruleset=party+pairs",
        "--a=beginner",
        "--b=random",
        "--games=4",
        "--seed=2",
        stdout=out,
    )
    text = out.getvalue()
    assert "party+pairs, 4 players, 4 games" in text
    assert text.count("95% interval") == 2
    assert "games/s" in text and "ms max" in text


def test_the_command_refuses_a_bad_player_count():
    with pytest.raises(CommandError):
        call_command("bot_tournament", "--ruleset=duel", "--players=4", "--games=1")


def test_players_4_plays_a_table_of_every_preset_with_intervals():
    out = io.StringIO()
    call_command(
        "bot_tournament",
        "--players=4",
        "--a=greedy",
        "--b=hard",
        "--games=2",
        "--seed=3",
        stdout=out,
    )
    text = out.getvalue()
    for name in TABLES:
        assert f"{name}, 4 players, 2 games: greedy (one seat, rotating) against hard" in text
    summary = text.split("summary, seed 3:")[1].splitlines()[1:]
    assert [line.split()[0] for line in summary] == list(TABLES)
    assert all("(fair share" in line and "%]" in line for line in summary)
    assert "party+pairs " in text and "(fair share 50%)" in text
