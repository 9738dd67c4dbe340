"""Seed promises in a real browser (issue 16): the invite link seats a friend at once
(item 10), and a tap on the board rolls when it is your roll (item 11)."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from .conftest import DESKTOP, PHONE, practise
from .test_site import history

pytestmark = pytest.mark.browser


def test_the_invite_link_seats_a_friend_at_once(site: str, people: Any) -> None:
    """Item 10: "send them the link; when they open it you're in the same game"."""
    ann = people(DESKTOP).page()
    ann.goto(site + "/")
    friends = ann.locator("form[action='/play/friends/']")
    friends.locator("select[name=ruleset]").select_option("duel")
    friends.locator("button[type=submit]").click()
    expect(ann.locator("#waiting-title")).to_have_text("Waiting for players")
    link = ann.locator("[data-copy]").first.get_attribute("data-copy")
    assert link and "/r/" in link

    bob = people(PHONE).page()
    bob.goto(link)  # no button to press: he is seated and the duel starts
    expect(bob.locator(".you-tag")).to_have_count(1)
    expect(bob.locator(".waiting")).to_be_hidden()
    expect(ann.locator(".waiting")).to_be_hidden()
    expect(ann.locator("#seats")).to_contain_text("Guest")

    carol = people(DESKTOP).page()
    carol.goto(link)  # the room is full: she watches
    expect(carol.locator("#seats .seat")).to_have_count(2)
    expect(carol.locator(".you-tag")).to_have_count(0)
    expect(carol.locator("#take-seat")).to_have_count(0)


def test_a_tap_on_the_board_rolls(site: str, people: Any) -> None:
    """Item 11: "Tap anywhere on the board to roll the die"."""
    page = people(PHONE).page()
    practise(page, site, ruleset="duel")
    expect(page.locator("#roll:not([disabled])")).to_have_count(1)
    box = page.locator("#board").bounding_box()
    assert box is not None
    # The middle of the board: no pawn there, and not the Roll button or the die.
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    # Red is this player's seat (the computer's rolls are Yellow's).
    expect(page.locator("#history")).to_contain_text("Red rolls")
    assert "Red rolls" in history(page)


def test_the_duel_guides_draw_their_boards(site: str, people: Any) -> None:
    """Item 12: every board of the guides is drawn (no console error: the `people` check)."""
    page = people(DESKTOP).page()
    for slug in ("duel-rules", "duel-strategy"):
        page.goto(f"{site}/guides/{slug}/")
        boards = page.locator("svg.mini")
        assert boards.count() >= 3
        expect(boards.last.locator(".pawn").first).to_be_attached()
    page.screenshot(path="/tmp/guide-promises.png", full_page=False)


def test_one_device_seats_switch_and_start_over(site: str, people: Any) -> None:
    """Item 8: under the board, a seat switches between a person and the computer during the
    game; Start over begins a fresh game with the same seats, beside New game."""
    page = people(PHONE).page()
    page.goto(site + "/play/local/")
    page.select_option("select[name=ruleset]", "family")
    page.select_option("select[name=players]", "2")
    # The computer seats are the beginner computer unless chosen otherwise.
    expect(page.locator("select[name=seat2]")).to_have_value("beginner")
    page.click("main button[type=submit]")
    expect(page.locator("#seats .bot-tag")).to_have_count(1)
    first = page.url
    page.select_option("select[data-seat='2']", "person")
    page.locator("form:has(select[data-seat='2']) button").click()
    expect(page.locator("#seats .bot-tag")).to_have_count(0)
    expect(page.locator("select[data-seat='2']")).to_have_value("person")
    page.click("#start-over")
    expect(page.locator("#seats .seat")).to_have_count(2)
    assert page.url != first
    expect(page.locator("#seats .bot-tag")).to_have_count(0)  # the same seats: two people
    expect(page.locator("#new-game")).to_have_attribute("href", "/play/local/")
    page.screenshot(path="/tmp/local-promises.png", full_page=True)
