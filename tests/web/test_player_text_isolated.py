"""Player-chosen text is printed isolated on every page (`|bdi`, `|isolated`,
accounts/templatetags/player_text.py): a name written with U+202E, from before names refused
it, cannot read as "Kai, medium bot" nor turn the words around it; its controls are dropped."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.contrib.auth.models import Group
from django.test import Client

from accounts.models import User
from audit.clock import db_now
from disputes.models import MODERATORS
from fairplay.models import Report
from ranked.models import Rating
from tournaments import services as tournaments

pytestmark = pytest.mark.django_db

REVERSED = "\u202etob muidem ,iaK"  # on screen: "Kai, medium bot"
SHOWN = "tob muidem ,iaK"  # what is left once the control is dropped


def isolated_everywhere(page: str) -> None:
    """Every place the name is printed is isolated, and no bidi override reaches the page."""
    assert "\u202e" not in page
    places = [m.start() for m in re.finditer(re.escape(SHOWN), page)]
    assert places, "the name is not on the page"
    for at in places:
        before = page[max(0, at - 5) : at]
        assert before.endswith("<bdi>") or before.endswith("\u2068"), page[at - 80 : at + 40]


def test_a_reversed_name_is_isolated_on_every_page_it_shows_on() -> None:
    mallory = User.objects.create_user("mallory", password="pw-for-tests", display_name=REVERSED)
    ann = User.objects.create_user("ann-reader", password="pw-for-tests")
    mod = User.objects.create_user("mod-reader", password="pw-for-tests", is_staff=True)
    mod.groups.add(Group.objects.get_or_create(name=MODERATORS)[0])
    Rating.objects.create(user=mallory, queue="duel", mu=30, sigma=1, ordinal=27, games=20)
    Report.objects.create(reporter=ann, reported=mallory, reason=Report.Reason.ABUSE)
    event = tournaments.create(
        name="Isolated arena",
        kind="arena",
        queue="duel",
        starts_at=db_now() + timedelta(hours=1),
        minutes=30,
    )
    tournaments.join(code=event.code, user=mallory)
    reader, moderator, herself = Client(), Client(), Client()
    reader.force_login(ann)
    moderator.force_login(mod)
    herself.force_login(mallory)
    pages = {
        "profile": reader.get("/players/mallory/"),
        "leaderboard": reader.get("/leaderboards/duel/"),
        "tournament": reader.get(f"/tournaments/{event.code}/"),
        "desk": moderator.get("/fairplay/desk/"),
        "desk player": moderator.get(f"/fairplay/desk/players/{mallory.pk}/"),
        "report": reader.get("/fairplay/report/mallory/"),
        "her own nav": herself.get("/"),
    }
    for name, response in pages.items():
        assert response.status_code == 200, name
        try:
            isolated_everywhere(response.content.decode())
        except AssertionError as e:
            raise AssertionError(f"{name}: {e}") from e
