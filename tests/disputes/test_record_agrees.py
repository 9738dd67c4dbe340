"""The moderator's player record and the review page read the same evidence the same way
(issue 30): a player seen at the address their opponent played from, and a scripted player
acting the moment it can from a tool's User-Agent. Both pages show the shared address and the
other account, and the record flags what the review page flags for the seat."""

from __future__ import annotations

import html
import re
from collections.abc import Callable

import pytest
from django.core.cache import cache
from django.test import Client
from django.urls import reverse

from accounts.models import User
from disputes import evidence, services
from games import services as games
from games.models import Match, Seat
from tests.disputes.play import hard_policy, play_out, random_policy
from tests.disputes.test_evidence import humanlike

Make = Callable[..., User]


@pytest.fixture(autouse=True)
def fresh_cache() -> None:
    cache.clear()


def _text(body: str, element_id: str) -> str:
    """The words of the page's element `element_id` (up to its section's end), tags out."""
    part = body[body.index(f'id="{element_id}"') :]
    end = part.find("</section>")
    return html.unescape(re.sub(r"<[^>]+>", "", part[: end if end > 0 else None]))


def _flags(body: str, element_id: str) -> list[str]:
    part = body[body.index(f'id="{element_id}"') :]
    end = part.find("</section>")
    found = re.findall(r"⚑ ([^<]+)</li>", part[: end if end > 0 else None])
    return [html.unescape(f).strip() for f in found]


def _duel(bot: User, rival: User, address: str) -> Match:
    match = games.match_create(
        ruleset="duel",
        players=2,
        mode="ranked",
        host=bot,
        paired=[bot, rival],
        ip=address,
        user_agent="python-httpx/0.27",
    )
    games.match_join(code=match.code, user=rival, ip=address, user_agent="Mozilla/5.0 (X11)")
    return Match.objects.get(pk=match.pk)


# A public address, and the server's own loopback (every player of a local `make run` comes
# from it: the case, where the record said "None recorded").
@pytest.mark.parametrize("address", ["203.0.113.9", "127.0.0.1"])
def test_record_and_review_agree_on_a_shared_address(
    make_user: Make, moderator: User, address: str
) -> None:
    bot, rival = make_user("scripted"), make_user("rival")
    match = _duel(bot, rival, address)
    games.match_resign(match_id=match.pk, user=bot)
    dispute = services.dispute_open(
        match_id=match.pk, user=rival, reason="behaviour", text="Same house, I think."
    )
    page = Client()
    page.force_login(moderator)
    review = page.get(reverse("disputes:review", args=[dispute.pk])).content.decode()
    assert "Same address on two sides" in review
    assert review.count(f"<code>{address}</code>") >= 2
    for user, other in ((bot, rival), (rival, bot)):
        record = page.get(reverse("disputes:record", args=[user.pk])).content.decode()
        assert "None recorded" not in record
        assert "No other account was seen at their addresses" not in record
        shared = _text(record, "shared")
        assert other.username in shared and address in shared
        assert f"{match.spoken} with {other.username}: {address}" in _text(record, "same-sides")
        local = "this server's own address" in record
        assert local == (address == "127.0.0.1") == ("this server's own address" in review)


def test_record_flags_the_scripted_player_as_the_review_page_does(
    make_user: Make, moderator: User
) -> None:
    bot, rival = make_user("scripted"), make_user("rival")
    match = _duel(bot, rival, "127.0.0.1")
    corners = {s.user_id: s.corner for s in match.seats.all()}
    assert Seat.objects.get(match=match, user=bot).device == "script"
    match = play_out(
        match, {corners[bot.pk]: hard_policy, corners[rival.pk]: random_policy}, seed=7
    )
    humanlike(match, corners[rival.pk], seed=4)
    dispute = services.dispute_open(
        match_id=match.pk, user=rival, reason="behaviour", text="Instant answers, every turn."
    )
    page = Client()
    page.force_login(moderator)
    review = page.get(reverse("disputes:review", args=[dispute.pk])).content.decode()
    record = page.get(reverse("disputes:record", args=[bot.pk])).content.decode()
    rival_record = page.get(reverse("disputes:record", args=[rival.pk])).content.decode()

    seat = Seat.objects.get(match=match, user=bot)
    seat_ev = evidence.seat_evidence(match, seat)
    think = seat_ev["think"]
    print(f"\nscripted: {think.n} actions, median {think.median} ms, {think.fast:.0%} fast")
    assert think.n >= evidence.MIN_ACTIONS and think.fast is not None and think.fast >= 0.5
    on_review = _flags(review, f"evidence-{seat.corner}")
    on_record = _flags(record, "bot-title")
    # The record's one match is the review's seat: the very same flags, the device among them.
    assert on_review == seat_ev["flags"]
    assert sorted(on_record) == sorted(on_review)
    assert any(f"within {evidence.FAST_MS} ms" in f for f in on_record)
    assert any("device: script" in f for f in on_record)
    assert "Nothing stands out" not in _text(record, "bot-title")
    rival_flags = _flags(rival_record, "bot-title")
    assert not any("script" in f or "ms" in f for f in rival_flags), rival_flags
