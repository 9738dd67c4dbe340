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

from games.engine import RULESETS
from tests import chromium

from .conftest import ARGS, open_menu, open_with_socket_played, practise, serve, shoot

pytestmark = pytest.mark.browser

SIZES = [
    {"width": 375, "height": 740},
    {"width": 1280, "height": 800},
    {"width": 1280, "height": 700},
]
IDS = ["375x740", "1280x800", "1280x700"]

# What every page of the tour needs: accounts (two players, a suspended player who appealed,
# two moderators), a finished two-player ranked match (random play, then a forfeit) with a
# dispute on it (claimed, a question asked) and a report, a warning, and two tournaments open
# for entries (a Swiss one with three entrants).
SETUP = """
import random
from datetime import timedelta
from django.contrib.auth.models import Group
from accounts.models import User
from audit.clock import db_now
from disputes import services as desk
from fairplay import services as fair
from games import services
from tournaments import services as events
from tests.storage.driver import play
mods = Group.objects.get(name="moderators")
def user(name, staff=False):
    u = User.objects.create_user(name, password="pw-for-tests-1", is_staff=staff)
    if staff:
        u.groups.add(mods)
    return u
ann, bob, carl = user("ann"), user("bob"), user("carl")
maria, omar = user("maria", True), user("omar", True)
match = services.match_create(
    ruleset="classic", players=2, mode="ranked", host=ann, paired=[ann, bob]
)
services.match_join(code=match.code, user=bob)
match = play(match, random.Random(8), actions=60)
case = desk.dispute_open(match_id=match.pk, user=bob, reason="dice",
    text="Ann rolled three sixes in a row twice. Were the dice fair?")
desk.dispute_assign(dispute_id=case.pk, moderator=maria)
desk.dispute_ask(dispute_id=case.pk, moderator=maria, question="Which turns do you mean?")
fair.report(reporter=bob, reported=ann, reason="assisted", note="Every move came at once.",
    match=match)
fair.sanction(moderator=maria, user=bob, kind="warning", reason="Mind your words in rooms.")
banned = fair.sanction(moderator=maria, user=carl, kind="suspension", days=7,
    reason="Your moves matched a computer's too closely: no ranked play for a week.")
banned = fair.appeal(user=carl, sanction_id=banned.pk, text="I know the openings, that is all.")
start = db_now() + timedelta(days=1)
arena = events.create(name="Evening arena", kind="arena", queue="duel", starts_at=start,
    minutes=30)
swiss = events.create(name="Sunday Swiss", kind="swiss", queue="duel", starts_at=start,
    minutes=10, rounds=3)
for u in (ann, bob):  # carl is suspended from ranked play: no entry
    events.join(code=swiss.code, user=u)
print(match.code, match.get_status_display(), case.pk, ann.pk, banned.pk,
    banned.appeal_moderator.username, arena.code, swiss.code)
"""


@pytest.fixture(scope="module")
def layout_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, dict[str, str]]]:
    """One server for the file: (base URL, what the setup made: the finished match's code,
    the dispute's id, ann's id, the appealed sanction's id and its moderator, the events)."""
    folder = tmp_path_factory.mktemp("layout")
    with serve(
        folder, tag="layout", setup=SETUP, LUDO_TEST_CLOCK_EVERY="0.2", LUDO_BOT_DELAY="0.01"
    ) as (url, printed):
        keys = ["code", "status", "case", "ann", "appeal", "appeal_to", "arena", "swiss"]
        made = dict(zip(keys, printed.split()[-len(keys) :], strict=True))
        assert made["status"] == "Finished", printed
        yield url, made


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

    def __init__(
        self, browser: Browser, size: dict[str, int], state: dict[str, Any] | None = None
    ) -> None:
        self.context = browser.new_context(
            viewport=size,  # type: ignore[arg-type]
            reduced_motion="reduce",
            storage_state=state,  # type: ignore[arg-type]
        )
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

    def make(size: dict[str, int], state: dict[str, Any] | None = None) -> Person:
        made.append(Person(one_browser, size, state))
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


# What is drawn beyond the window's sides: any element reaching past them, unless the first box
# around it that clips (a wide table's .scroll-x) is itself inside the window; the skip link
# and screen-reader words aside.
WIDE = """(w) => {
  const wide = [];
  for (const e of document.querySelectorAll("body *")) {
    if (e.closest(".skip, .visually-hidden, .sr-only")) continue;
    const r = e.getBoundingClientRect();
    if (r.width < 1 || r.height < 1 || (r.left >= -1 && r.right <= w + 1)) continue;
    let box = e.parentElement;
    while (box && getComputedStyle(box).overflowX === "visible") box = box.parentElement;
    if (box && box !== document.documentElement && box !== document.body) {
      const b = box.getBoundingClientRect();
      if (b.left >= -1 && b.right <= w + 1) continue;
    }
    const name = e.tagName.toLowerCase() + (e.id ? "#" + e.id : "")
      + (typeof e.className === "string" && e.className.trim()
        ? "." + e.className.trim().split(/\\s+/).join(".") : "");
    wide.push(`${name} ${Math.round(r.left)}..${Math.round(r.right)}`);
  }
  return { scroll: document.documentElement.scrollWidth, wide: wide.slice(0, 6) };
}"""


def fits(page: Page) -> None:
    """Nothing on the page reaches past the window's sides, and the page does not scroll
    sideways."""
    width = (page.viewport_size or SIZES[0])["width"]
    found = page.evaluate(WIDE, width)
    assert found["scroll"] <= width, f"{page.url} scrolls sideways: {found}"
    assert not found["wide"], f"{page.url}: wider than {width} px: {found['wide']}"


def header_links_in_view(page: Page) -> None:
    """The site's header links, each inside the window (the menu opened where it folds), and
    no sideways scroll."""
    open_menu(page)
    in_view(page, "#site-nav > a, #site-nav button")
    fits(page)
    toggle = page.locator("#nav-toggle")
    if toggle.is_visible():
        toggle.click()
        expect(page.locator("#site-nav")).to_be_hidden()


@pytest.mark.parametrize("size", SIZES, ids=IDS)
def test_sign_up_header_and_terms(
    layout_site: tuple[str, dict[str, str]], person: Any, size: dict[str, int]
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
    layout_site: tuple[str, dict[str, str]], person: Any, size: dict[str, int]
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
    # The waiting room: the code to read out, its link and QR code, nothing wider than the window.
    header_links_in_view(ann)
    in_view(ann, "#room-code")
    shoot(ann, "layout-waiting")

    bob = person(SIZES[0]).page()
    bob.goto(site + "/")
    bob.fill("input[name=code]", code.lower())
    bob.click("form[action='/join/'] button")
    expect(ann.locator(".waiting")).to_be_hidden()
    watcher = person(size).page()
    watcher.goto(f"{site}/r/{code.replace('-', '')}/")
    expect(watcher.locator("body.spectator")).to_have_count(1)
    # The spectator's socket is in (its own state counts it) before anybody rolls: a roll
    # that came first could leave no later change to carry the count to the host.
    expect(watcher.locator("#watch-count")).to_contain_text("1")
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
    # The spectator, at the same size: the code, the status and the time left, no Roll.
    expect(watcher.locator("#time-left")).to_have_text(re.compile(r"^\d+:\d\d left$"))
    header_links_in_view(watcher)
    for selector in ("#bar-code", "#status", "#time-left"):
        in_view(watcher, selector)
    not_cut(watcher, "#bar-code")
    shoot(watcher, "layout-spectator")


@pytest.mark.parametrize("size", SIZES, ids=IDS)
def test_roll_and_four_legal_moves(
    layout_site: tuple[str, dict[str, str]], person: Any, size: dict[str, int]
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
    header_links_in_view(page)
    in_view(page, "#legal .move-choice")
    in_view(page, "#roll")
    in_view(page, "#status")


@pytest.mark.parametrize("size", SIZES, ids=IDS)
def test_replay_board_and_steps_first(
    layout_site: tuple[str, dict[str, str]], person: Any, size: dict[str, int]
) -> None:
    site, made = layout_site
    code = made["code"]
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


# Every page a person reaches, by who reaches it: (path, what must be in the window at once).
# The room and practice pages in play, the waiting room and a spectator's view are in the tests
# above; here a finished room, and a local game from its form.
PLAYER_PAGES = ["ann", "bob", "maria", "omar"]


def tour_pages(made: dict[str, str]) -> dict[str, list[tuple[str, list[str]]]]:
    code, case, ann = made["code"], made["case"], made["ann"]
    guides = [(f"/rules/{name}/", ["h1"]) for name in RULESETS]
    guides += [("/guides/duel-rules/", ["h1"]), ("/guides/duel-strategy/", ["h1"])]
    return {
        "": [
            ("/", ["h1", "form.play-now button[type=submit]"]),
            ("/rules/", ["h1", "#contents", "#basic-goal h3"]),
            *guides,
            ("/terms/", ["h1"]),
            ("/play/ranked/", ["h1"]),
            ("/play/quick/", ["h1"]),
            ("/leaderboards/", ["h1"]),
            ("/leaderboards/duel/", ["h1"]),
            ("/players/ann/", ["h1"]),
            ("/accounts/login/", ["h1", "main button[type=submit]"]),
            ("/accounts/signup/", ["h1"]),
            ("/accounts/password/reset/", ["h1"]),
            ("/tournaments/", ["h1"]),
            (f"/tournaments/{made['arena']}/", ["h1"]),
            (f"/tournaments/{made['swiss']}/", ["h1"]),
            (f"/tournaments/{made['swiss']}/verify/", ["h1"]),
            (f"/r/{code}/", ["#bar-code", "#result"]),
            (f"/r/{code}/replay/", ["h1", "#board", "#prev", "#next"]),
            ("/play/local/", ["h1"]),
        ],
        "bob": [
            ("/", ["h1"]),
            ("/accounts/", ["h1"]),
            ("/accounts/password/", ["h1"]),
            ("/players/bob/", ["h1"]),
            ("/play/ranked/", ["h1"]),
            ("/disputes/", ["h1"]),
            (f"/disputes/{case}/", ["h1"]),
            (f"/fairplay/report/ann/?match={code}", ["h1"]),
        ],
        "ann": [(f"/disputes/new/{code}/", ["h1"])],
        "maria": [
            ("/disputes/queue/", ["h1"]),
            (f"/disputes/{case}/review/", ["h1"]),
            (f"/disputes/players/{ann}/", ["h1"]),
            ("/fairplay/desk/", ["h1"]),
            ("/fairplay/desk/leads/", ["h1"]),
            (f"/fairplay/desk/players/{ann}/", ["h1"]),
        ],
        made["appeal_to"]: [(f"/fairplay/desk/appeals/{made['appeal']}/", ["h1"])],
    }


@pytest.fixture(scope="module")
def signed_in(
    one_browser: Browser, layout_site: tuple[str, dict[str, str]]
) -> dict[str, dict[str, Any]]:
    """Each account's signed-in session (cookies), made once for every size."""
    site, _ = layout_site
    states: dict[str, dict[str, Any]] = {}
    for name in PLAYER_PAGES:
        context = one_browser.new_context()
        page = context.new_page()
        page.goto(site + "/accounts/login/")
        page.fill("input[name=username]", name)
        page.fill("input[name=password]", "pw-for-tests-1")
        page.click("main button[type=submit]")
        expect(page.locator(".site-nav")).to_contain_text(name)
        states[name] = dict(context.storage_state())
        context.close()
    return states


@pytest.mark.parametrize("size", SIZES, ids=IDS)
def test_every_page_fits_with_its_header(
    layout_site: tuple[str, dict[str, str]],
    signed_in: dict[str, dict[str, Any]],
    person: Any,
    size: dict[str, int],
) -> None:
    """Every page a visitor, a player, a moderator reaches: its header links reachable (in the
    opened menu on a phone), nothing wider than the window, and what matters on it in view."""
    site, made = layout_site
    faults: list[str] = []  # every page's fault, not only the first page's
    for who, pages in tour_pages(made).items():
        page = person(size, signed_in.get(who)).page()
        for path, wanted in pages:
            found = visit(page, site + path, wanted, signed_in=bool(who))
            faults += [f"{who or 'a visitor'} at {path}: {fault}" for fault in found]
        if not who:
            # A Quick game on this device from its form: the room, Roll and the status in
            # view; the "Home" column says what Quick needs (one pawn home), not "of 4".
            page.goto(site + "/play/local/")
            page.select_option("select[name=ruleset]", "quick")
            page.click("main button[type=submit]")
            expect(page.locator("#roll")).to_be_enabled()
            home = page.locator("#where tbody tr td:last-child")
            expect(home.first).to_have_text("0 of 1 to win")
            header_links_in_view(page)
            for selector in ("#status", "#roll"):
                in_view(page, selector)
            shoot(page, "layout-local")
            # The rules: each preset folded; the contents open the one they jump to, and its
            # table starts with how it is won.
            page.goto(site + "/rules/")
            expect(page.locator("#quick-ex0")).to_be_hidden()
            page.locator("#contents a[href='#quick']").click()
            expect(page.locator("#quick-ex0")).to_be_visible()
            expect(page.locator("#quick .facts-table dt").first).to_have_text("The end")
            in_view(page, "#quick-title")
            # The page that is not there (its 404 logs a failed request: a page of its own).
            missing = page.context.new_page()
            response = missing.goto(site + "/no-such-page/")
            assert response is not None and response.status == 404
            header_links_in_view(missing)
            in_view(missing, "h1")
    assert not faults, "\n".join(faults)


# One look at a page, in one call (the tour visits some 130 pages): the header's links each
# inside the window (the menu opened where it folds, as a tap would), every element of `wanted`
# drawn whole inside it, and nothing reaching past the window's sides (WIDE).
LOOK = """([w, h, wanted]) => {
  const faults = [];
  const round = (r) => [r.left, r.top, r.width, r.height].map(Math.round);
  const where = (r) => { const [x, y, rw, rh] = round(r); return `${x},${y} ${rw}x${rh}`; };
  const check = (el, what) => {
    const r = el.getBoundingClientRect();
    const shown = r.width > 0 && r.height > 0 && getComputedStyle(el).visibility !== "hidden";
    if (!shown) faults.push(`${what} is not shown`);
    else if (r.left < -0.5 || r.top < -0.5 || r.right > w + 0.5 || r.bottom > h + 0.5)
      faults.push(`${what} at ${where(r)} is outside ${w}x${h}`);
  };
  const toggle = document.getElementById("nav-toggle");
  const folded = toggle && toggle.getBoundingClientRect().width > 0;
  if (folded) toggle.click();
  const links = document.querySelectorAll("#site-nav > a, #site-nav button");
  if (!links.length) faults.push("no header links");
  for (const a of links) check(a, `the header's "${a.textContent.trim()}"`);
  if (folded) toggle.click();
  for (const selector of wanted) {
    const found = document.querySelectorAll(selector);
    if (!found.length) faults.push(`no ${selector}`);
    found.forEach((el, i) => check(el, `${selector} #${i}`));
  }
  const wide = (WIDE)(w);
  if (wide.scroll > w) faults.push(`the page scrolls sideways (${wide.scroll} px)`);
  if (wide.wide.length) faults.push(`wider than the window: ${wide.wide.join(", ")}`);
  return faults;
}""".replace("WIDE", WIDE)


def visit(page: Page, url: str, wanted: list[str], *, signed_in: bool) -> list[str]:
    """What is wrong with the page at `url` (LOOK), as a person at this size sees it."""
    response = page.goto(url)
    if response is None or not response.ok:
        return [f"answered {response and response.status}"]
    if re.search(r"/r/\w+/$", url):  # a room: its state comes over the socket
        expect(page.locator("#status")).not_to_have_text("Connecting…")
    size = page.viewport_size or SIZES[0]
    faults: list[str] = page.evaluate(LOOK, [size["width"], size["height"], wanted])
    nav = page.locator("#site-nav").text_content() or ""
    if signed_in != ("Sign out" in nav):
        faults.append(f"the header says {nav.split()}")
    return faults
