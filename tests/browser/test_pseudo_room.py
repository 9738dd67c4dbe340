"""A live room in the pseudo-locale (issue 29): a guest practises against the computer on a
server that speaks ``xx`` (tests/i18n/pseudo.py: every marked string, Python's and the
scripts', in fullwidth letters), rolls and moves for a few turns and meets a refusal; at each
step no plain English word is left in what the room shows: the seats, the board's status and
its time left, the buttons, the legal moves, the history, the toast."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Page, WebSocketRoute, expect

from games.match.selectors import BOT_NAMES
from tests.i18n.pseudo import english_words, pseudo

from .conftest import DESKTOP, PHONE, embedded, open_friends_room, practise
from .test_site import act

pytestmark = pytest.mark.browser

# Data, not words: the bots' names and the label every computer player wears.
DATA = {*BOT_NAMES}


@pytest.fixture(scope="module")
def pseudo_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The embedded server speaking the pseudo-locale (the production stack has no hook for
    it; the room's words are the same on both)."""
    folder = tmp_path_factory.mktemp("pseudo")
    with embedded(
        folder,
        LUDO_TEST_CLOCK_EVERY="0.2",
        LUDO_BOT_DELAY="0.01",
        LUDO_TEST_PSEUDO_LOCALE="1",
    ) as (url, _):
        yield url


def left_in_english(page: Page, code: str) -> set[str]:
    """The plain ASCII words the room shows now, less its data: the players' names as the
    seats show them (a guest's generated "Guest 1A2B" is a stored name, the same for every
    reader), the bots' names, pieces of the room code, the invitation's address."""
    html = page.locator("main").evaluate("(main) => main.outerHTML")
    html = re.sub(r"https?://[^\s<\"']+", " ", html)
    names = page.locator("#seats .seat-name, .signed-in strong").all_inner_texts()
    data = DATA | {w for name in names for w in re.findall(r"[A-Za-z]{2,}", name)}
    return {w for w in english_words(html, data) if not (w.isupper() and set(w) <= set(code))}


def test_a_practice_room_says_every_word_in_the_pseudo_locale(
    pseudo_site: str, people: Any
) -> None:
    person = people(DESKTOP)
    person.context.add_cookies([{"name": "django_language", "value": "xx", "url": pseudo_site}])
    page = person.page()

    # The room's socket, passed through as is; the test may speak on it (a refused move).
    sockets: list[WebSocketRoute] = []
    seen_v: list[int] = [0]

    def through(ws: WebSocketRoute) -> None:
        server = ws.connect_to_server()
        sockets.append(server)

        def from_server(message: str | bytes) -> None:
            try:
                v = json.loads(message).get("v")
            except (ValueError, AttributeError):
                v = None
            if isinstance(v, int):
                seen_v[0] = max(seen_v[0], v)
            ws.send(message)

        server.on_message(from_server)

    page.route_web_socket(re.compile(r"/ws/match/"), through)
    practise(page, pseudo_site, players="2")
    expect(page.locator("html")).to_have_attribute("lang", "xx")
    expect(page.locator("#roll")).to_be_visible()
    code = page.url.rstrip("/").split("/")[-1].replace("-", "")

    found: dict[str, str] = {}

    def look(when: str) -> None:
        for word in left_in_english(page, code):
            found.setdefault(word, when)

    look("the room opened")
    # A few turns: roll and move (clicks), looking after each step; a lone move is left to
    # the server, which plays it by itself (the history says so).
    only = re.compile(f"the only move|{pseudo('the only move')}")
    lone = page.locator("#history li", has_text=only)
    deadline = time.monotonic() + 90
    while page.locator("#history li").count() < 8 or not lone.count():
        assert time.monotonic() < deadline, "no lone move played by itself in 90 s"
        only_one = page.locator("#board .pawn.movable").count() == 1
        if not only_one and act(page, "click"):
            page.wait_for_timeout(150)
            look(f"after a step: {page.locator('#status').inner_text()!r}")
        else:
            page.wait_for_timeout(100)
            look(f"waiting: {page.locator('#status').inner_text()!r}")

    # A refusal in the toast: a move sent when the die waits for a roll.
    expect(page.locator("#roll")).to_be_enabled()
    frame = {"t": "move", "v": seen_v[0], "id": "t1", "d": {"pawn": 0, "corner": 0}}
    sockets[-1].send(json.dumps(frame))
    expect(page.locator("#error")).to_be_visible()
    look(f"the toast: {page.locator('#error').inner_text()!r}")
    assert found == {}, f"plain English in the room: {found}"


def test_a_friends_room_with_its_time_left_in_the_pseudo_locale(
    pseudo_site: str, people: Any
) -> None:
    """Two people in a friends' room (the turn clock runs there: the time left in words)."""
    pages = []
    for viewport in (DESKTOP, PHONE):
        person = people(viewport)
        person.context.add_cookies([{"name": "django_language", "value": "xx", "url": pseudo_site}])
        pages.append(person.page())
    ann, bob = pages
    open_friends_room(ann, pseudo_site)
    expect(ann.locator("#room-code")).to_be_visible()
    code = ann.locator("#room-code").inner_text()
    found: dict[str, str] = {}

    def look(page: Page, when: str) -> None:
        for word in left_in_english(page, code.replace("-", "")):
            found.setdefault(word, when)

    look(ann, "waiting for players")
    bob.goto(pseudo_site + "/")
    bob.fill("input[name=code]", code.lower())
    bob.click("form[action='/join/'] button")
    expect(bob.locator(".seat.to-play")).to_have_count(1)
    expect(ann.locator(".waiting")).to_be_hidden()

    clocks: set[str] = set()
    deadline = time.monotonic() + 60
    while ann.locator("#history li").count() < 10:
        assert time.monotonic() < deadline, "the game did not go on"
        for page in (ann, bob):
            left = page.locator("#time-left")
            if left.is_visible():
                clocks.add(left.inner_text())
            look(page, f"{page.locator('#status').inner_text()!r}")
            if act(page, "click"):
                page.wait_for_timeout(150)
        ann.wait_for_timeout(50)
    assert clocks, "no time left shown"
    assert all(pseudo("left") in text for text in clocks), clocks
    assert found == {}, f"plain English in the room: {found}"
