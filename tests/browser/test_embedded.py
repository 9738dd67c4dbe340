"""`make run`'s own server in every run, whatever the environment: the Makefile's recipe
(daphne's `runserver`, DEBUG off, no SECRET_KEY given, on PORT) on a SQLite file, the
in-memory channel layer, and the in-process clock and beat (no Redis, no Celery): the whole
site. The other browser tests run on the production setup when the run has PostgreSQL and
Redis."""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.stack import free_port, port_open

from .bot_game import every_bot_move_arrived, no_broadcast_failed, play_against_three_bots
from .conftest import CHROMIUM, DESKTOP, PHONE, ROOT, practise, shoot, sync_playwright
from .test_site import history, play_until

pytestmark = pytest.mark.browser


# What the tests shorten on make run's server: a bot's visible pause and the pause after a
# roll no pawn can use, so a game to its end takes a minute at most. Every browser is a guest
# from 127.0.0.1.
QUICK = {
    "LUDO_BOT_DELAY": "0.05",
    "QUICK_MATCH_BOT_AFTER": "1",  # a casual quick match's bots step in after a second
    "LUDO_PASS_PAUSE": "0",
    "GUESTS_PER_IP": "1000",
    "ROOMS_PER_PLAYER_HOUR": "1000",
}


class MakeRun:
    """`make run`'s server (the Makefile's own recipe) and its log."""

    def __init__(self, url: str, log: Path) -> None:
        self.url = url
        self.log_path = log

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")


@pytest.fixture(scope="module")
def make_run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[MakeRun]:
    """What `make run` does once .venv is set up (``make serve``: migrate, then runserver
    with DEBUG off and no SECRET_KEY given), on PORT and a SQLite file of its own."""
    if sync_playwright is None or CHROMIUM is None:
        pytest.skip("no browser")
    folder: Path = tmp_path_factory.mktemp("embedded")
    unset = ("DATABASE_URL", "REDIS_URL", "DEBUG", "SECRET_KEY", "LUDO_INPROCESS_CLOCK")
    env = {k: v for k, v in os.environ.items() if k not in unset and not k.startswith("MAKE")}
    port = free_port()
    env.update(
        DATABASE_URL=f"sqlite:///{folder / 'db.sqlite3'}",
        PYTHONUNBUFFERED="1",
        PORT=str(port),
        RUN_FLAGS="--noreload",
        **QUICK,
    )
    log_path = folder / "runserver.log"
    log = open(log_path, "wb")  # noqa: SIM115 - closed below
    server = subprocess.Popen(
        ["make", "--no-print-directory", "serve"],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,  # make, and the server it runs: stopped as one group
    )
    try:
        for _ in range(1200):
            if port_open(port):
                break
            assert server.poll() is None, log_path.read_text()
            time.sleep(0.1)
        yield MakeRun(f"http://127.0.0.1:{port}", log_path)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(server.pid, signal.SIGTERM)
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
        log.close()


def test_make_run_serves_a_practice_game_with_its_own_clock(make_run: MakeRun, people: Any) -> None:
    site = make_run.url
    page = people(DESKTOP).page()
    response = page.goto(site + "/")
    assert response is not None and response.ok
    # The page's own script and style come from runserver's static files.
    assert page.evaluate("() => document.styleSheets.length") >= 1
    practise(page, site, ruleset="classic", players="2")
    expect(page.locator("#seats .bot-tag")).to_have_text("BOT")

    # The bot (yellow) rolls: its turns are played by the clock inside this one process.
    def bot_rolled() -> bool:
        return any(
            line.startswith("Yellow") and " rolls " in line for line in history(page).splitlines()
        )

    play_until([(page, "click")], bot_rolled, 60)


def report_state(site: str, code: str) -> str:
    with urllib.request.urlopen(f"{site}/api/matches/{code}/replay", timeout=30) as r:
        report = json.load(r)["report"]
    return str(report["state"]) if report else "none"


def report_within(site: str, code: str, seconds: float) -> float:
    """Seconds until the match's report is stored (its replay's ``report`` is ready),
    read through the API, which never makes one itself."""
    began = time.monotonic()
    while report_state(site, code) != "ready":
        assert time.monotonic() - began < seconds, f"no report {seconds} s after the end"
        time.sleep(0.25)
    return time.monotonic() - began


def test_on_make_run_every_bot_move_reaches_the_page_and_the_report_follows(
    make_run: MakeRun, people: Any
) -> None:
    page = people(DESKTOP).page()
    record = play_against_three_bots(page, make_run.url)
    shoot(page, "three-bots-over")
    assert every_bot_move_arrived(record) >= 10
    # Made when the match ended (the in-process beat runs the report's task at once).
    report_within(make_run.url, record["code"], 10)
    no_broadcast_failed(make_run.log())


def test_on_make_run_a_quick_match_s_report_is_on_its_replay_within_10_s(
    make_run: MakeRun, people: Any
) -> None:
    """A casual quick match (not practice: its replay page never makes the report itself)."""
    page = people(DESKTOP).page()
    page.goto(make_run.url + "/play/quick/")
    page.click("button[data-queue=quick-4]")
    expect(page.locator("#seats .bot-tag")).to_have_count(3, timeout=30_000)
    code = page.url.rstrip("/").split("/")[-1]
    play_until([(page, "click")], lambda: "over" in page.locator("#turn").inner_text(), 90)
    taken = report_within(make_run.url, code, 10)
    assert taken < 10
    page.locator("#result").get_by_text("Watch the replay").click()
    expect(page.locator("#match-report")).to_have_attribute("data-state", "ready")
    no_broadcast_failed(make_run.log())


def test_make_run_answers_a_wrong_address_with_the_site_s_own_page(
    make_run: MakeRun, people: Any
) -> None:
    for viewport in (PHONE, DESKTOP):
        # A page of its own: its 404 logs a failed request, which is what it is for.
        page = people(viewport).context.new_page()
        response = page.goto(make_run.url + "/no-such-page/")
        assert response is not None and response.status == 404
        # The site's own page (its header and style), as wide as the screen: not Django's
        # technical page.
        expect(page.locator("h1")).to_have_text("We could not find that page")
        expect(page.locator("header .brand")).to_be_visible()
        assert "Using the URLconf" not in page.content()
        width = page.evaluate("() => document.documentElement.scrollWidth")
        assert width <= viewport["width"], width
        shoot(page, "not-found")


def test_make_run_lists_the_site_s_hourly_arenas(make_run: MakeRun, people: Any) -> None:
    page = people(DESKTOP).page()
    page.goto(make_run.url + "/tournaments/")
    expect(
        page.locator("a.event-name", has_text=re.compile(r"^Hourly .* arena$")).first
    ).to_be_visible()
