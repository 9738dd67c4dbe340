"""Disputes in a real browser: a player reports a problem from the replay page, a moderator
reviews it (the replay shows in the review page at the named turn) and upholds it, and the
player sees the decision. Screenshots of the review page at desktop and phone sizes."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from .conftest import CHROMIUM, PHONE, ROOT, SHOTS, _free_port, shoot

pytestmark = pytest.mark.browser

# Run in the server's database: two players finish a ranked match (random play, then a
# forfeit), and a moderator (staff, in the moderators group) exists.
SETUP = """
import random
from django.contrib.auth.models import Group
from accounts.models import User
from games import services
from tests.storage.driver import play
ann = User.objects.create_user("ann", password="pw-for-tests-1")
bob = User.objects.create_user("bob", password="pw-for-tests-1")
mod = User.objects.create_user("mod", password="pw-for-tests-1", is_staff=True)
mod.groups.add(Group.objects.get(name="moderators"))
match = services.match_create(ruleset="classic", players=2, mode="ranked", host=ann)
services.match_join(code=match.code, user=bob)
match = play(match, random.Random(8), actions=80)
print(match.code, match.get_status_display(), match.turn_seq)
"""


@pytest.fixture(scope="module")
def dispute_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    """A server of its own (base URL, match code), its database holding the setup above."""
    if not os.path.exists(CHROMIUM):
        pytest.skip("no browser")
    db = tmp_path_factory.mktemp("disputes") / "site.sqlite3"
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "DATABASE_URL")}
    env.update(
        DATABASE_URL=_database_url(db),
        DJANGO_SETTINGS_MODULE="ludo_site.settings",
        LUDO_INPROCESS_CLOCK="0",
        DEBUG="1",
        PYTHONPATH=str(ROOT),
    )
    run = {"cwd": ROOT, "env": env, "check": True, "capture_output": True, "text": True}
    subprocess.run([sys.executable, "manage.py", "migrate", "--noinput"], **run)
    made = subprocess.run([sys.executable, "manage.py", "shell", "-c", SETUP], **run)
    code, status, _turns = made.stdout.split()[-3:]
    assert status == "Finished", made.stdout
    port = _free_port()
    daphne = shutil.which("daphne", path=str(Path(sys.executable).parent)) or "daphne"
    log = open(db.with_suffix(".log"), "w")  # noqa: SIM115 - closed below
    server = subprocess.Popen(
        [daphne, "-b", "127.0.0.1", "-p", str(port), "tests.browser.asgi_static:application"],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:
        for _ in range(100):
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                    break
            except OSError:
                if server.poll() is not None:
                    raise RuntimeError(db.with_suffix(".log").read_text()) from None
                time.sleep(0.1)
        yield f"http://127.0.0.1:{port}", code
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
        log.close()


def _database_url(sqlite_file: Path) -> str:
    """A fresh database of this module's own: on PostgreSQL when DATABASE_URL names it (as in
    CI), else a SQLite file."""
    url = os.environ.get("DATABASE_URL", "")
    if not url.startswith(("postgres://", "postgresql://")):
        return f"sqlite:///{sqlite_file}"
    import psycopg

    base, _, name = url.rpartition("/")
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    fresh = f"{name.split('?')[0]}_disputes_{worker}"
    with psycopg.connect(f"{base}/postgres", autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{fresh}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{fresh}"')
    return f"{base}/{fresh}"


def sign_in(page: Page, site: str, username: str) -> None:
    page.goto(site + "/accounts/login/")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", "pw-for-tests-1")
    page.click("button[type=submit]")
    expect(page.locator(".site-nav")).to_contain_text(username)


def test_a_player_disputes_and_a_moderator_reviews_and_upholds(
    dispute_site: tuple[str, str], people: Any
) -> None:
    site, code = dispute_site
    player = people().page()
    sign_in(player, site, "bob")
    player.goto(f"{site}/r/{code}/replay/")
    player.click("#report-problem")
    player.check("input[name=reason][value=dice]")
    player.fill("textarea[name=text]", "Ann rolled six after six in turn 3.")
    player.fill("input[name=turn]", "3")
    shoot(player, "dispute-open")
    player.click("text=Open the dispute")
    expect(player.locator("#dispute-status")).to_contain_text("Open")

    moderator_view = people()
    moderator = moderator_view.page()
    sign_in(moderator, site, "mod")
    moderator.click(".site-nav >> text=Disputes")
    expect(moderator.locator(".queue-table tbody tr")).to_have_count(1)
    shoot(moderator, "dispute-queue")
    moderator.click(".queue-table >> text=Review")
    expect(moderator.locator("#proof-summary")).to_contain_text("dice verified")
    expect(moderator.locator("#chain-result")).to_have_class("ok")
    # The replay runs in the page, stepped to the named turn, and proves the dice itself.
    frame = moderator.frame_locator("#replay-frame")
    expect(frame.locator("#board .pawn").first).to_be_visible()
    expect(frame.locator("#where-am-i")).to_contain_text("turn 3")
    expect(frame.locator("#proof-result")).to_contain_text("all")
    expect(moderator.locator("table.timeline")).to_contain_text("turn 3 begins")
    shoot(moderator, "dispute-review")
    moderator.screenshot(path=str(SHOTS / "dispute-review-1280-full.png"), full_page=True)
    phone = people(PHONE).page()
    sign_in(phone, site, "mod")
    phone.goto(moderator.url)
    expect(phone.frame_locator("#replay-frame").locator("#board .pawn").first).to_be_visible()
    # The page's content fits a phone (the site header's nav is the site's, not checked here).
    wide = phone.evaluate(
        "[...document.querySelectorAll('main *')].filter(e => e.getBoundingClientRect().right"
        " > 361 && !e.closest('.scroll-x, .scroll-y')).map(e => e.tagName + '.' + e.className)"
    )
    assert not wide, f"wider than the phone: {wide}"
    shoot(phone, "dispute-review")
    for part in ("stats", "timeline"):
        phone.locator(f"#{part}-title").scroll_into_view_if_needed()
        shoot(phone, f"dispute-review-{part}")
    phone.screenshot(path=str(SHOTS / "dispute-review-360-full.png"), full_page=True)

    moderator.check("input[name=outcome][value=uphold]")
    moderator.fill("textarea[name=reason]", "The turn 3 clock misfired: the match is void.")
    moderator.click("text=Settle the dispute")
    expect(moderator.locator(".messages")).to_contain_text(f"match {code} is void")

    player.goto(site + "/")
    expect(player.locator(".site-nav")).to_contain_text("1 new")
    player.click(".site-nav >> text=My disputes")
    expect(player.locator(".dispute-card")).to_contain_text("Upheld")
    expect(player.locator(".dispute-card")).to_contain_text("clock misfired")
    shoot(player, "dispute-mine")
    player.reload()  # read once, the decision is no longer news
    expect(player.locator(".site-nav")).not_to_contain_text("new")
    player.goto(f"{site}/r/{code}/replay/")
    expect(player.locator(".dispute-box")).to_contain_text("This match is void")
