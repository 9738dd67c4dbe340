"""Disputes in a real browser: a player reports a problem from the replay page, a moderator
reviews it (the replay shows in the review page at the named turn) and upholds it, and the
player sees the decision. Screenshots of the review page at desktop and phone sizes."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from .conftest import PHONE, SHOTS, serve, shoot

pytestmark = pytest.mark.browser

# Run in the server's database: two players finish a ranked match (random play, then a
# forfeit), and a moderator (staff, in the moderators group) exists.
SETUP = """
import random
from django.contrib.auth.models import Group
from accounts.models import User
from games import services
from tests.storage.driver import play
ann = User.objects.create_user("ann", password="pw-for-tests-1")
bob = User.objects.create_user("bob", password="pw-for-tests-1")
mod = User.objects.create_user("mod", password="pw-for-tests-1", is_staff=True)
mod.groups.add(Group.objects.get(name="moderators"))
mod2 = User.objects.create_user("mod2", password="pw-for-tests-1", is_staff=True)
mod2.groups.add(Group.objects.get(name="moderators"))
match = services.match_create(
    ruleset="classic", players=2, mode="ranked", host=ann, paired=[ann, bob]
)
services.match_join(code=match.code, user=bob)
match = play(match, random.Random(8), actions=80)
print(match.code, match.get_status_display(), match.turn_seq)
"""


@pytest.fixture(scope="module")
def dispute_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    """A server of its own (base URL, match code), its database holding the setup above."""
    folder = tmp_path_factory.mktemp("disputes")
    with serve(folder, tag="disputes", setup=SETUP) as (url, printed):
        code, status, _turns = printed.split()[-3:]
        assert status == "Finished", printed
        yield url, code


def sign_in(page: Page, site: str, username: str) -> None:
    page.goto(site + "/accounts/login/")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", "pw-for-tests-1")
    page.click("button[type=submit]")
    expect(page.locator(".site-nav")).to_contain_text(username)


def test_a_player_disputes_and_a_moderator_reviews_and_upholds(
    dispute_site: tuple[str, str], people: Any
) -> None:
    site, code = dispute_site
    player = people().page()
    sign_in(player, site, "bob")
    player.goto(f"{site}/r/{code}/replay/")
    player.click("#report-problem")
    player.check("input[name=reason][value=dice]")
    player.fill("textarea[name=text]", "Ann rolled six after six in turn 3.")
    player.fill("input[name=turn]", "3")
    shoot(player, "dispute-open")
    player.click("text=Open the dispute")
    expect(player.locator("#dispute-status")).to_contain_text("Open")

    moderator_view = people()
    moderator = moderator_view.page()
    sign_in(moderator, site, "mod")
    moderator.click(".site-nav >> text=Disputes")
    expect(moderator.locator(".queue-table tbody tr")).to_have_count(1)
    shoot(moderator, "dispute-queue")
    moderator.click(".queue-table >> text=Review")
    expect(moderator.locator("#proof-summary")).to_contain_text("dice verified")
    expect(moderator.locator("#chain-result")).to_have_class("ok")
    # The replay runs in the page, stepped to the named turn, and proves the dice itself.
    frame = moderator.frame_locator("#replay-frame")
    expect(frame.locator("#board .pawn").first).to_be_visible()
    expect(frame.locator("#where-am-i")).to_contain_text("turn 3")
    expect(frame.locator("#proof-result")).to_contain_text("all")
    expect(moderator.locator("table.timeline")).to_contain_text("turn 3 begins")
    shoot(moderator, "dispute-review")
    moderator.screenshot(path=str(SHOTS / "dispute-review-1280-full.png"), full_page=True)
    phone = people(PHONE).page()
    sign_in(phone, site, "mod")
    phone.goto(moderator.url)
    expect(phone.frame_locator("#replay-frame").locator("#board .pawn").first).to_be_visible()
    # The page's content fits a phone (the site header's nav is the site's, not checked here).
    wide = phone.evaluate(
        "[...document.querySelectorAll('main *')].filter(e => e.getBoundingClientRect().right"
        " > 361 && !e.closest('.scroll-x, .scroll-y')).map(e => e.tagName + '.' + e.className)"
    )
    assert not wide, f"wider than the phone: {wide}"
    shoot(phone, "dispute-review")
    for part in ("stats", "timeline"):
        phone.locator(f"#{part}-title").scroll_into_view_if_needed()
        shoot(phone, f"dispute-review-{part}")
    phone.screenshot(path=str(SHOTS / "dispute-review-360-full.png"), full_page=True)

    moderator.check("input[name=outcome][value=uphold]")
    moderator.fill("textarea[name=reason]", "The turn 3 clock misfired: the match is void.")
    moderator.click("text=Settle the dispute")
    # Ranked: the void is proposed, and a second moderator approves it.
    expect(moderator.locator(".messages")).to_contain_text("a second moderator must approve")
    second = people().page()
    sign_in(second, site, "mod2")
    second.goto(moderator.url)
    second.click("text=Approve the void")
    expect(second.locator(".messages")).to_contain_text("the match is void")

    player.goto(site + "/")
    expect(player.locator(".site-nav")).to_contain_text("1 new")
    player.click(".site-nav >> text=My disputes")
    expect(player.locator(".dispute-card")).to_contain_text("Upheld")
    expect(player.locator(".dispute-card")).to_contain_text("clock misfired")
    shoot(player, "dispute-mine")
    player.reload()  # read once, the decision is no longer news
    expect(player.locator(".site-nav")).not_to_contain_text("new")
    player.goto(f"{site}/r/{code}/replay/")
    expect(player.locator(".dispute-box")).to_contain_text("This match is void")
