"""A player's dice luck match by match is public, as each match's report is: the profile shows
its list to every reader, and the figures are the ones the public replay API carries."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from accounts.models import User
from games import services
from games.models import Match, Status
from games.services.analysis import analyse_match

pytestmark = pytest.mark.django_db


def test_the_profiles_luck_list_is_public_and_agrees_with_the_replay_api() -> None:
    ann = User.objects.create_user("luck-ann", password="pw-for-tests")
    bob = User.objects.create_user("luck-bob", password="pw-for-tests")
    match = services.match_create(ruleset="duel", players=2, mode="friendly", host=ann, first=0)
    services.match_join(code=match.code, user=bob)
    for i in range(12):  # a few turns, so the dice have given or taken something
        match.refresh_from_db()
        state = match.state()
        assert state is not None
        corner = state.to_play
        if state.phase == "roll":
            services.match_roll(match_id=match.pk, corner=corner, seq=match.seq, action_id=f"r{i}")
        else:
            move = state.legal[0]
            services.match_move(
                match_id=match.pk,
                corner=corner,
                seq=match.seq,
                action_id=f"m{i}",
                pawn=move.pawn,
                pawn_corner=move.corner,
            )
    services.match_resign(match_id=match.pk, user=bob)
    assert Match.objects.get(pk=match.pk).status == Status.FINISHED
    analyse_match(match.pk)
    seats = Client().get(f"/api/matches/{match.code}/replay").json()["report"]["seats"]
    luck = float(seats["0"]["luck"]) * 100  # ann's seat
    for reader in (Client(), _signed_in(bob), _signed_in(ann)):
        page = reader.get("/players/luck-ann/").content.decode()
        listed = re.search(r'<ol class="history" id="luck-matches">(.*?)</ol>', page, re.S)
        assert listed, "the list of reports is not on the page"
        assert f'href="/r/{match.code}/replay/#match-report"' in listed.group(1)
        shown = re.search(r"dice (-?[\d.]+)%", listed.group(1))
        assert shown and float(shown.group(1)) == pytest.approx(luck, abs=0.05)


def _signed_in(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client
