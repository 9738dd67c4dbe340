"""The site in a real browser: friends in a room, practice to the end, a local game, a replay,
and a screenshot of each page at phone and desktop sizes (artefacts/screenshots/)."""

from __future__ import annotations

import re
import time
from typing import Any

import pytest
from playwright.sync_api import Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from .conftest import DESKTOP, PHONE, SHOTS, friends_room, practise, shoot

pytestmark = pytest.mark.browser


def _pick(page: Page, race: bool) -> dict[str, Any] | None:
    """The move a player picks among the lit pawns: home, a capture, else the pawn furthest
    along (`race`) or any pawn (so that pawns spread out and meet). Read from the page: the lit
    pawns and the rings the server sent."""
    return page.evaluate(
        """(race) => {
          const rings = [...document.querySelectorAll('#board .target')];
          const lit = [...document.querySelectorAll('#board .pawn.movable')];
          if (!lit.length) return null;
          const pref = (r) =>
            r.classList.contains('home') ? 2 : r.classList.contains('captures') ? 1 : 0;
          const best = rings.sort((a, b) => pref(b) - pref(a))[0];
          const ahead = (a, b) => Number(b.dataset.progress) - Number(a.dataset.progress);
          const far = race ? lit.sort(ahead)[0] : lit[Math.floor(Math.random() * lit.length)];
          const ring = best && pref(best) > 0 ? best : null;
          return { ring: ring ? Number(ring.dataset.move) : null,
                   pawn: Number(far.dataset.pawn), corner: Number(far.dataset.corner) };
        }""",
        race,
    )


def act(page: Page, how: str, race: bool = True) -> bool:
    """Take one action if it is this page's turn: roll, or move a lit pawn. `how` is "keys"
    (R and the number keys), "click" (the Roll button, pawns and rings) or "drag"."""
    if page.locator("#roll:not([disabled])").count():
        if how == "keys":
            page.keyboard.press("r" if time.monotonic() % 2 < 1 else " ")
        else:
            page.click("#roll")
        return True
    choice = _pick(page, race)
    if choice is None:
        return False
    if how == "keys":
        if choice["ring"] is not None:
            pawn = page.evaluate(
                "(i) => document.querySelector(`#legal li:nth-child(${i + 1}) button`)"
                "?.textContent.match(/Pawn (\\d)/)?.[1]",
                choice["ring"],
            )
            page.keyboard.press(str(pawn or choice["pawn"] + 1))
        else:
            page.keyboard.press(str(choice["pawn"] + 1))
    elif how == "drag":
        pawn = page.locator(
            f"#board .pawn[data-corner='{choice['corner']}'][data-pawn='{choice['pawn']}']"
        )
        ring = page.locator("#board .target").first
        try:
            # The move may have gone since the pick (a lone move plays itself): try again.
            a, b = pawn.bounding_box(timeout=2000), ring.bounding_box(timeout=2000)
        except PlaywrightTimeout:
            return False
        if not a or not b:
            return False
        page.mouse.move(a["x"] + a["width"] / 2, a["y"] + a["height"] / 2)
        page.mouse.down()
        page.mouse.move(b["x"] + b["width"] / 2, b["y"] + b["height"] / 2, steps=6)
        page.mouse.up()
    elif choice["ring"] is not None:
        try:
            page.locator(f"#board .target[data-move='{choice['ring']}']").click(timeout=2000)
        except PlaywrightTimeout:  # played by itself meanwhile
            return False
    else:
        pawn_id = f"{choice['corner']}.{choice['pawn']}"
        pawn = page.locator(
            f"#board .pawn[data-corner='{choice['corner']}'][data-pawn='{choice['pawn']}']"
        )
        # A ring drawn over the pawn (another pawn's landing square) takes the click, as it
        # would for a person: then click this pawn's own ring.
        covered = pawn.evaluate(
            "(el) => { const r = el.getBoundingClientRect();"
            " const hit = document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2);"
            " return !el.contains(hit); }"
        )
        try:
            if covered:
                page.locator(f"#board .target[data-pawns~='{pawn_id}']").click(timeout=2000)
            else:
                pawn.click(timeout=2000)
        except PlaywrightTimeout:  # played by itself meanwhile
            return False
    return True


def play_until(pages: list[tuple[Page, Any]], done: Any, seconds: float, race: bool = True) -> None:
    """Play on the pages until `done()`, each page its own way (`act`'s `how`, or a function
    that gives the next one). What fails is a game that stops: no new line in the first page's
    history for `seconds` (how long the whole game takes depends on the dice and on how busy
    the machine is; a game always ends, and then its history stops too)."""
    first = pages[0][0]
    seen, still_since = history(first), time.monotonic()
    while not done():
        now = history(first)
        if now != seen:
            seen, still_since = now, time.monotonic()
        if time.monotonic() - still_since >= seconds:
            first.screenshot(path=str(SHOTS / "stuck.png"))
            raise AssertionError(
                f"no new move for {seconds} s: {first.locator('#turn').inner_text()!r}, "
                f"{first.locator('#status').inner_text()!r}, {now[:400]!r}"
            )
        acted = False
        for page, how in pages:
            if act(page, how() if callable(how) else how, race):
                acted = True
                # Wait for the server's answer: the controls change when it arrives.
                page.wait_for_timeout(60)
        if not acted:
            first.wait_for_timeout(40)


def history(page: Page) -> str:
    return page.locator("#history").inner_text()


def test_pages_at_phone_and_desktop_sizes(site: str, people: Any) -> None:
    for viewport in (PHONE, DESKTOP):
        page = people(viewport).page()
        for path, name, heading in [
            ("/", "home", "Play Ludo online"),
            ("/rules/", "rules", "The rules"),
            ("/play/local/", "local-setup", "A game on this device"),
            ("/accounts/signup/", "signup", "Sign up"),
            ("/accounts/login/", "login", "Sign in"),
        ]:
            page.goto(site + path)
            expect(page.locator("h1")).to_have_text(heading)
            if name == "rules":
                expect(page.locator("svg.mini .pawn").first).to_be_visible()
            shoot(page, name)
            width = page.evaluate("document.documentElement.scrollWidth")
            assert width <= viewport["width"], f"{path} scrolls sideways at {viewport['width']} px"
        page.goto(site + "/rules/#family")
        shoot(page, "rules-family")


def test_friends_room_by_code_click_keyboard_and_drag_until_a_capture(
    site: str, people: Any
) -> None:
    ann, bob, _ = friends_room(people, site, site, shot="room-waiting")

    # Ann plays with the mouse (clicks, and drags now and then), Bob with the keyboard.
    hows = iter(["drag", "click", "click"] * 1000)

    def either_captured() -> bool:
        return "captures" in history(ann) or "captures" in history(bob)

    def ann_how() -> str:
        return next(hows)

    def over() -> bool:
        return "The match is over" in history(ann)

    # Until a capture; a game can also end without one (both players' pawns kept apart all
    # game: rare): its moves and its end were still played by clicks, drags and keys. Pawns
    # are picked at random (not the one furthest along), so that they spread out and meet.
    play_until([(ann, ann_how), (bob, "keys")], lambda: either_captured() or over(), 30, False)
    shoot(ann, "room-playing")
    shoot(bob, "room-playing")
    assert "rolls" in history(ann) and "rolls" in history(bob)
    expect(ann.locator("#where tbody tr")).to_have_count(2)


def test_practice_against_a_bot_to_the_end(site: str, people: Any) -> None:
    page = people(DESKTOP).page()
    practise(page, site, ruleset="duel")
    expect(page.locator("#seats .bot-tag")).to_have_text("BOT")
    play_until([(page, "keys")], lambda: "over" in page.locator("#turn").inner_text(), 30)
    shoot(page, "practice-over")
    expect(page.locator("#replay-link")).to_be_visible()
    assert re.search(r"wins", history(page))
    # No dead Roll button once it is over: the replay and a new game are offered instead.
    expect(page.locator("#roll")).to_be_hidden()
    page.reload()  # the history is still there, and no moves are offered
    expect(page.locator("#history")).to_contain_text("wins")
    expect(page.locator("#legal")).to_contain_text("the match is over")
    # Against bots only: a rematch, but no dispute to open.
    expect(page.locator("#result #rematch")).to_be_visible()
    expect(page.locator("#result #end-report")).to_have_count(0)
    expect(page.locator(".dispute-box")).to_have_count(0)
    page.locator("#result").get_by_text("Watch the replay").click()
    expect(page).to_have_url(re.compile(r"/replay/$"))


# Sockets that stay "connecting" until the test calls releaseSockets(): what a slow network
# looks like to the page (events that arrive meanwhile are delivered, in order, after).
SLOW_SOCKETS = """
(() => {
  const Real = window.WebSocket;
  const held = [];
  let hold = true;
  window.releaseSockets = () => { hold = false; for (const f of held.splice(0)) f(); };
  window.WebSocket = class extends Real {
    get readyState() { return hold ? Real.CONNECTING : super.readyState; }
    addEventListener(type, fn, options) {
      if (type !== "open" && type !== "message") return super.addEventListener(type, fn, options);
      return super.addEventListener(type, (e) => (hold ? held.push(() => fn(e)) : fn(e)), options);
    }
  };
})();
"""


def test_a_button_pressed_before_the_socket_opens_is_not_lost(site: str, people: Any) -> None:
    page = people(PHONE).page()
    page.add_init_script(SLOW_SOCKETS)
    practise(page, site, players="2")
    expect(page.locator("#resign")).to_be_visible()
    page.once("dialog", lambda d: d.accept())
    page.click("#resign")
    expect(page.locator("#status")).to_contain_text("Connecting")
    expect(page.locator("#replay-link")).to_be_hidden()
    page.evaluate("releaseSockets()")
    expect(page.locator("#replay-link")).to_be_visible()
    # One line for the resignation (the service's "leave"; the engine's "resigned" repeats it).
    assert "left the match (resigned)" in history(page), history(page)
    assert "is out (" not in history(page), history(page)


def test_local_game_two_people_on_one_device(site: str, people: Any) -> None:
    page = people(PHONE).page()
    page.goto(site + "/play/local/")
    page.select_option("select[name=ruleset]", "family")
    page.select_option("select[name=players]", "2")
    page.select_option("select[name=seat0]", "person")
    page.select_option("select[name=seat2]", "person")
    page.click("button[type=submit]")
    expect(page.locator("#seats .seat")).to_have_count(2)
    play_until(
        [(page, "click")],
        lambda: "Red rolls" in history(page) and "Yellow rolls" in history(page),
        30,
    )
    # The same page rolled for both people, and nobody is a bot.
    expect(page.locator("#seats .bot-tag")).to_have_count(0)
    shoot(page, "local-game")


def test_replay_steps_through_a_finished_match(site: str, people: Any) -> None:
    page = people(DESKTOP).page()
    practise(page, site, players="2")
    expect(page.locator("#roll")).to_be_enabled()
    play_until([(page, "keys")], lambda: history(page).count("rolls") >= 6, 20)
    page.once("dialog", lambda d: d.accept())
    page.click("#resign")
    expect(page.locator("#replay-link")).to_be_visible()
    page.click("#replay-link a")
    expect(page.locator("#proof-result")).to_contain_text("rolls match the seed")
    expect(page.locator("#where-am-i")).to_contain_text("Step 0 of")
    page.click("#next")
    page.click("#next")
    expect(page.locator("#where-am-i")).to_contain_text("Step 2 of")
    page.click("#prev")
    expect(page.locator("#where-am-i")).to_contain_text("Step 1 of")
    page.fill("#slider", "3")
    expect(page.locator("#where-am-i")).to_contain_text("Step 3 of")
    page.fill("#jump", "2")
    page.press("#jump", "Enter")
    expect(page.locator("#where-am-i")).to_contain_text("turn 2")
    page.click("#last")
    expect(page.locator("#step-events")).to_contain_text("is out")
    shoot(page, "replay")
    phone = people(PHONE).page()
    phone.goto(page.url)
    expect(phone.locator("#proof-result")).to_contain_text("rolls match the seed")
    shoot(phone, "replay")
