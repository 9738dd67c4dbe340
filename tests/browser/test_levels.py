"""The level picker on the practice form reads the stored ladder: every level in order,
weakest first, with how it plays and its measured strength."""

from __future__ import annotations

import json
from typing import Any

import pytest

from games.bots import BOTS
from games.web.ladder import LADDER_FILE

pytestmark = pytest.mark.browser


def test_the_practice_form_shows_each_level_with_its_measured_strength(
    site: str, people: Any
) -> None:
    stored = json.loads(LADDER_FILE.read_text())["levels"]
    page = people().page()
    page.goto(site + "/")
    options = page.locator("form.play-now select[name=level] option")
    assert options.evaluate_all("os => os.map(o => o.value)") == list(BOTS)
    texts = options.all_inner_texts()
    for row, text in zip(stored, texts, strict=True):
        assert text.startswith(row["level"].capitalize() + " — ")
        assert text.endswith(f"wins {round(row['rate'] * 100)}% against a random mover")
    # The one-device page offers the same levels for each computer seat.
    page.goto(site + "/play/local/")
    seat = page.locator("select[name=seat1] option")
    assert seat.evaluate_all("os => os.map(o => o.value)") == ["person", *BOTS]
