"""Fair play in a real browser (issue 33): a player reports another from a replay, a
moderator reviews the report on the desk and suspends the player from ranked play, the player
reads why on their profile and appeals, and the other moderator the appeal went to lifts it.
Screenshots at desktop and phone sizes."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import expect

from .conftest import PHONE, serve, shoot
from .test_disputes import sign_in

pytestmark = pytest.mark.browser

SETUP = """
from django.contrib.auth.models import Group
from accounts.models import User
from games import services
mods = Group.objects.get(name="moderators")
def user(name, staff=False):
    u = User.objects.create_user(name, password="pw-for-tests-1", is_staff=staff)
    if staff:
        u.groups.add(mods)
    return u
ann, bob = user("ann"), user("bob")
maria, omar = user("maria", True), user("omar", True)
match = services.match_create(ruleset="duel", players=2, mode="friendly", host=bob, first=0)
services.match_join(code=match.code, user=ann)
services.match_resign(match_id=match.pk, user=bob)
print(match.code, ann.pk)
"""


@pytest.fixture(scope="module")
def fair_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, list[str]]]:
    folder = tmp_path_factory.mktemp("fairplay")
    with serve(folder, tag="fairplay", setup=SETUP) as (url, printed):
        yield url, printed.split()[-2:]


def no_overflow(page: Any) -> None:
    width = page.viewport_size["width"]
    wide = page.evaluate(
        f"[...document.querySelectorAll('main *')].filter(e => e.getBoundingClientRect().right"
        f" > {width + 1} && !e.closest('.scroll-x, .scroll-y')).map(e => e.tagName)"
    )
    assert not wide, f"wider than the page: {wide}"


def test_a_report_its_review_a_suspension_and_its_appeal(
    fair_site: tuple[str, list[str]], people: Any
) -> None:
    site, (code, ann_id) = fair_site
    # Bob reports Ann from the replay of their match.
    bob = people().page()
    sign_in(bob, site, "bob")
    bob.goto(f"{site}/r/{code}/replay/")
    expect(bob.locator("#seat-reliability")).to_contain_text("ann: new")
    shoot(bob, "fairplay-replay")
    bob.locator("#seat-reliability .report-link").click()
    expect(bob.locator("h1")).to_contain_text("Report ann")
    bob.check("input[name=reason][value=assisted]")
    bob.fill("textarea[name=note]", "Every move came instantly, the best one each time.")
    shoot(bob, "fairplay-report")
    bob.click("#send-report")
    expect(bob.locator(".messages")).to_contain_text("your report of ann is with the moderators")

    # Maria finds it on the desk, grouped under Ann, and suspends her from ranked play.
    maria = people().page()
    sign_in(maria, site, "maria")
    maria.click(".site-nav >> text=Fair play")
    row = maria.locator("#report-groups tr[data-player=ann]")
    expect(row).to_contain_text("Playing with help")
    shoot(maria, "fairplay-desk")
    row.locator("text=Review").click()
    expect(maria.locator("#reports")).to_contain_text("Every move came instantly")
    expect(maria.locator("#evidence")).to_contain_text("Reliability")
    maria.select_option("select[name=kind]", "suspension")
    maria.fill("input[name=days]", "7")
    maria.fill(
        "textarea[name=reason]",
        "Your moves matched a computer's too closely to be your own: no ranked play for a week.",
    )
    maria.click("#give-sanction")
    expect(maria.locator(".messages")).to_contain_text("Sanction given")
    expect(maria.locator("#sanctions")).to_contain_text("Ranked suspension")
    shoot(maria, "fairplay-player")

    # Ann reads what and why (the ranked page too), and appeals.
    ann = people().page()
    sign_in(ann, site, "ann")
    ann.goto(f"{site}/players/ann/")
    sanction = ann.locator("#sanctions .sanction")
    expect(sanction).to_contain_text("You cannot join the ranked queues until then")
    expect(sanction).to_contain_text("too closely to be your own")
    ann.goto(f"{site}/play/ranked/")
    expect(ann.locator("#my-reliability")).to_contain_text("suspended you from ranked play")
    ann.goto(f"{site}/players/ann/")
    ann.fill(".appeal-form textarea", "I play fast because I know duel well: look at my games.")
    shoot(ann, "fairplay-appeal")
    ann.click(".appeal-form button")
    expect(ann.locator(".messages")).to_contain_text("Your appeal went to another moderator")

    # The appeal went to Omar, not Maria, who gave the sanction; Omar lifts it.
    maria.goto(f"{site}/fairplay/desk/")
    expect(maria.locator("main")).to_contain_text("No appeal waits for you.")
    omar = people().page()
    sign_in(omar, site, "omar")
    omar.goto(f"{site}/fairplay/desk/")
    omar.locator("#appeals >> text=Decide").click()
    expect(omar.locator("#appeal-text")).to_contain_text("I know duel well")
    omar.check("input[name=decision][value=lifted]")
    omar.fill("textarea[name=note]", "Your think times are long in hard spots: lifted.")
    omar.click("#decide")
    expect(omar.locator(".messages")).to_contain_text("Appeal decided")
    ann.goto(f"{site}/players/ann/")
    expect(ann.locator("#appeal-decision")).to_contain_text("Your appeal was accepted")
    shoot(ann, "fairplay-appeal-decided")

    # The pages fit a phone.
    phone = people(PHONE).page()
    sign_in(phone, site, "maria")
    phone.goto(f"{site}/fairplay/desk/players/{ann_id}/")
    no_overflow(phone)
    shoot(phone, "fairplay-player")
    phone_ann = people(PHONE).page()
    sign_in(phone_ann, site, "ann")
    phone_ann.goto(f"{site}/players/ann/")
    no_overflow(phone_ann)
    phone_ann.locator("#sanctions").scroll_into_view_if_needed()
    shoot(phone_ann, "fairplay-profile")
    phone_ann.goto(f"{site}/r/{code}/replay/")
    no_overflow(phone_ann)
    shoot(phone_ann, "fairplay-replay")
