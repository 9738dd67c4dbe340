"""Tournaments in real browsers, to their final standings: an arena (three accounts join on
its page, are sent to their ranked rooms, paired again as games end, until the window
closes) and a Swiss event (three entrants, two rounds with a bye); every game ends by a
resignation in the room, over the real sockets. Clocks are shortened with LUDO_TIME_SCALE.
Then `verify_tournament` passes on the server's database, and fails once a standings row is
changed by hand. Screenshots of the event page (artefacts/screenshots/)."""

from __future__ import annotations

import contextlib
import os
import re
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Page, expect

from .conftest import DESKTOP, PHONE, ROOT, embedded, on_stack, shoot, stack

pytestmark = pytest.mark.browser

PASSWORD = "a-long-pass-42"
# A 3-minute arena lasts 45 s at this scale (and the turn clocks a quarter of theirs).
SCALE = "0.25"


def setup_code(kind: str, names: list[str]) -> str:
    """Python for ``manage.py shell``: the accounts and the event (a Swiss one has them
    entered already: its first round pairs whoever entered by the start)."""
    swiss = kind == "swiss"
    lines = [
        "from audit.clock import db_now",
        "from accounts.models import User",
        "from tournaments import services",
        f"users = [User.objects.create_user(n, password={PASSWORD!r}) for n in {names!r}]",
        "from datetime import timedelta",
        # The arena opens for entries now and starts when the test says (`start_now`).
        f"start = db_now() + timedelta(days={0 if swiss else 1})",
        f"t = services.create(name='Browser {kind}', kind={kind!r}, queue='duel',"
        f" starts_at=start, minutes={10 if swiss else 3}, rounds={2 if swiss else 0})",
    ]
    if swiss:
        lines.append("[services.join(code=t.code, user=u) for u in users]")
    lines.append("print(t.code)")
    return "\n".join(lines)


@contextlib.contextmanager
def served(
    folder: Path, setup: str, scale: str = SCALE
) -> Iterator[tuple[str, str, Callable[..., subprocess.CompletedProcess[str]]]]:
    """The server (the production stack with PostgreSQL and Redis, else the embedded one),
    what the setup printed, and ``manage.py`` on its database."""
    settings = {"LUDO_TIME_SCALE": scale, "LUDO_BOT_DELAY": "0.01"}
    if on_stack():
        with stack(folder, tag="tourney", setup=setup, **settings) as running:

            def manage(*args: str) -> subprocess.CompletedProcess[str]:
                return _run(running.env, *args)

            yield running.urls[0], running.printed, manage
        return
    with embedded(folder, setup=setup, LUDO_TEST_CLOCK_EVERY="0.2", **settings) as (url, out):
        env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL",)}
        env.update(DATABASE_URL=f"sqlite:///{folder / 'site.sqlite3'}", PYTHONPATH=str(ROOT))

        def manage(*args: str) -> subprocess.CompletedProcess[str]:
            return _run(env, *args)

        yield url, out, manage


def _run(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )


def sign_in(page: Page, site: str, name: str, code: str) -> None:
    page.goto(f"{site}/accounts/login/?next=/tournaments/{code}/")
    page.fill("input[name=username]", name)
    page.fill("input[name=password]", PASSWORD)
    page.click("main button[type=submit]")
    expect(page.locator(".signed-in")).to_contain_text(name)
    # The event's page, or the player's game: an entrant the event has paired already is
    # taken there from any page (static/js/paired.js).
    expect(page.locator("#tournament, #room")).to_be_visible()


def in_room(page: Page) -> bool:
    return "/r/" in page.url


def resign(page: Page, timeout: float = 30) -> None:
    """Resign as soon as the room offers it, unless the game is over already (with clocks
    this short a seat whose player was slow to arrive may have been timed out)."""
    end = time.monotonic() + timeout
    button, turn = page.locator("#resign"), page.locator("#turn")
    while time.monotonic() < end:
        if "over" in (turn.text_content() or ""):
            return
        if button.is_visible():
            page.once("dialog", lambda dialog: dialog.accept())
            with contextlib.suppress(Exception):  # the game may end under the click
                button.click(timeout=3000)
            return
        page.wait_for_timeout(100)
    raise AssertionError("the room offered no resignation and the game did not end")


def play_until_finished(pages: list[Page], site: str, code: str, timeout: float = 240) -> int:
    """Whenever two players are sent to one room (by the page's socket or poll, or by the
    "Go to your game" link when the game was made before the page loaded), the first
    resigns and both go back to the event's page; until the event shows its final
    standings. Returns the games played."""
    event = f"{site}/tournaments/{code}/"
    end = time.monotonic() + timeout
    played = 0
    while time.monotonic() < end:
        for page in pages:
            link = page.locator("#your-game")
            if not in_room(page) and link.count() and link.is_visible():
                with contextlib.suppress(Exception):  # the page may be leaving by itself
                    link.click(timeout=2000)
        rooms: dict[str, list[Page]] = {}
        for page in pages:
            if in_room(page):
                rooms.setdefault(page.url, []).append(page)
        for seated in rooms.values():
            if len(seated) < 2:
                continue
            loser, winner = seated[0], seated[1]
            expect(loser.locator("#room")).to_have_attribute("data-mode", "ranked")
            expect(loser.locator("#seats .bot-tag")).to_have_count(0)
            resign(loser)
            expect(winner.locator("#turn")).to_contain_text("over", timeout=30_000)
            played += 1
            for page in seated:
                visit(page, event)
        if not in_room(pages[0]) and "Final standings" in titles(pages[0]):
            return played
        pages[0].wait_for_timeout(300)
        if not in_room(pages[0]) and pages[0].url != event:
            visit(pages[0], event)
    raise AssertionError(f"the event did not finish in {timeout} s ({played} games played)")


def titles(page: Page) -> list[str]:
    """The standings' title as the page shows it now, without waiting: the event page reloads
    itself, or sends its player to a room, at any moment (a locator that waited would wait out
    its whole timeout on the room page)."""
    try:
        return page.locator("#standings-title").all_inner_texts()
    except PlaywrightError:  # the page navigated under the read
        return []


def visit(page: Page, url: str) -> None:
    """Open `url`; the event page reloads itself when the standings become final (and sends
    a player to their next game), which may interrupt a navigation the test started: then the
    page's own navigation is waited for instead."""
    try:
        page.goto(url)
    except PlaywrightError as error:
        # Chromium says either, depending on which navigation began first.
        if not any(s in str(error) for s in ("interrupted by another navigation", "ERR_ABORTED")):
            raise
        page.wait_for_load_state()
        if page.url != url:  # the page's own navigation went elsewhere (the next game)
            page.goto(url)


def check_verify(
    page: Page, site: str, code: str, manage: Callable[..., subprocess.CompletedProcess[str]]
) -> None:
    # A page of its own: the standings page may still navigate itself (its poll sends a
    # player on), which aborted this navigation once in CI (net::ERR_ABORTED).
    page = page.context.new_page()
    page.goto(f"{site}/tournaments/{code}/verify/")
    expect(page.locator("#verify-result")).to_have_attribute("data-ok", "1")
    done = manage("verify_tournament", code)
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"tournament {code} ok" in done.stdout
    changed = manage(
        "shell",
        "-c",
        "from tournaments.models import Player\n"
        f"p = Player.objects.filter(tournament__code={code!r}).order_by('rank').last()\n"
        "p.score += 1\np.save()",
    )
    assert changed.returncode == 0, changed.stderr
    failed = manage("verify_tournament", code)
    assert failed.returncode != 0 and "published score" in failed.stderr, failed.stderr
    page.reload()
    expect(page.locator("#verify-result")).to_have_attribute("data-ok", "0")


def standings(page: Page) -> list[tuple[str, int]]:
    rows = page.locator("#standings tbody tr")
    return [
        (
            rows.nth(i).locator("td").nth(1).inner_text().split()[0],
            int(rows.nth(i).locator("td").nth(2).inner_text()),
        )
        for i in range(rows.count())
    ]


def test_an_arena_to_its_final_standings(people: Any, tmp_path: Path) -> None:
    names = ["ada", "ben", "cleo"]
    with served(tmp_path, setup_code("arena", names)) as (site, printed, manage):
        code = printed.strip().splitlines()[-1]
        pages = []
        for i, name in enumerate(names):
            page = people(PHONE if i == 1 else DESKTOP).page()
            sign_in(page, site, name, code)
            page.click("#join")
            expect(page.locator("#you-line")).to_be_visible()
            pages.append(page)
        # The start comes once everyone has entered (the window is short and the machine
        # may be slow): the clock moved on, as by the database's clock.
        moved = manage(
            "shell",
            "-c",
            "from audit.clock import db_now\nfrom tournaments.models import Tournament\n"
            f"Tournament.objects.filter(code={code!r}).update(starts_at=db_now())",
        )
        assert moved.returncode == 0, moved.stderr
        shoot(pages[2], "tournament-arena-running")
        assert play_until_finished(pages, site, code) >= 1
        # Paired again as games ended: more games than one (a game whose player was slow to
        # come to the room ends under its clock, and counts all the same).
        assert pages[0].locator(".games-done a[href$='/replay/']").count() >= 2
        rows = standings(pages[0])
        assert sorted(n for n, _ in rows) == names
        assert rows[0][1] >= 2 and [s for _, s in rows] == sorted(
            (s for _, s in rows), reverse=True
        )
        shoot(pages[0], "tournament-arena-final")
        visit(pages[1], f"{site}/tournaments/{code}/")
        shoot(pages[1], "tournament-arena-final")
        check_verify(pages[0], site, code, manage)


def test_a_swiss_event_to_its_final_standings(people: Any, tmp_path: Path) -> None:
    names = ["dora", "eli", "fay"]
    # Rounds follow their games, not a clock: the turn clocks are only halved here.
    with served(tmp_path, setup_code("swiss", names), "0.5") as (site, printed, manage):
        code = printed.strip().splitlines()[-1]
        pages = []
        for i, name in enumerate(names):
            page = people(PHONE if i == 2 else DESKTOP).page()
            sign_in(page, site, name, code)
            pages.append(page)
        assert play_until_finished(pages, site, code) >= 1
        page = pages[0]
        # Two rounds of one game and a bye each (a game may end under its clock).
        expect(page.locator(".games-done a[href$='/replay/']")).to_have_count(2)
        expect(page.locator("#event-state")).to_have_text("Finished")
        rows = standings(page)
        assert sorted(n for n, _ in rows) == names
        assert sum(s for _, s in rows) == 4  # two wins and two byes, a point each
        expect(page.locator(".games-done .tag", has_text=re.compile("bye"))).to_have_count(2)
        shoot(page, "tournament-swiss-final")
        visit(pages[2], f"{site}/tournaments/{code}/")
        shoot(pages[2], "tournament-swiss-final")
        check_verify(page, site, code, manage)
