"""Accounts in a real browser: a guest practises, signs up (keeping the match), changes the
password, signs out, signs in with the new one and finds the match on the profile; and
screenshots of a profile and a leaderboard with ratings, at phone and desktop sizes."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from .conftest import DESKTOP, PHONE, nav_click, practise, shoot

pytestmark = pytest.mark.browser

FIRST = "a-long-pass-42"
SECOND = "another-long-pass-77"


def fill(page: Page, fields: dict[str, str]) -> None:
    for name, value in fields.items():
        page.fill(f"input[name={name}]", value)
    if page.locator("input[name=terms]").count():
        page.check("input[name=terms]")  # sign-up: the Terms of Service are accepted
    page.locator("main button[type=submit]").click()


def no_sideways_scroll(page: Page, width: int) -> None:
    scroll = page.evaluate("document.documentElement.scrollWidth")
    assert scroll <= width, f"{page.url} scrolls sideways at {width} px"


def test_guest_signs_up_changes_password_and_keeps_the_match(site: str, people: Any) -> None:
    page = people(PHONE).page()
    practise(page, site, players="2")
    expect(page.locator("#resign")).to_be_visible()
    code = page.url.rstrip("/").rsplit("/", 1)[1]
    page.once("dialog", lambda d: d.accept())
    page.click("#resign")
    expect(page.locator("#replay-link")).to_be_visible()

    page.goto(site + "/accounts/signup/")
    expect(page.locator(".section-lead")).to_contain_text("stay yours")
    fill(page, {"username": "gina", "password1": FIRST, "password2": FIRST})
    expect(page.locator(".notice")).to_contain_text("your games are kept")

    nav_click(page, "Your profile")
    expect(page.locator("h1")).to_have_text("gina")
    page.click("text=Change your password")
    fill(page, {"old_password": FIRST, "new_password1": "1234", "new_password2": "1234"})
    expect(page.locator(".field-error").first).to_contain_text("too short")
    fill(page, {"old_password": FIRST, "new_password1": SECOND, "new_password2": SECOND})
    expect(page.locator("h1")).to_have_text("Password changed")

    nav_click(page, "Sign out")
    expect(page.locator(".site-nav")).to_contain_text("Sign in")
    nav_click(page, "Sign in")
    fill(page, {"username": "gina", "password": FIRST})
    expect(page.locator(".notice.error")).to_contain_text("do not match")
    fill(page, {"username": "gina", "password": SECOND})
    expect(page.locator(".site-nav")).to_contain_text("Sign out")

    nav_click(page, "Your profile")
    expect(page.locator("h1")).to_have_text("gina")
    expect(page.locator("#match-history li")).to_have_count(1)
    expect(page.locator("#match-history")).to_contain_text("Practice · Classic, 2 players")
    no_sideways_scroll(page, PHONE["width"])
    shoot(page, "profile-own")
    page.click(f"text=Replay {code[:3]}-{code[3:]}")
    expect(page).to_have_url(re.compile(rf"/r/{code}/replay/$"))


@pytest.fixture
def seeded(live_server: Any, transactional_db: Any, settings: Any) -> str:
    """Players with ratings and finished ranked matches (one voided), in the test database
    that `live_server` serves; its URL. (Made before the browser starts: Playwright's sync API
    runs an event loop in this thread, where Django refuses database calls.)"""
    from accounts.models import User
    from games import services
    from ranked.models import Rating

    settings.LUDO_TIME_SCALE = 0.0
    names = ["Ada", "Bartholomew the Magnificent", "cy", "Dee", "Eli", "Fay"]
    users = [
        User.objects.create_user(n.split()[0].lower(), password=FIRST, display_name=n)
        for n in names
    ]
    ada, bart = users[:2]
    for n in range(24):
        match = services.match_create(
            ruleset="duel", players=2, mode="ranked", host=ada, paired=[ada, bart]
        )
        services.match_join(code=match.code, user=bart)
        services.match_resign(match_id=match.pk, user=bart if n % 3 else ada)
        if n == 20:
            services.match_void(match_id=match.pk, reason="a test", actor=None)
    for i, user in enumerate(users[2:]):
        Rating.objects.create(
            user=user,
            queue="duel",
            mu=30 - i,
            sigma=2 + i,
            ordinal=30 - i - 3 * (2 + i),
            games=40 - 11 * i,
            wins=20 - 5 * i,
        )
    return str(live_server.url)


def test_profile_and_leaderboard_screenshots(seeded: str, people: Any) -> None:
    for viewport in (PHONE, DESKTOP):
        page = people(viewport).page()
        page.goto(seeded + "/players/ada/")
        expect(page.locator("h1")).to_have_text("Ada")
        expect(page.locator("[data-queue=duel]")).to_contain_text("±")
        expect(page.locator("#match-history li")).to_have_count(20)
        expect(page.locator(".history .void")).to_have_count(1)
        no_sideways_scroll(page, viewport["width"])
        shoot(page, "profile")
        page.locator("#matches").scroll_into_view_if_needed()
        shoot(page, "profile-matches")
        page.click("text=Older")
        expect(page.locator("#match-history li")).to_have_count(4)
        page.goto(seeded + "/leaderboards/duel/")
        expect(page.locator("tbody tr")).to_have_count(6)
        no_sideways_scroll(page, viewport["width"])
        shoot(page, "leaderboard")
        page.click("tbody tr:first-child a")
        expect(page.locator("h1")).to_be_visible()
