"""The replay's speed choice: 0.5x to 4x, the autoplay at that pace, remembered on the device;
and the steps, sent compactly, read back into the same positions as the match's own."""

from __future__ import annotations

import json
import time
import urllib.request
from typing import Any

import pytest
from playwright.sync_api import expect

from .conftest import DESKTOP, PHONE, practise, shoot
from .test_site import history, play_until

pytestmark = pytest.mark.browser


def step_shown(page: Any) -> int:
    return int(page.locator("#slider").input_value())


def test_the_replay_plays_at_the_speed_chosen_and_remembers_it(site: str, people: Any) -> None:
    page = people(DESKTOP).page()
    practise(page, site, players="2")
    expect(page.locator("#roll")).to_be_enabled()
    play_until([(page, "keys")], lambda: history(page).count("rolls") >= 10, 20)
    page.once("dialog", lambda d: d.accept())
    page.click("#resign")
    expect(page.locator("#replay-link")).to_be_visible()
    page.click("#replay-link a")
    expect(page.locator("#where-am-i")).to_contain_text("Step 0 of")
    last = int(page.locator("#slider").get_attribute("max") or 0)
    assert last >= 8, last

    # The steps read back from the compact arrays: the last one is the match's own position.
    code = page.url.rstrip("/").split("/")[-2]
    with urllib.request.urlopen(f"{site}/api/matches/{code}", timeout=30) as r:
        final = json.load(r)
    page.click("#last")
    pawns = page.evaluate(
        "() => [...document.querySelectorAll('#board .pawn')].map((p) =>"
        " [Number(p.dataset.corner), Number(p.dataset.pawn), Number(p.dataset.progress)])"
    )
    # (The snapshot leaves out the pawns of the seat that resigned; the replay keeps them.)
    kept = [[c, p, v] for c, row in enumerate(final["pawns"]) for p, v in enumerate(row)]
    assert len(kept) == 4 and all(pawn in pawns for pawn in kept), (pawns, kept)

    speed = page.locator("#speed")
    expect(speed).to_have_value("1")
    assert [o.strip() for o in speed.locator("option").all_inner_texts()] == [
        "0.5×",
        "1×",
        "2×",
        "4×",
    ]
    speed.select_option("4")
    page.click("#first")
    page.click("#play")
    began = time.monotonic()
    page.wait_for_function("() => Number(document.getElementById('slider').value) >= 6")
    # Six steps at 1x take 6.6 s; at 4x, 1.65 s (and a busy machine only slows it).
    assert time.monotonic() - began < 5.5
    page.click("#play")  # pause

    # Remembered on this device: the next replay opens at 4x, and a phone's page too.
    page.reload()
    expect(page.locator("#speed")).to_have_value("4")
    shoot(page, "replay-speed")
    phone = page.context.new_page()
    phone.set_viewport_size(PHONE)
    phone.goto(page.url)
    expect(phone.locator("#speed")).to_have_value("4")
    shoot(phone, "replay-speed")
    phone.close()
