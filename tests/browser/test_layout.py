"""The phone as the first screen (issue 30): every page at 375x740, 1280x800 and 1280x700 keeps
what a person needs inside the window without scrolling: the header's links (folded into a menu
on the phone), the room code in the room's bar (whole, with a spectator counted), the die's
status with the time left in words, Roll and the legal moves; the replay's board and step
buttons before anything else; the sign-up's Terms box beside its label, its error on the page.
One browser and one server for the whole file; screenshots in artefacts/screenshots/."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect, sync_playwright

from tests import chromium

from .conftest import ARGS, open_menu, open_with_socket_played, practise, serve, shoot

pytestmark = pytest.mark.browser

SIZES = [
    {"width": 375, "height": 740},
    {"width": 1280, "height": 800},
    {"width": 1280, "height": 700},
]
IDS = ["375x740", "1280x800", "1280x700"]

# A finished two-player ranked match for the replay page (random play, then a forfeit).
SETUP = """
import random
from accounts.models import User
from games import services
from tests.storage.driver import play
ann = User.objects.create_user("ann", password="pw-for-tests-1")
bob = User.objects.create_user("bob", password="pw-for-tests-1")
match = services.match_create(
    ruleset="classic", players=2, mode="ranked", host=ann, paired=[ann, bob]
)
services.match_join(code=match.code, user=bob)
match = play(match, random.Random(8), actions=60)
print(match.code, match.get_status_display())
"""


@pytest.fixture(scope="module")
def layout_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    """One server for the file: (base URL, the finished match's code)."""
    folder = tmp_path_factory.mktemp("layout")
    with serve(
        folder, tag="layout", setup=SETUP, LUDO_TEST_CLOCK_EVERY="0.2", LUDO_BOT_DELAY="0.01"
    ) as (url, printed):
        code, status = printed.split()[-2:]
        assert status == "Finished", printed
        yield url, code


@pytest.fixture(scope="module")
def one_browser() -> Iterator[Browser]:
    """One chromium for the file (closed with the module, before any async test runs)."""
    path = chromium.find()
    if path is None:
        pytest.skip("no chromium")
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=path, args=ARGS)
        yield b
        b.close()


class Person:
    """A browser context at one size whose pages record console errors."""

    def __init__(self, browser: Browser, size: dict[str, int]) -> None:
        self.context = browser.new_context(viewport=size, reduced_motion="reduce")  # type: ignore[arg-type]
        self.context.set_default_timeout(15_000)
        self.errors: list[str] = []

    def page(self) -> Page:
        page = self.context.new_page()
        page.on("pageerror", lambda e: self.errors.append(f"page error: {e}"))
        page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        return page


@pytest.fixture
def person(one_browser: Browser) -> Iterator[Any]:
    made: list[Person] = []

    def make(size: dict[str, int]) -> Person:
        made.append(Person(one_browser, size))
        return made[-1]

    yield make
    errors = [e for p in made for e in p.errors]
    for p in made:
        p.context.close()
    assert not errors, errors


def in_view(page: Page, selector: str) -> None:
    """Every element `selector` finds is shown whole inside the window, without scrolling."""
    found = page.locator(selector)
    expect(found.first).to_be_visible()
    size = page.viewport_size or SIZES[0]
    for i in range(found.count()):
        box = found.nth(i).bounding_box()
        assert box is not None, f"{selector} #{i} is not drawn"
        inside = (
            box["x"] >= 0
            and box["y"] >= 0
            and box["x"] + box["width"] <= size["width"] + 0.5
            and box["y"] + box["height"] <= size["height"] + 0.5
        )
        assert inside, f"{selector} #{i} at {box} is outside {size['width']}x{size['height']}"


def not_cut(page: Page, selector: str) -> None:
    """The element's text is drawn whole: nothing clipped by an ellipsis or overflow."""
    cut = page.locator(selector).evaluate(
        "(el) => { let n = el; while (n) { if (n.scrollWidth > n.clientWidth + 1"
        " && getComputedStyle(n).overflow !== 'visible') return true;"
        " n = n.parentElement; if (n && n.classList.contains('room-bar')) break; }"
        " return false; }"
    )
    assert not cut, f"{selector} is cut off"


def header_links_in_view(page: Page) -> None:
    """The site's header links, each inside the window (the menu opened where it folds), and
    no sideways scroll."""
    open_menu(page)
    in_view(page, "#site-nav > a, #site-nav button")
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= (page.viewport_size or SIZES[0])["width"], f"{page.url} scrolls sideways"
    toggle = page.locator("#nav-toggle")
    if toggle.is_visible():
        toggle.click()
        expect(page.locator("#site-nav")).to_be_hidden()


@pytest.mark.parametrize("size", SIZES, ids=IDS)
def test_sign_up_header_and_terms(
    layout_site: tuple[str, str], person: Any, size: dict[str, int]
) -> None:
    site, _ = layout_site
    page = person(size).page()
    page.goto(site + "/")
    header_links_in_view(page)
    expect(page.locator("#site-nav")).to_contain_text("Sign up")
    page.goto(site + "/accounts/signup/")
    name = f"lay{size['width']}{size['height']}"
    page.fill("input[name=username]", name)
    page.fill("input[name=password1]", "a-long-pass-42")
    page.fill("input[name=password2]", "a-long-pass-42")
    page.click("main button[type=submit]")
    # Unticked: the page says why, beside the box, and nothing was sent.
    error = page.locator("#id_terms-error")
    expect(error).to_contain_text("accept the Terms of Service")
    assert page.url.endswith("/accounts/signup/")
    box = page.locator("input[name=terms]").bounding_box()
    words = page.locator(".check-field label.check span").bounding_box()
    assert box and words
    # The box sits at the start of its label's first line, not alone in mid-line.
    assert words["x"] - (box["x"] + box["width"]) < 20, (box, words)
    assert abs(box["y"] - words["y"]) < 12, (box, words)
    in_view(page, "input[name=terms]")
    shoot(page, "layout-signup")
    page.check("input[name=terms]")
    expect(error).to_be_hidden()
    page.click("main button[type=submit]")
    expect(page.locator(".site-nav")).to_contain_text(name)
    header_links_in_view(page)  # signed in: the profile and Sign out too
    expect(page.locator("#site-nav")).to_contain_text("Sign out")


@pytest.mark.parametrize("size", SIZES, ids=IDS)
def test_room_code_roll_time_left(
    layout_site: tuple[str, str], person: Any, size: dict[str, int]
) -> None:
    """A friend room with both players and a spectator: the bar's code is whole, the time left
    is beside the status, and Roll is in view, for the host at this size."""
    site, _ = layout_site
    ann = person(size).page()
    ann.goto(site + "/accounts/signup/")
    ann.fill("input[name=username]", f"host{size['width']}{size['height']}")
    ann.fill("input[name=password1]", "a-long-pass-42")
    ann.fill("input[name=password2]", "a-long-pass-42")
    ann.check("input[name=terms]")
    ann.click("main button[type=submit]")
    friends = ann.locator("form[action='/play/friends/']")
    friends.locator("select[name=ruleset]").select_option("classic")
    friends.locator("select[name=players]").select_option("2")
    friends.locator("button[type=submit]").click()
    code = ann.locator("#room-code").inner_text()
    assert re.fullmatch(r"\w{3}-\w{3}", code)
    header_links_in_view(ann)

    bob = person(SIZES[0]).page()
    bob.goto(site + "/")
    bob.fill("input[name=code]", code.lower())
    bob.click("form[action='/join/'] button")
    expect(ann.locator(".waiting")).to_be_hidden()
    watcher = person(SIZES[1]).page()
    watcher.goto(f"{site}/r/{code.replace('-', '')}/")
    expect(watcher.locator("body.spectator")).to_have_count(1)
    # The count rides on the room's next change: the player to roll rolls.
    for _ in range(300):
        to_roll = next((p for p in (ann, bob) if p.locator("#roll").is_enabled()), None)
        if to_roll is not None:
            break
        ann.wait_for_timeout(50)
    assert to_roll is not None, "nobody's Roll was ever enabled"
    to_roll.locator("#roll").click()
    expect(ann.locator("#watch-count")).to_contain_text("1")

    expect(ann.locator("#bar-code")).to_have_text(code)
    in_view(ann, "#bar-code")
    not_cut(ann, "#bar-code")
    in_view(ann, "#watching")
    # Whoever's turn it is, a person's clock runs: its time left in words beside the status.
    expect(ann.locator("#time-left")).to_have_text(re.compile(r"^\d+:\d\d left$"))
    in_view(ann, "#status")
    in_view(ann, "#time-left")
    in_view(ann, "#roll")
    in_view(ann, "#legal")
    shoot(ann, "layout-room")


@pytest.mark.parametrize("size", SIZES, ids=IDS)
def test_roll_and_four_legal_moves(
    layout_site: tuple[str, str], person: Any, size: dict[str, int]
) -> None:
    """Four legal moves (played over the socket by the test): every choice and Roll are inside
    the window without scrolling."""
    site, _ = layout_site
    page = person(size).page()
    practise(page, site, ruleset="classic", players="2")
    expect(page.locator("#roll")).to_be_visible()
    code = page.url.rstrip("/").split("/")[-1]
    sockets: list[Any] = []
    open_with_socket_played(page, site, code, lambda ws: sockets.append(ws))
    expect(page.locator("#roll")).to_be_visible()
    for _ in range(200):
        if sockets:
            break
        page.wait_for_timeout(50)
    assert sockets, "the room never opened its socket"
    snap = page.request.get(f"{site}/api/matches/{code}").json()
    v = snap["v"] + 1
    you = next(s["corner"] for s in snap["seats"] if s.get("you"))
    pawns: list[list[int]] = [[] for _ in range(4)]
    pawns[you] = [3, 9, 14, 20]
    for s in snap["seats"]:
        if s["corner"] != you:
            pawns[s["corner"]] = [-1, -1, -1, -1]
    legal = [
        {
            "pawn": i,
            "corner": you,
            "from": f,
            "to": f + 4,
            "square": (f + 4 + 13 * you) % 52,
            "captures": [],
            "safe": False,
            "home": False,
            "bonus": None,
        }
        for i, f in enumerate(pawns[you])
    ]
    state = {
        **snap,
        "v": v,
        "status": "active",
        "pawns": pawns,
        "to_play": you,
        "phase": "move",
        "die": 4,
        "face": 4,
        "legal": legal,
        "placings": [],
    }
    sockets[0].send(json.dumps({"t": "state", "v": v, "d": state}))
    expect(page.locator("#legal .move-choice")).to_have_count(4)
    shoot(page, "layout-moves")
    in_view(page, "#legal .move-choice")
    in_view(page, "#roll")
    in_view(page, "#status")


@pytest.mark.parametrize("size", SIZES, ids=IDS)
def test_replay_board_and_steps_first(
    layout_site: tuple[str, str], person: Any, size: dict[str, int]
) -> None:
    site, code = layout_site
    page = person(size).page()
    page.goto(f"{site}/r/{code}/replay/")
    expect(page.locator(".replay-title")).to_contain_text(f"{code[:3]}-{code[3:]}")
    expect(page.locator("#proof-result")).not_to_contain_text("Checking")
    header_links_in_view(page)
    in_view(page, "#board")
    in_view(page, "#prev")
    in_view(page, "#next")
    in_view(page, "#slider")
    # The disputes box comes after the steps, never between the title and the board.
    board = page.locator("#board").bounding_box()
    report = page.locator(".dispute-box, #report-problem").first
    if report.count():
        other = report.bounding_box()
        assert board and other and other["y"] > board["y"] + board["height"]
    shoot(page, "layout-replay")
