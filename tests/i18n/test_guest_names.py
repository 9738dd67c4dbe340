"""A guest's given name ("Guest 1A2B") says "Guest" in the reader's language on every page,
while the wire and the JSON carry it as stored, the same for every reader, with the tag beside
it for the room's script (issue 29). A name a person chose is never translated."""

from __future__ import annotations

import pytest
from django.test import Client
from django.utils import translation

from accounts.models import User
from games import services
from games.match.selectors import room_snapshot

pytestmark = pytest.mark.django_db


def guest(tag: str = "1A2B") -> User:
    return User.objects.create(username=f"guest-{tag.lower()}9999", display_name=f"Guest {tag}")


def test_a_guests_given_name_is_told_in_the_readers_language() -> None:
    g = guest()
    with translation.override("de"):
        assert g.shown_name == str(g) == "Gast 1A2B"
    with translation.override("ur"):
        assert g.shown_name == "مہمان 1A2B"
    with translation.override("en"):
        assert g.shown_name == "Guest 1A2B"
    assert g.name_as_given == "Guest 1A2B" and g.guest_tag == "1A2B"


def test_a_chosen_name_stays_as_it_is() -> None:
    person = User.objects.create(username="ann", display_name="Guest 1A2B")  # an account
    renamed = guest()
    renamed.display_name = "Ravi"
    with translation.override("de"):
        assert person.shown_name == "Guest 1A2B" and person.guest_tag == ""
        assert renamed.shown_name == "Ravi" and renamed.guest_tag == ""


def test_the_wire_keeps_the_stored_name_and_carries_the_tag() -> None:
    host, other = guest("1A2B"), guest("C3D4")
    match = services.match_create(ruleset="classic", players=2, mode="friendly", host=host)
    services.match_join(code=match.code, user=other)
    with translation.override("de"):
        snap = room_snapshot(match)
    seats = {s["name"]: s for s in snap["seats"] if s["taken"]}
    assert set(seats) == {"Guest 1A2B", "Guest C3D4"}
    assert seats["Guest 1A2B"]["guest_tag"] == "1A2B"


def test_the_header_says_guest_in_german() -> None:
    client = Client(HTTP_ACCEPT_LANGUAGE="de")
    g = guest()
    client.force_login(g)
    page = client.get("/").content.decode()
    assert "Gast 1A2B" in page and "Guest 1A2B" not in page
