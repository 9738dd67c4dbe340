"""Controls that stay under the thumb: on a phone (375x740, touch) nothing a player may tap
moves when something else appears. Roll, the die and the board keep their boxes through the
Hint's answer, a spectator's arrival, a reaction, a missed turn's notice and someone coming
back; a hint goes once the turn it was for has passed. In English, Arabic (right to left) and
Hindi; screenshots in artefacts/screenshots/.

The room's socket is played by the test (Playwright's routing, standing in for the server), so
each thing appears exactly when the test says; the Hint asks the real server."""

from __future__ import annotations

import json
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from .conftest import open_with_socket_played, practise, shoot

pytestmark = pytest.mark.browser
PHONE = {"width": 375, "height": 740}
TAPPED = {"roll": "#roll", "die": "#die-button", "board": "#board", "hint": "#hint"}


def _boxes(page: Page) -> dict[str, tuple[float, float, float, float]]:
    out = {}
    for name, selector in TAPPED.items():
        box = page.locator(selector).bounding_box()
        assert box, f"{selector} is not on the page"
        out[name] = (
            round(box["x"], 1),
            round(box["y"], 1),
            round(box["width"], 1),
            round(box["height"], 1),
        )
    return out


def _send(ws: Any, t: str, v: int, d: Any) -> None:
    ws.send(json.dumps({"t": t, "v": v, "d": d}))


@pytest.mark.parametrize("lang", ["en", "ar", "hi"])
def test_nothing_tapped_moves_when_something_appears(
    site: str, browser: Browser, lang: str
) -> None:
    ctx = browser.new_context(
        viewport=PHONE, has_touch=True, is_mobile=True, reduced_motion="reduce"
    )  # type: ignore[arg-type]
    ctx.set_default_timeout(15_000)
    ctx.add_cookies([{"name": "django_language", "value": lang, "url": site}])
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(f"page error: {e}"))
    practise(page, site, ruleset="classic", players="4")
    expect(page.locator("#roll")).to_be_visible()
    code = page.url.rstrip("/").split("/")[-1]
    sockets: list[Any] = []
    open_with_socket_played(page, site, code, lambda ws: sockets.append(ws))
    for _ in range(200):
        if sockets:
            break
        page.wait_for_timeout(50)
    assert sockets, "the room never opened its socket"
    ws = sockets[0]
    snap = page.request.get(f"{site}/api/matches/{code}").json()
    mine = next(s["corner"] for s in snap["seats"] if not s.get("bot"))
    bot = next(s["corner"] for s in snap["seats"] if s.get("bot"))
    base = {**snap, "status": "active", "legal": [], "placings": [], "watchers": 0}
    pawns = [[-1, -1, -1, -1] for _ in range(4)]
    v = snap["v"] + 1
    _send(ws, "state", v, {**base, "v": v, "pawns": pawns, "to_play": mine, "phase": "roll"})
    expect(page.locator("#roll")).to_be_enabled()
    # Sounds are counted where the room makes them (the Web Audio oscillators).
    page.evaluate(
        """() => { window.__tones = 0; const make = AudioContext.prototype.createOscillator;
           AudioContext.prototype.createOscillator = function () { window.__tones += 1;
             return make.call(this); }; }"""
    )
    before = _boxes(page)
    shoot(page, f"steady-{lang}-before")

    # The Hint's answer (the real server: no roll in hand yet, so it says so).
    page.locator("#hint").click()
    expect(page.locator("#hint-text")).to_be_visible()
    expect(page.locator("#hint-text")).not_to_have_text("")
    assert _boxes(page) == before, "the Hint's answer moved a control"
    shoot(page, f"steady-{lang}-hint")

    # A spectator arrives.
    v += 1
    _send(
        ws,
        "state",
        v,
        {**base, "v": v, "pawns": pawns, "to_play": mine, "phase": "roll", "watchers": 1},
    )
    expect(page.locator("#watching")).to_be_visible()
    expect(page.locator("#watching")).not_to_have_class("watching none")
    assert _boxes(page) == before, "a spectator's arrival moved a control"

    # A reaction, beside its sender on the board and in the list of players.
    _send(
        ws,
        "update",
        v,
        {
            "events": [{"kind": "reaction", "corner": bot, "r": "thumbs"}],
            "state": {
                **base,
                "v": v,
                "pawns": pawns,
                "to_play": mine,
                "phase": "roll",
                "watchers": 1,
            },
        },
    )
    expect(page.locator(".bubble.on-board")).to_have_count(1)
    assert _boxes(page) == before, "a reaction moved a control"

    # A missed turn: said over the board, just above the die, with a sound.
    tones = page.evaluate("() => window.__tones")
    v += 1
    events = [{"seq": v, "kind": "timeout", "corner": mine, "missed": 1}]
    _send(
        ws,
        "update",
        v,
        {
            "events": events,
            "state": {
                **base,
                "v": v,
                "pawns": pawns,
                "to_play": mine,
                "phase": "roll",
                "watchers": 1,
            },
        },
    )
    notice = page.locator("#flashes .missed-notice")
    expect(notice).to_be_visible()
    if lang == "en":
        expect(notice).to_contain_text("You missed your turn")
        expect(notice).to_contain_text("2 more missed turns and you are out of the match")
    else:
        expect(notice).not_to_contain_text("missed")
    assert page.evaluate("() => window.__tones") > tones, "the missed turn made no sound"
    assert _boxes(page) == before, "the missed turn's notice moved a control"
    # The notice stands over the board, above the die: where the player looks.
    board, die, said = (
        page.locator("#board").bounding_box(),
        page.locator("#die-button").bounding_box(),
        notice.bounding_box(),
    )
    assert board and die and said
    assert board["y"] <= said["y"] and said["y"] + said["height"] <= die["y"], (said, die)
    shoot(page, f"steady-{lang}-missed")

    # Someone back after a lost connection.
    v += 1
    events = [
        {"seq": v, "kind": "disconnected", "corner": bot},
        {"seq": v + 1, "kind": "connected", "corner": bot},
    ]
    v += 1
    _send(
        ws,
        "update",
        v,
        {
            "events": events,
            "state": {
                **base,
                "v": v,
                "pawns": pawns,
                "to_play": mine,
                "phase": "roll",
                "watchers": 1,
            },
        },
    )
    expect(page.locator("#flashes .back-notice")).to_be_visible()
    assert _boxes(page) == before, "someone coming back moved a control"

    # The turn passes: the hint is stale and goes.
    expect(page.locator("#hint-text")).to_be_visible()
    v += 1
    events = [{"seq": v, "kind": "turn_passed", "corner": mine, "to": bot}]
    _send(
        ws,
        "update",
        v,
        {
            "events": events,
            "state": {
                **base,
                "v": v,
                "pawns": pawns,
                "to_play": bot,
                "phase": "roll",
                "watchers": 1,
            },
        },
    )
    expect(page.locator("#hint-text")).to_be_hidden()
    after = _boxes(page)
    assert after == before, "the turn passing moved a control"

    # The history keeps the whole game, however long.
    lines = page.locator("#history li").count()
    said = [{"kind": "reaction", "corner": bot, "r": "thumbs"}] * 150
    _send(
        ws,
        "update",
        v,
        {
            "events": said,
            "state": {
                **base,
                "v": v,
                "pawns": pawns,
                "to_play": bot,
                "phase": "roll",
                "watchers": 1,
            },
        },
    )
    expect(page.locator("#history li")).to_have_count(lines + 150)
    assert _boxes(page) == before
    assert not errors, errors
    ctx.close()


def test_the_share_sheet_only_where_the_browser_has_one(site: str, browser: Browser) -> None:
    """Beside Copy link, "Share…" opens the phone's share sheet with the room's link; a
    browser without one shows no such button."""
    for shares in (False, True):
        ctx = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True)  # type: ignore[arg-type]
        if shares:
            ctx.add_init_script("navigator.share = async (data) => { window.__shared = data; };")
        page = ctx.new_page()
        page.goto(f"{site}/")
        friends = page.locator("form[action='/play/friends/']")
        friends.locator("select[name=ruleset]").select_option("classic")
        friends.locator("button[type=submit]").click()
        link = page.locator("#join-link")
        expect(link).to_be_visible()
        share = page.locator("#share-link")
        if not shares:
            expect(share).to_be_hidden()
        else:
            expect(share).to_be_visible()
            share.click()
            page.wait_for_function("() => window.__shared")
            sent = page.evaluate("() => window.__shared")
            assert sent["url"] == link.get_attribute("href"), sent
            shoot(page, "steady-share")
        ctx.close()


@pytest.mark.parametrize("size", [PHONE, {"width": 1280, "height": 800}], ids=["phone", "desktop"])
def test_the_rules_pictures_show_their_pawns(
    site: str, browser: Browser, size: dict[str, int]
) -> None:
    """ "Ludo in two minutes": each picture big enough to see a capture in it."""
    ctx = browser.new_context(viewport=size)  # type: ignore[arg-type]
    page = ctx.new_page()
    page.goto(f"{site}/rules/")
    picture = page.locator("#basic-capture svg.mini")
    expect(picture.locator(".pawn").first).to_be_attached()
    board = picture.bounding_box()
    assert board and board["width"] >= (280 if size is PHONE else 190), board
    pawns = [
        picture.locator(".pawn").nth(i).bounding_box()
        for i in range(picture.locator(".pawn").count())
    ]
    assert pawns and min(p["width"] for p in pawns if p) >= 9, pawns
    shoot(page.locator("#basic-capture").page, "rules-basics")
    page.locator("#basic-capture").scroll_into_view_if_needed()
    shoot(page, "rules-capture")
    ctx.close()
