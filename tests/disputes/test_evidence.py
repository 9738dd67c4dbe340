"""Bot evidence on matches really played through the services: a scripted player acting the
moment it can, the Hard bot, and a scripted player choosing at random. The figures are
printed (they are measurements); what is asserted is what must hold whatever the dice: the
think times are the ones stored, and the flags follow the thresholds."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest
from django.core.cache import cache
from django.test import Client
from django.urls import reverse

from accounts.models import User
from disputes import evidence, services
from games import services as games
from games.models import Match, Move, Roll, Seat
from tests.disputes.play import hard_policy, play_out, random_policy

Make = Callable[..., User]


@pytest.fixture(autouse=True)
def fresh_cache() -> None:
    cache.clear()


def practice(user: User, bots: dict[int, str] | None = None) -> Match:
    return games.match_create(
        ruleset="classic", players=2, mode="practice", host=user, bots=bots or {2: "hard"}
    )


def humanlike(match: Match, corner: int, seed: int) -> None:
    """Give a seat's stored actions think times like people's (a log-normal around 1.4 s),
    as the site's population to compare with: a test cannot wait for people."""
    rng = random.Random(seed)
    for model in (Roll, Move):
        for row in model.objects.filter(match=match, corner=corner, by="player"):
            row.think_ms = int(rng.lognormvariate(7.25, 0.6))
            row.save(update_fields=["think_ms"])


def test_a_scripted_fast_player_and_the_hard_bot_stand_out(
    make_user: Make, moderator: User
) -> None:
    people = [make_user() for _ in range(3)]
    for i, person in enumerate(people):  # the site's population: random, human-paced play
        played = play_out(practice(person), {0: random_policy}, seed=10 + i)
        humanlike(played, 0, seed=i)
    fast = make_user("scripted")
    match = play_out(practice(fast), {0: hard_policy}, seed=99)
    seat_fast = Seat.objects.get(match=match, corner=0)
    seat_bot = Seat.objects.get(match=match, corner=2)
    stored = evidence.seat_think_ms(match, seat_fast)
    assert len(stored) == Roll.objects.filter(match=match, corner=0, by="player").count() + (
        Move.objects.filter(match=match, corner=0, by="player").count()
    )
    fast_ev = evidence.seat_evidence(match, seat_fast)
    bot_ev = evidence.seat_evidence(match, seat_bot)
    population = fast_ev["population"]
    print(
        f"\nscripted player: {fast_ev['think'].n} actions, median "
        f"{fast_ev['think'].median:.0f} ms, {fast_ev['think'].fast:.0%} under "
        f"{evidence.FAST_MS} ms; Expert agreement "
        f"{fast_ev['agree'].share:.0%} of {fast_ev['agree'].decisions}"
        f"\nHard bot: median {bot_ev['think'].median:.0f} ms; Expert agreement "
        f"{bot_ev['agree'].share:.0%} of {bot_ev['agree'].decisions}"
        f"\npopulation (random, human-paced): median {population.median:.0f} ms; Expert agreement "
        f"{fast_ev['pop_agree'].share:.0%} of {fast_ev['pop_agree'].decisions}"
        f"\nflags: scripted {fast_ev['flags']}; bot {bot_ev['flags']}"
    )
    # The thresholds, applied to the figures as measured.
    think = fast_ev["think"]
    assert (think.fast >= 0.5) == any("of actions came within" in f for f in fast_ev["flags"])
    assert (think.median < population.median / 4) == any(
        "under a quarter" in f for f in fast_ev["flags"]
    )
    for ev in (fast_ev, bot_ev):
        share, pop = ev["agree"].share, ev["pop_agree"].share
        expert_flag = any("Expert" in f for f in ev["flags"])
        enough = ev["agree"].decisions >= evidence.MIN_DECISIONS
        assert expert_flag == (enough and (share >= 0.95 or share - pop >= 0.25))


def test_the_review_page_shows_think_times_agreement_and_device(
    make_user: Make, moderator: User
) -> None:
    from tests.ranked.matches import ranked_match

    a, b = make_user(), make_user()
    match = ranked_match("duel", [a, b])
    Seat.objects.filter(match=match, user=a).update(user_agent="python-httpx/0.27", device="script")
    corners = {s.user_id: s.corner for s in match.seats.all()}
    policies = {corners[a.pk]: hard_policy, corners[b.pk]: random_policy}
    match = play_out(match, policies, seed=5)
    humanlike(match, corners[b.pk], seed=1)
    dispute = services.dispute_open(
        match_id=match.pk, user=b, reason="behaviour", text="My opponent answered instantly."
    )
    page = Client()
    page.force_login(moderator)
    body = page.get(reverse("disputes:review", args=[dispute.pk])).content.decode()
    assert "Bot evidence per seat" in body and "python-httpx/0.27" in body
    assert f'id="evidence-{corners[a.pk]}"' in body and "Expert agreement" in body
    assert "the site's players" in body and "their recent matches" in body
    ev = evidence.seat_evidence(match, Seat.objects.get(match=match, user=a))
    for flag in ev["flags"]:
        assert flag.replace("'", "&#x27;") in body
    record = page.get(reverse("disputes:record", args=[a.pk])).content.decode()
    assert "Bot evidence over their last" in record and match.code in record
