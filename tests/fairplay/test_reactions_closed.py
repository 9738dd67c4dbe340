"""Reactions are refused once a match is over (security review, issue 33), with the coded
error ``over``; the room hides its reaction buttons then (static/js/room.js)."""

from __future__ import annotations

import pytest

from accounts.models import User
from games import services
from games.match.errors import ServiceError
from games.models import Match, MatchEvent
from games.services import reactions
from tests.ranked.matches import finish, ranked_match

pytestmark = pytest.mark.django_db


def test_no_reaction_on_a_finished_match() -> None:
    a, b = User.objects.create(username="fa"), User.objects.create(username="fb")
    match = ranked_match("duel", [a, b])
    reactions.match_react(match_id=match.pk, user=b, reaction="gl")  # while it is played
    finish(match, [a, b])
    with pytest.raises(ServiceError) as over:
        reactions.match_react(match_id=match.pk, user=b, reaction="gg")
    assert over.value.code == "over"
    assert MatchEvent.objects.filter(match=match, kind="reaction").count() == 1


def test_no_reaction_once_a_friend_room_ended() -> None:
    a, b = User.objects.create(username="ga"), User.objects.create(username="gb")
    match = services.match_create(ruleset="classic", players=2, mode="friendly", host=a, first=0)
    services.match_join(code=match.code, user=b)
    services.match_resign(match_id=match.pk, user=a)
    ended = Match.objects.get(pk=match.pk)
    assert ended.ended
    with pytest.raises(ServiceError) as over:
        reactions.match_react(match_id=match.pk, user=a, reaction="sad")
    assert over.value.code == "over"
