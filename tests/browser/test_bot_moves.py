"""Every bot move reaches the page on the production stack (tests/stack.py: uvicorn with two
workers and DEBUG off, PostgreSQL, the Redis channel layer, Celery worker and beat), as on
`make run`'s own server (tests/browser/test_embedded.py): a practice game against three bots
to its end, each bot's move an ``update`` with its events and its history line, no broadcast
failed, and the report stored within seconds of the end."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.stack import Stack

from .bot_game import every_bot_move_arrived, no_broadcast_failed, play_against_three_bots
from .conftest import DESKTOP, on_stack, shoot, stack
from .test_embedded import report_within

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def production(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    if not on_stack():
        pytest.skip("the production stack needs DATABASE_URL (PostgreSQL) and REDIS_URL")
    folder: Path = tmp_path_factory.mktemp("bot-moves")
    with stack(folder, tag="botmoves", LUDO_BOT_DELAY="0.05") as running:
        yield running


def test_on_the_stack_every_bot_move_reaches_the_page_and_the_report_follows(
    production: Stack, people: Any
) -> None:
    site = production.urls[0]
    page = people(DESKTOP).page()
    record = play_against_three_bots(page, site)
    shoot(page, "three-bots-over-stack")
    assert every_bot_move_arrived(record) >= 10
    report_within(site, record["code"], 10)
    for name in ("uvicorn0", "worker", "beat"):
        no_broadcast_failed(production.log(name))
