"""`make run`'s own server in every run, whatever the environment: daphne's `runserver` on a
SQLite file, the in-memory channel layer and the in-process clock (no Redis, no Celery). The
other browser tests run on the production setup when the run has PostgreSQL and Redis."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.stack import free_port, port_open

from .conftest import CHROMIUM, DESKTOP, ROOT, practise, sync_playwright
from .test_site import history, play_until

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def make_run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """What `make run` does (migrate, then runserver), on a SQLite file of its own."""
    if sync_playwright is None or CHROMIUM is None:
        pytest.skip("no browser")
    folder: Path = tmp_path_factory.mktemp("embedded")
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("DATABASE_URL", "REDIS_URL", "DEBUG", "LUDO_INPROCESS_CLOCK")
    }
    env.update(DATABASE_URL=f"sqlite:///{folder / 'db.sqlite3'}", PYTHONUNBUFFERED="1")
    manage = [sys.executable, "manage.py"]
    run: dict[str, Any] = {"cwd": ROOT, "env": env, "check": True, "capture_output": True}
    subprocess.run([*manage, "migrate", "--noinput"], **run)
    port = free_port()
    log = open(folder / "runserver.log", "wb")  # noqa: SIM115 - closed below
    server = subprocess.Popen(
        [*manage, "runserver", f"127.0.0.1:{port}", "--noreload"],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:
        for _ in range(300):
            if port_open(port):
                break
            assert server.poll() is None, (folder / "runserver.log").read_text()
            time.sleep(0.1)
        yield f"http://127.0.0.1:{port}"
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
        log.close()


def test_make_run_serves_a_practice_game_with_its_own_clock(make_run: str, people: Any) -> None:
    page = people(DESKTOP).page()
    response = page.goto(make_run + "/")
    assert response is not None and response.ok
    # The page's own script and style come from runserver's static files.
    assert page.evaluate("() => document.styleSheets.length") >= 1
    practise(page, make_run, ruleset="classic", players="2")
    expect(page.locator("#seats .bot-tag")).to_have_text("BOT")

    # The bot (yellow) rolls: its turns are played by the clock inside this one process.
    def bot_rolled() -> bool:
        return any(
            line.startswith("Yellow") and " rolls " in line for line in history(page).splitlines()
        )

    play_until([(page, "click")], bot_rolled, 60)
