"""Ranked quick match in a real browser: two accounts queue, are sent to their room by the
lobby socket, play a few moves, one resigns, and both see their new ratings on the queue page.
Screenshots of the queue page at phone and desktop sizes (artefacts/screenshots/)."""

from __future__ import annotations

import re
import time
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from .conftest import DESKTOP, PHONE, shoot

pytestmark = pytest.mark.browser


def sign_up(page: Page, site: str, name: str) -> None:
    page.goto(site + "/accounts/signup/?next=/play/ranked/")
    page.fill("input[name=username]", name)
    page.fill("input[name=password1]", "a-long-pass-42")
    page.fill("input[name=password2]", "a-long-pass-42")
    page.check("input[name=terms]")
    page.click("button[type=submit]")
    expect(page.locator(".signed-in")).to_contain_text(name)


def step(page: Page) -> bool:
    """One action if it is this player's to take: roll, or move the first lit pawn."""
    if page.locator("#roll").is_enabled():
        page.click("#roll")
        return True
    if page.locator("#board .pawn.movable").count():
        page.keyboard.press("1")
        return True
    return False


def test_two_accounts_queue_play_and_see_their_new_ratings(site: str, people: Any) -> None:
    rita = people(DESKTOP).page()
    sign_up(rita, site, "rita")
    expect(rita.locator("h1")).to_have_text("Ranked: find a player")
    expect(rita.locator("#ratings tbody tr")).to_have_count(4)  # duel, classic 2 and 4, quick
    expect(rita.locator("#ratings .provisional")).to_have_count(4)
    rita.click("button[data-queue=duel]")
    expect(rita.locator("#waiting")).to_be_visible()
    expect(rita.locator("#waiting-queue")).to_have_text("Duel (ranked)")
    expect(rita.locator("#waited")).to_have_text(re.compile(r"0:0[1-9]"), timeout=5000)
    window = float(rita.locator("#window").inner_text().lstrip("±"))
    assert window >= 3.0
    shoot(rita, "ranked-queue-waiting")
    rita.set_viewport_size(PHONE)
    shoot(rita, "ranked-queue-waiting")
    rita.set_viewport_size(DESKTOP)
    # It widens as she waits (the page ticks each second).
    expect(rita.locator("#window")).not_to_have_text(f"±{window:.1f}", timeout=5000)
    assert float(rita.locator("#window").inner_text().lstrip("±")) > window

    raj = people(PHONE).page()
    sign_up(raj, site, "raj")
    raj.click("button[data-queue=duel]")
    # Both land in the same room: raj from the join answer, rita from the lobby socket.
    raj.wait_for_url(re.compile(r"/r/\w+/$"))
    rita.wait_for_url(re.compile(r"/r/\w+/$"))
    assert rita.url == raj.url
    expect(rita.locator("#room")).to_have_attribute("data-mode", "ranked")
    expect(rita.locator("#seats")).to_contain_text("raj")
    expect(rita.locator("#seats .bot-tag")).to_have_count(0)
    expect(rita.locator("#mode-badge")).to_have_text("Ranked · Duel")

    # A few actions each, then rita resigns.
    end = time.monotonic() + 20
    acted = 0
    while acted < 6 and time.monotonic() < end:
        did = step(rita) | step(raj)
        acted += did
        rita.wait_for_timeout(80 if did else 40)
    assert acted >= 2, "nobody could act"
    rita.once("dialog", lambda dialog: dialog.accept())
    rita.click("#resign")
    expect(raj.locator("#turn")).to_contain_text("over", timeout=10_000)
    # The result panel: places with the rating change, and back to the queue (no rematch).
    expect(raj.locator("#result-title")).to_have_text("You win!")
    expect(raj.locator("#places .place-1 .change.up")).to_contain_text("+")
    expect(rita.locator("#places .place-2 .change.down")).to_contain_text("−")
    expect(raj.locator("#queue-again")).to_have_attribute("href", "/play/ranked/")
    expect(raj.locator("#rematch")).to_have_count(0)
    shoot(raj, "feel-ranked-result")

    for page, sign, won in ((rita, "down", False), (raj, "up", True)):
        page.goto(site + "/play/ranked/")
        expect(page.locator("#last-match")).to_be_visible()
        expect(page.locator("#last-match")).to_contain_text("1st" if won else "2nd")
        expect(page.locator("#last-change")).to_have_class(re.compile(sign))
        change = float(page.locator("#last-change").inner_text().strip("()+"))
        assert (change > 0) == won
        expect(page.locator("#ratings tr[data-queue=duel] td").last).to_have_text("1")
        after = float(page.locator("#last-after").inner_text())
        shown = page.locator("#ratings tr[data-queue=duel] .rating-value").inner_text()
        assert float(shown) == after
        expect(page.locator("#queues")).to_be_visible()  # free to queue again
    shoot(raj, "ranked-queue-after")
    raj.set_viewport_size(DESKTOP)
    shoot(raj, "ranked-queue-after")


def test_guests_are_sent_to_sign_in_for_ranked_play(site: str, people: Any) -> None:
    page = people(PHONE).page()
    page.goto(site + "/play/ranked/")
    expect(page.locator("#account-title")).to_have_text("Ranked play is for accounts")
    expect(page.locator("button[data-queue]")).to_have_count(0)
    shoot(page, "ranked-queue-visitor")
    page.click("text=A casual game instead")
    expect(page.locator("h1")).to_have_text("Find a player")
    page.click("button[data-queue=classic-2]")
    expect(page.locator("#waiting-queue")).to_have_text("Classic, 2 players (casual)")
    expect(page.locator("#bot-line")).to_be_visible()
    shoot(page, "quick-match-waiting")
    page.click("#cancel")
    expect(page.locator("#queues")).to_be_visible()
    expect(page.locator("#waiting")).to_be_hidden()
