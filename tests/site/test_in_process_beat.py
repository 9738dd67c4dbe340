"""The embedded default runs what the production stack's Celery beat runs (games.clocks.beat:
every beat entry the in-process clock does not do itself), and a finished match's report is
asked for when it ends, not at the sweep's next run."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest

from games.clocks import beat, sweeps
from games.models import MatchReport
from tests.ranked.matches import finish, ranked_match
from tournaments import hooks
from tournaments.models import Tournament


def until(done: Callable[[], bool], seconds: float) -> float:
    began = time.monotonic()
    while not done():
        assert time.monotonic() - began < seconds, f"not within {seconds} s"
        time.sleep(0.05)
    return time.monotonic() - began


def test_every_entry_of_beat_s_schedule_runs_in_process() -> None:
    schedule = beat.beat_schedule()
    tasks = {entry["task"] for entry in schedule.values()}
    assert {"games.analyse_finished", "tournaments.schedule", "audit.log_head"} <= tasks
    running = beat.InProcessBeat()
    # Each entry: the in-process beat at beat's interval, or the clock at each of its ticks.
    assert set(running.every) | beat.CLOCK_TASKS == tasks
    assert not set(running.every) & beat.CLOCK_TASKS
    for entry in schedule.values():
        if entry["task"] in running.every:
            assert running.every[entry["task"]] == beat.interval(entry)
    # What the clock does at each tick is those tasks' work (its sweep, the quick-match
    # queues, and the tournaments' tick, registered by their app).
    assert hooks.tick in sweeps.EXTRA_SWEEPS
    for name in running.every:
        assert callable(beat.task(name))


def test_a_crontab_entry_is_refused_rather_than_never_run() -> None:
    from celery.schedules import crontab

    with pytest.raises(ValueError, match="interval schedules only"):
        beat.InProcessBeat({"x": {"task": "audit.log_head", "schedule": crontab(minute=0)}})


@pytest.mark.django_db(transaction=True)
def test_the_beat_runs_each_job_at_its_start_and_a_report_when_a_match_ends(
    django_user_model: Any, settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings.LUDO_REPORT_AT_END = True
    # The report's sweep an hour apart: a report within seconds of the end is the end's own.
    schedule = {
        "reports": {"task": "games.analyse_finished", "schedule": 3600.0},
        "events": {"task": "tournaments.schedule", "schedule": 3600.0},
    }
    running = beat.InProcessBeat(schedule)
    monkeypatch.setattr(beat, "_running", running)
    running.start()
    try:
        until(lambda: running.runs["tournaments.schedule"] == 1, 30)
        until(lambda: running.runs["games.analyse_finished"] == 1, 30)
        assert Tournament.objects.filter(name__startswith="Hourly").exists()
        ann = django_user_model.objects.create_user(username="ann", password="x-long-pass-1")
        bob = django_user_model.objects.create_user(username="bob", password="x-long-pass-1")
        match = finish(ranked_match("duel", [ann, bob]), [ann, bob])
        until(lambda: MatchReport.objects.filter(match=match).exists(), 10)
        assert running.runs["games.analyse_finished"] == 2
    finally:
        running.stop()
