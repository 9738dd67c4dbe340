"""The level pickers (the practice form, a friends' room's start form) read the stored ladder:
every level in order, weakest first, each option short (its name and measured strength), and
the chosen level's description (how it plays, its strength in full) beside the picker as the
choice changes."""

from __future__ import annotations

import json
from typing import Any

import pytest
from playwright.sync_api import expect

from games import services
from games.bots import BOTS
from games.web.ladder import LADDER_FILE

pytestmark = pytest.mark.browser


def shows_the_ladder(page: Any, form: str) -> None:
    """The level picker in `form` lists every level short, with the stored ladder's figure,
    and describes the chosen one in full beside it, as the choice changes."""
    stored = json.loads(LADDER_FILE.read_text())["levels"]
    assert [row["level"] for row in stored] == list(BOTS)
    select = page.locator(f"{form} select[name=level]")
    about = page.locator(f"{form} #level-about")
    options = select.locator("option")
    # The page may still be on its way (the friends' form's submit navigates): wait for it.
    expect(options).to_have_count(len(BOTS))
    assert options.evaluate_all("os => os.map(o => o.value)") == list(BOTS)
    texts = options.all_inner_texts()
    for i, (row, text) in enumerate(zip(stored, texts, strict=True), start=1):
        # Short, so the select never cuts it: the name and its place on the ladder; no bare
        # "wins 80%", which reads as "beats you 80% of the time".
        assert text == f"{row['level'].capitalize()} · strength {i} of {len(stored)}"
    # The default level is described at first (as the page is without its script) ...
    assert select.input_value() == services.DEFAULT_BOT_LEVEL
    assert about.inner_text().startswith(services.DEFAULT_BOT_LEVEL.capitalize() + " — ")
    # ... and each level chosen in turn is described in full, with its stored figure.
    for row in stored:
        select.select_option(row["level"])
        text = about.inner_text()
        assert text.startswith(row["level"].capitalize() + " — ")
        assert text.endswith(f"wins {round(row['rate'] * 100)}% against a random mover")


def test_the_practice_form_shows_each_level_with_its_measured_strength(
    site: str, people: Any
) -> None:
    page = people().page()
    page.goto(site + "/")
    shows_the_ladder(page, "form.play-now")
    # A friends' room's host picks the computer for the empty seats the same way.
    page.goto(site + "/")
    page.locator("form[action='/play/friends/'] button[type=submit]").click()
    shows_the_ladder(page, "form.start-form")
    # The one-device page offers the same levels for each computer seat.
    page.goto(site + "/play/local/")
    seat = page.locator("select[name=seat1] option")
    assert seat.evaluate_all("os => os.map(o => o.value)") == ["person", *BOTS]
    # The seats share one description: it follows the seat last changed, a person included.
    about = page.locator("#seat-level-about")
    page.select_option("select[name=seat1]", "expert")
    assert about.inner_text().startswith("Expert — ")
    page.select_option("select[name=seat1]", "person")
    assert about.inner_text().startswith("A person — ")
