"""Block a player from their profile (issue 33): audited, undone by Unblock; in a room the
blocker's page is told the blocked player's corners, whose reactions it does not show
(static/js/room.js: `hiddenReactions`)."""

from __future__ import annotations

import json
import re

import pytest
from django.test import Client
from django.urls import reverse

from accounts.models import User
from audit import actions
from audit.models import AuditEntry
from fairplay.models import Block

from .play import duel

pytestmark = pytest.mark.django_db


def config_of(page: str) -> dict[str, object]:
    found = re.search(r'<script id="room-config" type="application/json">(.*?)</script>', page)
    assert found
    return dict(json.loads(found.group(1)))


def test_block_from_the_profile_hides_their_reactions_in_the_room() -> None:
    ann, bob = User.objects.create(username="bann"), User.objects.create(username="bbob")
    client = Client()
    client.force_login(ann)
    profile = client.get(reverse("profile", args=[bob.username])).content.decode()
    assert 'id="block"' in profile
    response = client.post(reverse("fairplay:block", args=[bob.username]), follow=True)
    assert "You blocked bbob" in response.content.decode()
    assert Block.objects.filter(blocker=ann, blocked=bob).exists()
    assert AuditEntry.objects.filter(action=actions.PLAYER_BLOCKED).count() == 1
    room = duel(ann, bob, ranked=False)  # ann corner 0, bob corner 2
    assert config_of(client.get(reverse("room", args=[room.code])).content.decode())[
        "hidden_reactions"
    ] == [2]
    # Bob, who blocked nobody, sees Ann's reactions.
    other = Client()
    other.force_login(bob)
    assert (
        config_of(other.get(reverse("room", args=[room.code])).content.decode())["hidden_reactions"]
        == []
    )
    client.post(reverse("fairplay:unblock", args=[bob.username]))
    assert not Block.objects.exists()
    assert (
        config_of(client.get(reverse("room", args=[room.code])).content.decode())[
            "hidden_reactions"
        ]
        == []
    )


def test_a_guest_cannot_block_and_nobody_blocks_themselves() -> None:
    ann = User.objects.create(username="cann")
    client = Client()
    client.force_login(ann)
    response = client.post(reverse("fairplay:block", args=[ann.username]), follow=True)
    assert "You cannot block yourself" in response.content.decode()
    assert not Block.objects.exists()
    guest = User.objects.create(username="guest-00ab12cd")
    client.force_login(guest)
    client.post(reverse("fairplay:block", args=[ann.username]))
    assert not Block.objects.exists()
