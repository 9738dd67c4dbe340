"""Leads, never verdicts (issue 33): a scripted booster pair and a scripted fast bot-assisted
account are both listed, with their figures beside the site's population
(``manage.py fairplay_leads``); the ordinary players are not."""

from __future__ import annotations

import io
import random
from typing import Any

import pytest
from django.core.management import call_command

from accounts.models import User
from fairplay import leads
from fairplay.models import Sanction
from games import services
from games.models import Match, Status
from games.models import Move as MoveRow
from games.models import Roll as RollRow
from tests.disputes.play import hard_policy, random_policy
from tests.ranked.matches import finish, ranked_match

from .play import duel

pytestmark = pytest.mark.django_db


def play_some(match: Match, corner: int, policy: Any, *, actions: int, rng: random.Random) -> None:
    """`actions` actions by both seats: `corner` with `policy`, the other at random."""
    for n in range(actions):
        match = Match.objects.get(pk=match.pk)
        state = match.state()
        if match.status != Status.ACTIVE or state is None or state.phase == "over":
            return
        to = state.to_play
        act = f"l{match.pk}-{n}"
        if state.phase == "roll":
            services.match_roll(match_id=match.pk, corner=to, seq=match.seq, action_id=act)
        else:
            chosen = (policy if to == corner else random_policy)(state, rng)
            services.match_move(
                match_id=match.pk,
                corner=to,
                seq=match.seq,
                action_id=act,
                pawn=chosen.pawn,
                pawn_corner=chosen.corner,
            )


def think(match: Match, corner: int, make: Any) -> None:
    for model in (RollRow, MoveRow):
        for row in model.objects.filter(match=match, corner=corner, by="player"):
            row.think_ms = make()
            row.save(update_fields=["think_ms"])


def scripted_site() -> tuple[list[User], User, User, User]:
    rng = random.Random(33)
    people = [User.objects.create(username=f"player{i}") for i in range(10)]
    # The site's population: ranked duels between random pairs, human think times.
    for _ in range(30):
        a, b = rng.sample(people, 2)
        finish(ranked_match("duel", [a, b]), [a, b])
    # A booster pair: the feeder loses to the booster again and again, at once.
    booster, feeder = (
        User.objects.create(username="booster"),
        User.objects.create(username="feeder"),
    )
    for _ in range(6):
        finish(ranked_match("duel", [booster, feeder]), [booster, feeder])
    # An account that played like a person, then fast and strong (a bot's help).
    helped = User.objects.create(username="helped")
    for n in range(8):
        match = duel(helped, people[n], ranked=False)
        recent = n >= 3
        play_some(match, 0, hard_policy if recent else random_policy, actions=40, rng=rng)
        if recent:
            think(match, 0, lambda: rng.randint(60, 140))
        else:
            think(match, 0, lambda: int(rng.lognormvariate(7.25, 0.6)))
        think(match, 2, lambda: int(rng.lognormvariate(7.25, 0.6)))
        services.match_resign(match_id=match.pk, user=people[n])
    return people, booster, feeder, helped


def test_a_booster_pair_and_a_bot_assisted_account_are_listed_beside_the_population() -> None:
    people, booster, feeder, helped = scripted_site()
    pairs = leads.booster_pairs()
    assert [(p.winner, p.loser) for p in pairs] == [(booster, feeder)]
    pair = pairs[0]
    assert pair.meetings == 6 and pair.loser_lost == 6 and pair.early == 6
    assert pair.ratio >= leads.MEET_RATIO
    far = leads.far_from_their_history()
    assert [f.player for f in far] == [helped]
    assert far[0].recent_think is not None and far[0].history_think is not None
    assert far[0].recent_think * leads.THINK_RATIO <= far[0].history_think
    out = io.StringIO()
    call_command("fairplay_leads", stdout=out)
    printed = out.getvalue()
    print(printed)
    assert "population: 12 players, 36 ranked matches" in printed
    assert "booster beat feeder: met 6 times" in printed
    assert "helped: think" in printed
    # Leads, never verdicts: nobody was sanctioned.
    assert not Sanction.objects.exists()


def test_the_leads_page_is_for_moderators() -> None:
    from django.contrib.auth.models import Group
    from django.test import Client

    from disputes.models import MODERATORS

    mod = User.objects.create(username="leadmod", is_staff=True)
    mod.groups.add(Group.objects.get_or_create(name=MODERATORS)[0])
    a, b = User.objects.create(username="la"), User.objects.create(username="lb")
    for _ in range(5):
        finish(ranked_match("duel", [a, b]), [a, b])
    client = Client()
    client.force_login(a)
    assert client.get("/fairplay/desk/leads/").status_code == 403
    client.force_login(mod)
    page = client.get("/fairplay/desk/leads/").content.decode()
    # Two players who only ever meet each other: what chance gives, no lead.
    assert 'id="population"' in page and "2 players, 5 ranked matches" in page
    assert 'id="booster-pairs"' not in page and "Booster pairs" in page
