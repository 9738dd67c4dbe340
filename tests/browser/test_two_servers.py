"""Two players, each on a different server process of the production setup (two uvicorn
servers on two ports, one PostgreSQL and one Redis): what one does reaches the other through
the Redis channel layer, and the clocks run in Celery, not in either server."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import expect

from .conftest import friends_room, on_stack, stack
from .test_site import history, play_until

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def two_servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[str]]:
    if not on_stack():
        pytest.skip("two server processes need DATABASE_URL on PostgreSQL and REDIS_URL")
    with stack(tmp_path_factory.mktemp("two-servers"), tag="two", servers=2) as running:
        assert running.ports[0] != running.ports[1]
        yield running.urls


def test_a_friends_game_across_two_server_processes(two_servers: list[str], people: Any) -> None:
    one, two = two_servers
    # Bob, a guest, opens the other server and is seated at once (the invite promise): Ann's
    # page, whose socket is on the first server, hears it.
    ann, bob, _ = friends_room(people, one, two)
    expect(bob.locator("#seats")).to_contain_text("ann")

    # Both play (Ann with clicks, Bob with the keys) until each has rolled a few times: every
    # roll of one crossed to the other's server to let them play next.
    def both_rolled() -> bool:
        text = history(ann)
        return text.count("Red rolls") >= 3 and text.count("Yellow rolls") >= 3

    play_until([(ann, "click"), (bob, "keys")], both_rolled, 60)

    # The two pages show one game: the same rolls in the same order, once the last update has
    # arrived (how a move reads may differ: a player's own lone move says it played itself).
    def rolls(page: Any) -> list[str]:
        return [line for line in history(page).splitlines() if " rolls " in line]

    for _ in range(100):
        if rolls(ann) == rolls(bob):
            break
        ann.wait_for_timeout(100)
    assert rolls(ann) == rolls(bob) and len(rolls(ann)) >= 6
    expect(ann.locator("#where tbody tr")).to_have_count(2)
