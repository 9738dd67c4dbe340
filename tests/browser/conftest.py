"""Browser tests: Playwright drives chromium (found by tests/chromium.py) against a real server,
talking to it only through the browser, as a person would.

The server is the deployed shape when the run has PostgreSQL and Redis (DATABASE_URL and
REDIS_URL, as in CI): tests/stack.py's README production setup (uvicorn with DEBUG off and
two workers, collected static files, Celery worker and beat driving the clocks, the Redis
channel layer). Without them it is the embedded default: daphne on a SQLite file with the
in-memory channel layer and the in-process clock (tests/browser/test_embedded.py keeps a smoke
test of `make run`'s own server in every run).
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests import chromium
from tests.stack import Stack, free_port, is_postgres

CHROMIUM = chromium.find()  # None: the browser tests skip (and fail a CI run)
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
ROOT = Path(__file__).resolve().parents[2]
SHOTS = ROOT / "artefacts" / "screenshots"
PHONE = {"width": 360, "height": 740}
DESKTOP = {"width": 1280, "height": 800}

try:
    from playwright.sync_api import Browser, BrowserContext, Page, expect, sync_playwright

    # What a page is expected to show may take longer than Playwright's 5 s on a busy
    # machine (two test workers, servers and browsers on two cores): the same 15 s as actions.
    expect.set_options(timeout=15_000)
except ImportError:  # pragma: no cover - requirements.txt pins it
    sync_playwright = None


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    reason = None
    if sync_playwright is None:
        reason = "playwright is not installed"
    elif CHROMIUM is None:
        reason = "no chromium (tests/chromium.py): apt-get install -y chromium (.ci/run does)"
    for item in items:
        if "browser" in item.keywords and reason:
            item.add_marker(pytest.mark.skip(reason=reason))


def on_stack() -> bool:
    """Whether this run has the production services (CI does): then the servers are the
    README's production setup."""
    database, redis = os.environ.get("DATABASE_URL", ""), os.environ.get("REDIS_URL", "")
    return is_postgres(database) and bool(redis)


# What the browser tests shorten on the real stack: bots' visible pause, and beat's tick (bots
# step and deadlines fire at a tick: one second a step would make a game to the end last
# minutes). Every browser signs up, and is a guest, from 127.0.0.1.
STACK_SETTINGS = {
    "LUDO_BOT_DELAY": "0.01",
    "LUDO_SWEEP_EVERY": "0.2",
    "SIGN_UPS_PER_IP": "1000",
    "GUESTS_PER_IP": "1000",
    "ROOMS_PER_PLAYER_HOUR": "1000",
    "RANKED_MIN_ACCOUNT_DAYS": "0",  # fresh accounts play ranked at once
    "LUDO_PASS_PAUSE": "0",  # as on the embedded server: a test that waits for it says so
}


@contextlib.contextmanager
def stack(
    folder: Path, *, tag: str = "browser", setup: str = "", servers: int = 1, **settings: str
) -> Iterator[Stack]:
    """The production setup (tests/stack.py) on a fresh database; `setup` is Python run by
    ``manage.py shell`` in it before the servers start (its output: ``stack.printed``)."""
    if sync_playwright is None or CHROMIUM is None:
        pytest.skip("no browser")
    settings = {k: v for k, v in settings.items() if k != "LUDO_TEST_CLOCK_EVERY"}
    with Stack(
        os.environ["DATABASE_URL"],
        os.environ["REDIS_URL"],
        folder,
        servers=servers,
        name=tag,
        setup=setup,
        env={**STACK_SETTINGS, **settings},
    ) as running:
        yield running


@contextlib.contextmanager
def serve(
    folder: Path, *, tag: str = "browser", setup: str = "", **settings: str
) -> Iterator[tuple[str, str]]:
    """A fresh server, the production stack or the embedded default (see the module's doc),
    with `setup` (Python for ``manage.py shell``) run in its database first; gives (base URL,
    what the setup printed) and stops the server after."""
    if on_stack():
        with stack(folder, tag=tag, setup=setup, **settings) as running:
            yield running.urls[0], running.printed
        return
    with embedded(folder, setup=setup, **settings) as served:
        yield served


@contextlib.contextmanager
def embedded(folder: Path, *, setup: str = "", **settings: str) -> Iterator[tuple[str, str]]:
    """daphne on a SQLite file of its own, with the in-memory channel layer and the in-process
    clock (ticking every LUDO_TEST_CLOCK_EVERY seconds, so bots keep pace with a test)."""
    if sync_playwright is None or CHROMIUM is None:
        pytest.skip("no browser")
    db = folder / "site.sqlite3"
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "DATABASE_URL")}
    env.update(
        DATABASE_URL=f"sqlite:///{db}",
        DJANGO_SETTINGS_MODULE="ludo_site.settings",
        LUDO_INPROCESS_CLOCK="0",  # asgi_static starts a faster one
        DEBUG="1",
        PYTHONPATH=str(ROOT),
        SIGN_UPS_PER_IP="1000",  # every browser signs up from 127.0.0.1
        GUESTS_PER_IP="1000",  # and every browser's guest comes from there too
        ROOMS_PER_PLAYER_HOUR="1000",
        RANKED_MIN_ACCOUNT_DAYS="0",  # fresh accounts play ranked at once
        **settings,
    )
    env.setdefault("LUDO_PASS_PAUSE", "0")  # a test that waits for it says so
    run: dict[str, Any] = {"cwd": ROOT, "env": env, "check": True, "capture_output": True}
    subprocess.run([sys.executable, "manage.py", "migrate", "--noinput"], **run)
    printed = ""
    if setup:
        made = subprocess.run([sys.executable, "manage.py", "shell", "-c", setup], **run)
        printed = made.stdout.decode()
    port = free_port()
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
        # Up to 90 s: on a loaded machine daphne takes far longer than 10 s to listen, and a
        # test that starts before it does fails with "connection refused".
        deadline = time.monotonic() + 90
        while True:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                    break
            except OSError:
                if server.poll() is not None:
                    raise RuntimeError(db.with_suffix(".log").read_text()) from None
                if time.monotonic() > deadline:
                    raise RuntimeError(f"daphne never listened on {port}") from None
                time.sleep(0.1)
        yield f"http://127.0.0.1:{port}", printed
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
        log.close()


@pytest.fixture(scope="session")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The base URL of a fresh server."""
    folder = tmp_path_factory.mktemp("site")
    with serve(folder, LUDO_TEST_CLOCK_EVERY="0.2", LUDO_BOT_DELAY="0.01") as (url, _):
        yield url


@pytest.fixture
def browser() -> Iterator[Browser]:
    """Chromium for one test. Not kept for the session: Playwright's sync API holds an asyncio
    loop running in this thread while it is open, which would break the async tests that
    xdist runs in the same worker afterwards."""
    if sync_playwright is None or CHROMIUM is None:
        pytest.skip("no browser")
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()


class Watched:
    """A browser context whose pages record console errors and failed requests."""

    def __init__(self, browser: Browser, viewport: dict[str, int]) -> None:
        # Reduced motion: lit pawns stop hopping, so clicks land on still targets.
        self.context: BrowserContext = browser.new_context(
            viewport=viewport,  # type: ignore[arg-type]
            reduced_motion="reduce",
        )
        self.context.set_default_timeout(15_000)
        self.errors: list[str] = []

    def page(self) -> Page:
        page = self.context.new_page()
        page.on("console", lambda m: self._console(m))
        page.on("pageerror", lambda e: self.errors.append(f"page error: {e}"))
        return page

    def _console(self, message: Any) -> None:
        if message.type == "error":
            self.errors.append(f"console: {message.text} at {message.location}")


@pytest.fixture
def people(browser: Browser) -> Iterator[Any]:
    """Make browser contexts (each a separate person); checks none logged a console error."""
    made: list[Watched] = []

    def make(viewport: dict[str, int] = DESKTOP) -> Watched:
        w = Watched(browser, viewport)
        made.append(w)
        return w

    yield make
    errors = [e for w in made for e in w.errors]
    for w in made:
        w.context.close()
    assert not errors, errors


def open_menu(page: Page) -> None:
    """Open the site's menu where the header folds it (narrow screens); nothing on a desktop."""
    toggle = page.locator("#nav-toggle")
    if toggle.is_visible() and toggle.get_attribute("aria-expanded") != "true":
        toggle.click()
        expect(page.locator("#site-nav")).to_be_visible()


def nav_click(page: Page, text: str) -> None:
    """Follow the site menu's link (or button) saying `text`, opening the menu first if folded."""
    open_menu(page)
    page.locator("#site-nav").get_by_text(text, exact=False).first.click()


def practise(page: Page, site: str, *, ruleset: str = "", players: str = "") -> None:
    """From the home page, start a practice game against the computer."""
    page.goto(site + "/")
    form = page.locator("form.play-now")
    if ruleset:
        form.locator("select[name=ruleset]").select_option(ruleset)
    if players:
        form.locator("select[name=players]").select_option(players)
    form.locator("button[type=submit]").click()


def open_friends_room(ann: Page, site: str) -> None:
    """Ann signs up on `site` and opens a two-player classic friends' room (the page on its
    way to the waiting room: each caller waits for it in the words it expects)."""
    ann.goto(site + "/accounts/signup/")
    ann.fill("input[name=username]", "ann")
    ann.fill("input[name=password1]", "a-long-pass-42")
    ann.fill("input[name=password2]", "a-long-pass-42")
    ann.check("input[name=terms]")
    ann.click("button[type=submit]")
    expect(ann.locator(".signed-in")).to_contain_text("ann")
    friends = ann.locator("form[action='/play/friends/']")
    friends.locator("select[name=ruleset]").select_option("classic")
    friends.locator("select[name=players]").select_option("2")
    friends.locator("button[type=submit]").click()


def friends_room(
    people: Any, ann_site: str, bob_site: str, *, shot: str = ""
) -> tuple[Page, Page, str]:
    """Ann signs up on `ann_site` (desktop) and opens a two-player classic friends' room; Bob,
    a guest on a phone, opens `bob_site`, types the code in lower case and is seated at once
    (the invite promise), and Ann's page hears it. Returns Ann's page, Bob's and the code as
    the room shows it. `shot`: a screenshot of Ann's waiting room, under that name."""
    ann = people(DESKTOP).page()
    open_friends_room(ann, ann_site)
    expect(ann.locator("#waiting-title")).to_have_text("Waiting for players")
    code = ann.locator("#room-code").inner_text()
    assert re.fullmatch(r"\w{3}-\w{3}", code)
    if shot:
        shoot(ann, shot)

    bob = people(PHONE).page()
    bob.goto(bob_site + "/")
    bob.fill("input[name=code]", code.lower())
    bob.click("form[action='/join/'] button")  # the room page seats him at once
    expect(bob.locator(".seat.to-play")).to_have_count(1)
    expect(ann.locator(".waiting")).to_be_hidden()
    expect(ann.locator("#seats")).to_contain_text("Guest")
    return ann, bob, code


def open_with_socket_played(page: Page, site: str, code: str, server: Any) -> None:
    """Open room `code` with its WebSocket played by `server` (Playwright's routing, standing
    in for the server). The page leaves any room first: under load a room's script may open
    its socket only after the route is in place, and that socket (closed by the navigation)
    would be the one played."""
    page.goto("about:blank")
    page.route_web_socket(re.compile(r"/ws/match/"), server)
    page.goto(f"{site}/r/{code}/")


def shoot(page: Page, name: str) -> None:
    """Keep a screenshot of `page` under artefacts/screenshots/ (not in git)."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    size = page.viewport_size or DESKTOP
    page.screenshot(path=str(SHOTS / f"{name}-{size['width']}x{size['height']}.png"))
