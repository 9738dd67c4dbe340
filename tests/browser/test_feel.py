"""A room that feels alive, in a real browser: the corner to act lit with its die and clock,
pawns that walk square by square and captures that fly home, remembered mute, the result
panel and its buttons, the disconnect countdown, reactions, spectators, the phone layout and
the 404 page. Screenshots at 375x740 and 1280x800 in artefacts/screenshots/.

Positions that dice would take long to reach (a walk, a capture) are played by the test over
Playwright's WebSocket routing, standing in for the server; everything else runs against the
real server."""

from __future__ import annotations

import json
import re
from typing import Any
from urllib.parse import urljoin

import pytest
from playwright.sync_api import Browser, Page, expect

from .conftest import DESKTOP, open_with_socket_played, practise, shoot

pytestmark = pytest.mark.browser
PHONE = {"width": 375, "height": 740}


def _context(browser: Browser, viewport: dict[str, int], motion: str = "no-preference") -> Any:
    ctx = browser.new_context(viewport=viewport, reduced_motion=motion)  # type: ignore[arg-type]
    ctx.set_default_timeout(15_000)
    return ctx


def _errors(page: Page) -> list[str]:
    found: list[str] = []
    page.on("pageerror", lambda e: found.append(f"page error: {e}"))
    page.on("console", lambda m: found.append(m.text) if m.type == "error" else None)
    return found


def _scripted_room(page: Page, site: str) -> tuple[dict[str, Any], list[Any], list[dict]]:
    """A practice room whose socket the test plays: (the room's snapshot, sockets, sent)."""
    practise(page, site, ruleset="classic", players="2")
    expect(page.locator("#roll")).to_be_visible()
    code = page.url.rstrip("/").split("/")[-1]
    sockets: list[Any] = []
    sent: list[dict] = []

    def server(ws: Any) -> None:
        sockets.append(ws)
        ws.on_message(lambda m: sent.append(json.loads(m)))

    open_with_socket_played(page, site, code, server)
    page.wait_for_function("() => true")
    for _ in range(100):
        if sockets:
            break
        page.wait_for_timeout(50)
    assert sockets, "the room never opened its socket"
    # Read after the page loaded: the bot may have played meanwhile, and a scripted frame must
    # be newer than the snapshot the page came with, or the page drops it as stale.
    snap = page.request.get(f"{site}/api/matches/{code}").json()
    return snap, sockets, sent


def _send(ws: Any, t: str, v: int, d: Any) -> None:
    ws.send(json.dumps({"t": t, "v": v, "d": d}))


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_turn_walk_capture_and_mute(site: str, browser: Browser, viewport: dict[str, int]) -> None:
    ctx = _context(browser, viewport)
    page = ctx.new_page()
    errors = _errors(page)
    snap, sockets, _sent = _scripted_room(page, site)
    ws = sockets[0]
    red, green = 0, 2
    v = snap["v"] + 1
    seats = snap["seats"]
    pawns = [[5, -1, -1, -1], [], [3, -1, -1, -1], []]  # yellow's 3 is square 29
    base = {**snap, "status": "active", "seats": seats, "legal": [], "placings": []}
    # Red to roll: red's corner is lit, its die beside its yard, the title says so.
    _send(ws, "state", v, {**base, "v": v, "pawns": pawns, "to_play": red, "phase": "roll"})
    expect(page.locator("#board .yard.active")).to_have_attribute("data-corner", str(red))
    expect(page.locator("#board .turn-die")).to_have_attribute("data-corner", str(red))
    expect(page).to_have_title(re.compile(r"^● Your turn"))
    expect(page.locator("#roll")).to_be_enabled()
    # Green to play: the light and the die go over; the title is the room's again.
    v += 1
    _send(ws, "state", v, {**base, "v": v, "pawns": pawns, "to_play": green, "phase": "roll"})
    expect(page.locator("#board .yard.active")).to_have_attribute("data-corner", str(green))
    expect(page.locator("#board .turn-die")).to_have_attribute("data-corner", str(green))
    expect(page).not_to_have_title(re.compile("Your turn"))
    # Green's pawn walks from progress 3 to 8: it passes squares 4..7 on the way. The page's
    # animations are kept so the walk can be stepped through afterwards, frame rate aside.
    page.evaluate(
        """() => { window.__anims = []; const animate = Element.prototype.animate;
           Element.prototype.animate = function (...args) {
             const anim = animate.apply(this, args); window.__anims.push([this, anim]);
             return anim; }; }"""
    )
    v += 1
    moved = [[5, -1, -1, -1], [], [8, -1, -1, -1], []]
    events = [
        {"seq": v - 1, "kind": "rolled", "corner": green, "face": 5},
        {"seq": v, "kind": "moved", "corner": green, "pawn": 0, "square": 34},
    ]
    _send(
        ws,
        "update",
        v,
        {
            "events": events,
            "state": {
                **base,
                "v": v,
                "pawns": moved,
                "to_play": red,
                "phase": "roll",
                "face": 5,
                "die": 5,
            },
        },
    )
    pawn = page.locator('#board .pawn[data-corner="2"][data-pawn="0"]')
    expect(pawn).to_have_attribute("data-walk", "4 5 6 7 8")
    # The walk, stepped through at 90 even points of its time (paused, seeked, measured).
    path = page.evaluate(
        """() => { const node = document.querySelector(
             '#board .pawn[data-corner="2"][data-pawn="0"]');
           const found = window.__anims.find(([n]) => n === node); if (!found) return [];
           const anim = found[1]; anim.pause();
           const total = anim.effect.getComputedTiming().duration; const out = [];
           for (let i = 0; i <= 90; i += 1) { anim.currentTime = total * i / 90;
             const b = node.getBoundingClientRect(); out.push([b.x, b.y]); }
           anim.finish(); return out; }"""
    )
    assert path, "the pawn's move was not animated"
    # The pawn stood still on each square it passed: its screen points include the centres
    # of squares 30..33 (green's progress 4..7), not just the start and the end.
    centres = page.evaluate(
        """() => { const svg = document.getElementById('board');
           const ctm = svg.getScreenCTM(); const out = [];
           for (const node of document.querySelectorAll('#board .square')) {
             const x = Number(node.getAttribute('x')) + .5, y = Number(node.getAttribute('y')) + .5;
             out.push([x * ctm.a + ctm.e, y * ctm.d + ctm.f]); }
           return out; }"""
    )
    assert len(centres) >= 52
    box = pawn.bounding_box()
    assert box
    near = {
        i
        for i, (cx, cy) in enumerate(centres[:52])
        for (x, y) in path
        if abs(x + box["width"] / 2 - cx) < 6 and abs(y + box["height"] / 2 - cy) < 14
    }
    assert {30, 31, 32, 33} <= near, sorted(near)
    expect(page.locator("#die")).to_have_attribute("data-face", "5")
    shoot(page, "feel-walk")
    # Red captures green's pawn on square 34: it is carried back to green's yard.
    v += 3
    captured = [[34 - 0, -1, -1, -1], [], [-1, -1, -1, -1], []]
    events = [
        {"seq": v - 2, "kind": "rolled", "corner": red, "face": 6},
        {"seq": v - 1, "kind": "moved", "corner": red, "pawn": 0, "square": 34},
        {"seq": v, "kind": "captured", "corner": green, "pawn": 0, "by": red},
    ]
    # Red from 28 to 34 would be more than a die: the test sets red on 28 first.
    _send(
        ws,
        "state",
        v - 3,
        {
            **base,
            "v": v - 3,
            "pawns": [[28, -1, -1, -1], [], [8, -1, -1, -1], []],
            "to_play": red,
            "phase": "roll",
        },
    )
    _send(
        ws,
        "update",
        v,
        {
            "events": events,
            "state": {
                **base,
                "v": v,
                "pawns": captured,
                "to_play": green,
                "phase": "roll",
                "face": 6,
                "die": 6,
            },
        },
    )
    expect(pawn).to_have_attribute("data-walk", "yard")
    expect(page.locator('#board .pawn[data-corner="0"][data-pawn="0"]')).to_have_attribute(
        "data-walk", "29 30 31 32 33 34"
    )
    page.wait_for_timeout(600)  # mid-flight: the capturer landed, the victim flies
    shoot(page, "feel-capture")
    expect(page.locator("#history")).to_contain_text("captures Yellow's pawn 1")
    # Mute is remembered by the browser.
    expect(page.locator("#sound")).to_have_attribute("aria-pressed", "true")
    page.click("#sound")
    expect(page.locator("#sound")).to_have_attribute("aria-pressed", "false")
    page.reload()
    expect(page.locator("#sound")).to_have_attribute("aria-pressed", "false")
    page.click("#sound")
    page.reload()
    expect(page.locator("#sound")).to_have_attribute("aria-pressed", "true")
    ctx.close()
    assert not [e for e in errors if "WebSocket" not in e], errors


def _sign_up(page: Page, site: str, name: str) -> None:
    page.goto(site + "/accounts/signup/")
    page.fill("input[name=username]", name)
    page.fill("input[name=password1]", "a-long-pass-42")
    page.fill("input[name=password2]", "a-long-pass-42")
    page.check("input[name=terms]")
    page.click("button[type=submit]")
    expect(page.locator(".signed-in")).to_contain_text(name)


def test_people_in_a_friend_room_spectators_reactions_countdown_result(
    site: str, browser: Browser
) -> None:
    contexts = [_context(browser, DESKTOP), _context(browser, PHONE), _context(browser, PHONE)]
    contexts.append(_context(browser, DESKTOP))
    ann, bob, carl, dora = (c.new_page() for c in contexts)
    errors = [e for p in (ann, bob, carl, dora) for e in [_errors(p)]]
    ann.on("dialog", lambda d: d.accept())
    _sign_up(ann, site, "annfeel")
    friends = ann.locator("form[action='/play/friends/']")
    friends.locator("select[name=ruleset]").select_option("classic")
    friends.locator("select[name=players]").select_option("2")
    friends.locator("button[type=submit]").click()
    code = ann.locator("#room-code").inner_text()
    room = ann.url
    bob.goto(site + "/")
    bob.fill("input[name=code]", code)
    bob.click("form[action='/join/'] button")  # the room page seats him at once
    expect(ann.locator(".waiting")).to_be_hidden()
    expect(ann.locator("#mode-badge")).to_have_text("Friend room")
    expect(ann.locator("#board .yard.active")).to_have_count(1)
    first = ann.locator("#board .yard.active").get_attribute("data-corner")
    roller = ann if first == "0" else bob  # who starts is drawn with the dice
    expect(bob.locator("#board .yard.active")).to_have_attribute("data-corner", first or "")
    expect(roller).to_have_title(re.compile(r"^● Your turn"))

    # A spectator: "Watching" and the count, no Roll, the die shows the last roll.
    carl.goto(room)
    expect(carl.locator("#watching")).to_contain_text("Watching · 1 spectator")
    expect(carl.locator("#roll")).to_be_hidden()
    expect(carl.locator("#resign")).to_be_hidden()
    expect(carl.locator("#reactions")).to_have_count(0)
    roller.click("#roll")
    expect(carl.locator("#history")).to_contain_text("rolls")
    # The players' count comes with the next change.
    expect(ann.locator("#watch-count")).to_have_text("1 watching")
    face = carl.locator("#history li").filter(has_text="rolls").first.inner_text()
    rolled = re.search(r"rolls (\d)", face)
    assert rolled
    expect(carl.locator("#die")).to_have_attribute("data-face", rolled.group(1))
    carl.reload()
    expect(carl.locator("#die")).to_have_attribute("data-face", rolled.group(1))
    shoot(carl, "feel-spectator")
    dora.goto(room)
    expect(dora.locator("#watch-count")).to_contain_text("2 spectators")
    shoot(dora, "feel-spectator")
    shoot(ann, "feel-mid-game")
    shoot(bob, "feel-mid-game")

    # A reaction reaches the other player, beside the sender.
    bob.locator("#reactions summary").click()
    bob.locator("#reactions .react[data-r=thumbs]").click()
    # Drawn by the site (static/reactions.svg), named in words: no emoji font needed.
    said = ann.locator("#seats .seat[data-corner='2'] .bubble")
    expect(said).to_have_attribute("aria-label", "Thumbs up")
    expect(said.locator("use")).to_have_attribute("href", re.compile(r"reactions.*\.svg#r-thumbs$"))
    expect(ann.locator("#history")).to_contain_text(": Thumbs up")
    expect(ann.locator("#history .history-react use")).to_have_count(1)
    sprite = said.locator("use").get_attribute("href") or ""
    served = ann.request.get(urljoin(ann.url, sprite.split("#")[0]))
    assert served.ok and 'id="r-thumbs"' in served.text()
    # Hidden reactions stay hidden for this viewer.
    carl.check("#mute-reactions")
    bob.wait_for_timeout(2100)
    bob.locator("#reactions summary").click()
    bob.locator("#reactions .react[data-r=gg]").click()
    expect(ann.locator("#seats .seat[data-corner='2'] .bubble")).to_have_text("Good game!")
    expect(carl.locator("#history")).to_contain_text("Good game!")
    expect(carl.locator(".bubble")).to_have_count(0)

    # Bob's connection goes: Ann sees the grace counting down, then that he is back.
    bob.close()
    notice = ann.locator("#notices .away-notice")
    expect(notice).to_contain_text(
        re.compile(r"lost the connection: \d+ s to come back before they forfeit")
    )
    first = int(re.search(r"(\d+) s", notice.inner_text()).group(1))  # type: ignore[union-attr]
    ann.wait_for_timeout(2200)
    later = int(re.search(r"(\d+) s", notice.inner_text()).group(1))  # type: ignore[union-attr]
    assert later < first, (first, later)
    bob = contexts[1].new_page()
    errors.append(_errors(bob))
    bob.goto(room)
    expect(ann.locator("#notices .away-notice")).to_have_count(0)
    expect(ann.locator(".back-notice")).to_contain_text("is back")

    # Ann resigns: the result panel, with the places and the ways on.
    ann.locator("#resign").click()
    for page, title in ((bob, "You win!"), (ann, "wins!")):
        page.evaluate("window.scrollTo(0, 0)")
        result = page.locator("#result")
        expect(result).to_be_visible()
        expect(page.locator("#result-title")).to_contain_text(title)
        expect(page.locator("#places li")).to_have_count(2)
        expect(result.locator("#rematch")).to_be_visible()
        expect(result.locator("#watch-replay")).to_be_visible()
        report = result.locator("#end-report")
        expect(report).to_be_visible()
        box = report.bounding_box()
        size = page.viewport_size
        assert box and size and box["y"] + box["height"] <= size["height"], (
            "Report a problem below the fold"
        )
    expect(
        ann.locator("#history li")
        .filter(has_text="out of the match")
        .or_(ann.locator("#history li").filter(has_text="left the match"))
    ).to_have_count(1)
    shoot(ann, "feel-result")
    shoot(bob, "feel-result")
    carl.goto(carl.url)
    expect(carl.locator("#result")).to_be_visible()
    expect(carl.locator("#rematch")).to_have_count(0)

    # The replay lists the reactions where they were made.
    bob.locator("#watch-replay").click()
    expect(bob.locator("#all-steps")).to_contain_text("reacts: Thumbs up")
    # Rematch: Ann opens it; Bob, back in the old room, is offered to join it.
    bob.goto(room)
    ann.locator("#rematch").click()
    expect(ann.locator("#waiting-title")).to_be_visible()
    expect(bob.locator("#rematch")).to_have_text("Join the rematch")
    bob.locator("#rematch").click()
    expect(bob.locator("#board .yard.active")).to_have_count(1)
    assert bob.url != room and ann.url == bob.url
    for c in contexts:
        c.close()
    found = [e for group in errors for e in group]
    assert not found, found


def _move(pawn: int, frm: int, to: int, corner: int = 0, **more: Any) -> dict[str, Any]:
    return {
        "pawn": pawn,
        "corner": corner,
        "from": frm,
        "to": to,
        "square": to,
        "captures": [],
        "safe": to == 0,
        "home": False,
        "bonus": None,
        **more,
    }


def test_phone_layout_small_things_and_focus(site: str, browser: Browser) -> None:
    ctx = browser.new_context(
        viewport=PHONE, has_touch=True, is_mobile=True, reduced_motion="reduce"
    )  # type: ignore[arg-type]
    ctx.set_default_timeout(15_000)
    page = ctx.new_page()
    errors = _errors(page)
    snap, sockets, sent = _scripted_room(page, site)
    ws = sockets[0]
    v = snap["v"] + 1
    base = {**snap, "status": "active", "legal": [], "placings": []}
    # A six with every pawn in the yard but one: the four identical moves out are one line.
    pawns = [[-1, -1, -1, 7], [], [-1, -1, -1, -1], []]
    legal = [_move(p, -1, 0) for p in range(3)] + [_move(3, 7, 13)]
    _send(
        ws,
        "state",
        v,
        {
            **base,
            "v": v,
            "pawns": pawns,
            "to_play": 0,
            "phase": "move",
            "die": 6,
            "face": 6,
            "legal": legal,
        },
    )
    choices = page.locator("#legal .move-choice")
    expect(choices).to_have_count(2)
    expect(choices.first).to_have_text(
        "A pawn (1, 2 or 3) out of the yard onto its start square: lands on a safe square"
    )
    expect(page.locator("#legal")).not_to_contain_text("square 0")
    shoot(page, "feel-phone-moves")
    # Everything to play with is on the first screen, and big enough for a thumb.
    height = PHONE["height"]
    for target in (choices.first, choices.last, page.locator("#die-button")):
        box = target.bounding_box()
        assert box and box["y"] + box["height"] <= height, f"below the fold: {box}"
        assert box["height"] >= 40, box
    header = page.locator(".site-header").bounding_box()
    assert header and header["height"] <= 60, header
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    for target in ("#sound", "#reactions summary"):
        if page.locator(target).count():
            box = page.locator(target).bounding_box()
            assert box and box["height"] >= 40 and box["width"] >= 40, (target, box)
    # The Roll button: no keyboard hint on a touch screen, on the first screen when it counts.
    v += 1
    _send(ws, "state", v, {**base, "v": v, "pawns": pawns, "to_play": 0, "phase": "roll"})
    roll = page.locator("#roll")
    expect(roll).to_be_enabled()
    expect(roll.locator("kbd")).to_be_hidden()
    box = roll.bounding_box()
    assert box and box["y"] + box["height"] <= height and box["height"] >= 40, box
    # The status says it once on a phone.
    assert page.locator("#turn").is_hidden() and page.locator("#status").is_visible()
    shoot(page, "feel-phone-roll")
    # A bot's turn is said without a doubled bracket.
    v += 1
    _send(ws, "state", v, {**base, "v": v, "pawns": pawns, "to_play": 2, "phase": "roll"})
    expect(page.locator("#status")).to_have_text(
        re.compile(r"^Yellow \(Kai, \w+ bot\) is playing\.$")
    )
    # Undone moves stay in the history, struck through.
    v += 3
    events = [
        {"seq": v - 2, "kind": "rolled", "corner": 2, "face": 3},
        {"seq": v - 1, "kind": "turn_passed", "corner": 2, "to": 0},
        {"seq": v, "kind": "undone", "corner": 2, "from": v - 2, "to": v - 1, "turn": 2},
    ]
    _send(
        ws,
        "update",
        v,
        {
            "events": events,
            "state": {**base, "v": v, "pawns": pawns, "to_play": 2, "phase": "roll"},
        },
    )
    expect(page.locator("#history li.undone del")).to_have_count(2)
    expect(page.locator("#history li.undone").first).to_contain_text("to play")
    ctx.close()
    assert not [e for e in errors if "WebSocket" not in e], errors


def test_focus_stays_on_roll_after_a_keyboard_roll(site: str, browser: Browser) -> None:
    ctx = _context(browser, DESKTOP, "reduce")
    page = ctx.new_page()
    snap, sockets, sent = _scripted_room(page, site)
    ws = sockets[0]
    v = snap["v"] + 1
    base = {**snap, "status": "active", "legal": [], "placings": []}
    pawns = [[-1, -1, -1, -1], [], [-1, -1, -1, -1], []]
    _send(ws, "state", v, {**base, "v": v, "pawns": pawns, "to_play": 0, "phase": "roll"})
    expect(page.locator("#roll")).to_be_enabled()
    page.locator("#roll").focus()
    page.keyboard.press("Enter")
    for _ in range(40):
        if any(f.get("t") == "roll" for f in sent):
            break
        page.wait_for_timeout(50)
    assert any(f.get("t") == "roll" for f in sent), sent
    v += 3
    events = [
        {"seq": v - 2, "kind": "rolled", "corner": 0, "face": 2},
        {"seq": v - 1, "kind": "no_move", "corner": 0, "reason": "no pawn is out"},
        {"seq": v, "kind": "turn_passed", "corner": 0, "to": 2},
    ]
    _send(
        ws,
        "update",
        v,
        {
            "events": events,
            "state": {**base, "v": v, "pawns": pawns, "to_play": 2, "phase": "roll"},
        },
    )
    expect(page.locator("#roll")).to_be_disabled()
    v += 1
    _send(ws, "state", v, {**base, "v": v, "pawns": pawns, "to_play": 0, "phase": "roll"})
    expect(page.locator("#roll")).to_be_enabled()
    expect(page.locator("#roll")).to_be_focused()
    # The last roll stays on the die after the turn passed.
    expect(page.locator("#die")).to_have_attribute("data-face", "2")
    ctx.close()


def test_a_wrong_room_code_is_answered_on_the_form(site: str, browser: Browser) -> None:
    ctx = _context(browser, PHONE)
    page = ctx.new_page()
    page.goto(site + "/")
    page.fill("input[name=code]", "ZZZ-999")
    page.click("form[action='/join/'] button")
    error = page.locator("#join-error")
    expect(error).to_contain_text("There is no room with the code ZZZ-999")
    expect(page.locator("input[name=code]")).to_have_value("ZZZ-999")
    box = page.locator("input[name=code]").bounding_box()
    assert box and box["height"] >= 40
    shoot(page, "feel-wrong-code")
    page.goto(site + "/accounts/signup/")
    for field in page.locator("input[type=email]").all():
        box = field.bounding_box()
        assert box and box["height"] >= 40, box
    ctx.close()


def test_replay_autoplay_turn_box_and_rules_contents(site: str, browser: Browser) -> None:
    ctx = _context(browser, DESKTOP, "reduce")
    page = ctx.new_page()
    practise(page, site, ruleset="duel")
    expect(page.locator("#roll")).to_be_enabled()
    page.click("#roll")
    expect(page.locator("#history")).to_contain_text("rolls")
    page.on("dialog", lambda d: d.accept())
    page.locator("#resign").click()
    expect(page.locator("#result")).to_be_visible()
    page.locator("#watch-replay").click()
    expect(page.locator("#where-am-i")).to_contain_text("Step 0 of")
    expect(page.locator("#jump")).to_have_value("1")
    page.click("#last")
    last = page.locator("#where-am-i").inner_text()
    turn = re.search(r"turn (\d+)", last)
    assert turn
    expect(page.locator("#jump")).to_have_value(turn.group(1))  # the box follows the step
    page.click("#first")
    page.click("#play")
    expect(page.locator("#play")).to_have_attribute("aria-pressed", "true")
    expect(page.locator("#where-am-i")).to_contain_text("Step 1 of", timeout=4000)
    page.click("#play")
    expect(page.locator("#play")).to_have_attribute("aria-pressed", "false")
    first = page.locator("#proof-rolls tbody tr td").first
    expect(first).to_have_text("1")  # rolls are counted from 1
    page.goto(site + "/rules/")
    contents = page.locator("#contents")
    expect(contents).to_be_visible()
    expect(contents.locator("a[href='#mensch']")).to_be_visible()
    # The presets are folded: the contents' link opens the one it jumps to.
    expect(page.locator("#mensch-ex0")).to_be_hidden()
    contents.locator("a[href='#mensch']").click()
    expect(page).to_have_url(re.compile(r"#mensch$"))
    expect(page.locator("#mensch-ex0")).to_be_visible()
    ctx.close()
