"""A name written with U+202E (from before names refused it) in a real room: the room prints
it between Unicode's isolates with the control dropped (static/js/room.js `isolate`), so it
reads neither as "Kai, medium bot" nor turns the words around it."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import expect

from .conftest import serve, shoot
from .test_disputes import sign_in

pytestmark = pytest.mark.browser

SETUP = """
from accounts.models import User
from games import services
ann = User.objects.create_user("ann", password="pw-for-tests-1")
mallory = User.objects.create_user("mallory", password="pw-for-tests-1")
User.objects.filter(pk=mallory.pk).update(display_name="\\u202etob muidem ,iaK")
mallory.refresh_from_db()
match = services.match_create(ruleset="duel", players=2, mode="friendly", host=ann, first=0)
services.match_join(code=match.code, user=mallory)
print(match.code)
"""


@pytest.fixture(scope="module")
def room_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    folder = tmp_path_factory.mktemp("names")
    with serve(folder, tag="names", setup=SETUP) as (url, printed):
        yield url, printed.split()[-1]


def test_a_reversed_name_is_isolated_in_the_room(room_site: tuple[str, str], people: Any) -> None:
    site, code = room_site
    page = people().page()
    sign_in(page, site, "ann")
    page.goto(f"{site}/r/{code}/")
    seats = page.locator("#seats")
    expect(seats).to_contain_text("tob muidem ,iaK")
    text = seats.inner_text()
    assert "\u202e" not in text
    assert "\u2068tob muidem ,iaK\u2069" in text
    assert "Kai, medium bot" not in text
    status = page.locator("#status").inner_text()
    assert "\u202e" not in status
    shoot(page, "names-isolated-room")
