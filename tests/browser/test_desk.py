"""The dispute desk in a real browser, with screenshots to look at: the queue (a conflict of
interest marked, an appeal marked and assigned), the review page (case notes, the question
to the player, bot evidence per seat), a player record, and an appeal from the player's side
and from the moderator's."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import expect

from .conftest import PHONE, SHOTS, serve, shoot
from .test_disputes import sign_in

pytestmark = pytest.mark.browser

SETUP = """
from django.contrib.auth.models import Group
from accounts.models import User
from audit import services as audit
from disputes import services as desk
from games.models import Seat
from tests.disputes.play import hard_policy, play_out, random_policy
from tests.disputes.test_evidence import humanlike
from tests.ranked.matches import finish, ranked_match
mods = Group.objects.get(name="moderators")
def user(name, staff=False):
    u = User.objects.create_user(name, password="pw-for-tests-1", is_staff=staff)
    if staff:
        u.groups.add(mods)
    return u
ann, bob, carl, dan = (user(n) for n in ("ann", "bob", "carl", "dan"))
maria, omar, sam = user("maria", True), user("omar", True), user("sam", True)
# Ann plays like a script (the Hard policy, at once, from httpx); Bob like a person.
one = ranked_match("classic", [ann, bob])
Seat.objects.filter(match=one, user=ann).update(user_agent="python-httpx/0.27.0", device="script")
Seat.objects.filter(match=one, user=bob).update(
    user_agent="Mozilla/5.0 (Linux; Android 14; Pixel 8) Mobile Safari/537.36", device="phone"
)
corners = {s.user_id: s.corner for s in one.seats.all()}
one = play_out(one, {corners[ann.pk]: hard_policy, corners[bob.pk]: random_policy}, seed=3)
humanlike(one, corners[bob.pk], seed=2)
bot_case = desk.dispute_open(match_id=one.pk, user=bob, reason="behaviour",
    text="Ann answered every turn instantly and never made a mistake. A bot?")
desk.dispute_assign(dispute_id=bot_case.pk, moderator=maria)
desk.dispute_note(dispute_id=bot_case.pk, moderator=maria,
    text="Think times under 100 ms on nearly every action; the seat's browser says httpx.")
desk.dispute_ask(dispute_id=bot_case.pk, moderator=maria,
    question="Did Ann say anything in the room about how she plays?")
# Sam, a moderator, lost to Carl and disputes it: a conflict for him.
two = finish(ranked_match("duel", [carl, sam]), [carl, sam])
desk.dispute_open(match_id=two.pk, user=sam, reason="timer", text="The clock skipped my turn.")
# Dan's dispute, rejected by Maria, then appealed: routed to Omar.
three = finish(ranked_match("duel", [bob, dan]), [bob, dan])
first = desk.dispute_open(match_id=three.pk, user=dan, reason="dice", text="Too many sixes.")
desk.dispute_settle(dispute_id=first.pk, moderator=maria, outcome="reject",
    reason="The dice were re-derived from the revealed seed: every roll matches.")
audit.record(action="user.signed_in", actor=bob, ip="203.0.113.50", obj=bob)
audit.record(action="user.signed_in", actor=carl, ip="203.0.113.50", obj=carl)
print(one.code, bot_case.pk, first.pk, ann.pk)
"""


@pytest.fixture(scope="module")
def desk_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, list[str]]]:
    folder = tmp_path_factory.mktemp("desk")
    with serve(folder, tag="desk", setup=SETUP) as (url, printed):
        yield url, printed.split()[-4:]


def test_the_desk_queue_review_record_and_an_appeal(
    desk_site: tuple[str, list[str]], people: Any
) -> None:
    site, (code, bot_case, rejected, ann_id) = desk_site
    # The player appeals the rejection from their dispute page.
    dan = people().page()
    sign_in(dan, site, "dan")
    dan.goto(f"{site}/disputes/{rejected}/")
    dan.click("#appeal-box summary")
    dan.fill("#appeal-form textarea", "The sixes came in a row on turns 4 to 9: please look again.")
    shoot(dan, "desk-appeal-form")
    dan.click("text=Send the appeal")
    expect(dan.locator(".messages")).to_contain_text("A different moderator will review it")
    expect(dan.locator("h1")).to_contain_text("Your appeal")
    shoot(dan, "desk-appeal-player")

    maria = people().page()
    sign_in(maria, site, "maria")
    maria.goto(f"{site}/disputes/queue/")
    rows = maria.locator(".queue-table tbody tr")
    expect(rows).to_have_count(3)
    expect(maria.locator(".queue-table")).to_contain_text(f"Appeal of {rejected}")
    expect(maria.locator(".queue-table")).to_contain_text("omar")  # routed to the other one
    # No horizontal overflow at 1280 px.
    overflow = maria.evaluate("document.documentElement.scrollWidth > window.innerWidth")
    assert not overflow
    shoot(maria, "desk-queue")

    sam = people().page()
    sign_in(sam, site, "sam")
    sam.goto(f"{site}/disputes/queue/")
    expect(sam.locator(".queue-table")).to_contain_text("Conflict of interest")
    shoot(sam, "desk-queue-conflict")

    maria.goto(f"{site}/disputes/{bot_case}/review/")
    expect(maria.locator("#thread")).to_contain_text("httpx")
    expect(maria.locator("#thread")).to_contain_text("Did Ann say anything")
    expect(maria.locator("#bot-title")).to_be_visible()
    expect(maria.locator(".evidence").first).to_contain_text("Expert agreement")
    maria.locator("#thread-title").scroll_into_view_if_needed()
    shoot(maria, "desk-review-thread")
    maria.locator("#bot-title").scroll_into_view_if_needed()
    shoot(maria, "desk-review-evidence")
    maria.screenshot(path=str(SHOTS / "desk-review-1280-full.png"), full_page=True)

    maria.click("text=Player record >> nth=0")
    expect(maria.locator("h1")).to_contain_text("Player record")
    shoot(maria, "desk-record")
    maria.goto(f"{site}/disputes/players/{ann_id}/")
    expect(maria.locator("#bot-title")).to_contain_text("Bot evidence")
    maria.screenshot(path=str(SHOTS / "desk-record-ann-1280-full.png"), full_page=True)

    # The moderators' admin: the match list searched by player, the dispute list fits.
    watched = people()
    admin = watched.page()
    sign_in(admin, site, "maria")
    admin.goto(f"{site}/admin/games/match/?q=ann")
    expect(admin.locator("#result_list")).to_contain_text(code)
    admin.goto(f"{site}/admin/disputes/dispute/")
    # Four disputes; Dan's appeal of Maria's own decision is left out of her list, as on the desk.
    expect(admin.locator("#result_list tbody tr")).to_have_count(3)
    assert not admin.evaluate("document.documentElement.scrollWidth > window.innerWidth")
    shoot(admin, "desk-admin-disputes")
    admin.close()
    # Django's admin pages ask for /favicon.ico, which the site does not serve.
    watched.errors[:] = [e for e in watched.errors if "favicon.ico" not in e]

    omar = people().page()
    sign_in(omar, site, "omar")
    omar.goto(f"{site}/disputes/queue/?who=mine")
    omar.click(".queue-table >> text=Review")
    expect(omar.locator(".complaint")).to_contain_text(f"dispute {rejected}")
    shoot(omar, "desk-appeal-review")

    phone = people(PHONE).page()
    sign_in(phone, site, "maria")
    phone.goto(f"{site}/disputes/{bot_case}/review/")
    wide = phone.evaluate(
        "[...document.querySelectorAll('main *')].filter(e => e.getBoundingClientRect().right"
        " > 361 && !e.closest('.scroll-x, .scroll-y')).map(e => e.tagName + '.' + e.className)"
    )
    assert not wide, f"wider than the phone: {wide}"
    phone.locator("#bot-title").scroll_into_view_if_needed()
    shoot(phone, "desk-review-evidence")
