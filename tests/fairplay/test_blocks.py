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


def _blocker_and_others(n: int) -> tuple[User, list[User]]:
    blocker = User.objects.create(username="blocks-a-lot")
    return blocker, [User.objects.create(username=f"blocked{i}") for i in range(n)]


def test_blocks_are_capped(settings: object) -> None:
    """A block is a player's protection, not a way to pick opponents: an account holds at
    most BLOCKS_MAX; unblocking one makes room for another."""
    from fairplay import services

    settings.BLOCKS_MAX = 3  # type: ignore[attr-defined]
    blocker, others = _blocker_and_others(4)
    for other in others[:3]:
        services.block(user=blocker, other=other)
    services.block(user=blocker, other=others[0])  # blocking twice is one block: no refusal
    with pytest.raises(services.FairPlayError) as refused:
        services.block(user=blocker, other=others[3])
    assert refused.value.code == "too_many_blocks"
    assert Block.objects.filter(blocker=blocker).count() == 3
    services.unblock(user=blocker, other=others[0])
    services.block(user=blocker, other=others[3])


def test_blocks_are_rate_limited_and_unblocking_does_not_reset_it(settings: object) -> None:
    from fairplay import services

    settings.BLOCKS_PER_HOUR = 2  # type: ignore[attr-defined]
    blocker, others = _blocker_and_others(2)
    services.block(user=blocker, other=others[0])
    services.unblock(user=blocker, other=others[0])
    services.block(user=blocker, other=others[0])
    services.unblock(user=blocker, other=others[0])
    with pytest.raises(services.FairPlayError) as refused:
        services.block(user=blocker, other=others[1])
    assert refused.value.code == "blocking_too_fast"
    assert not Block.objects.filter(blocker=blocker).exists()


def test_a_refused_block_is_told_in_the_readers_language(settings: object) -> None:
    settings.BLOCKS_MAX = 1  # type: ignore[attr-defined]
    blocker, others = _blocker_and_others(2)
    client = Client(HTTP_ACCEPT_LANGUAGE="fr")
    client.force_login(blocker)
    client.post(reverse("fairplay:block", args=[others[0].username]))
    page = client.post(reverse("fairplay:block", args=[others[1].username]), follow=True)
    text = page.content.decode()
    assert "Vous pouvez bloquer au plus 1 joueurs" in text
    assert not Block.objects.filter(blocked=others[1]).exists()
