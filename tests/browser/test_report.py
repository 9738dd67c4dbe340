"""Issue 31 in a real browser: a finished match's report beside its replay (the chart and the
figures), and a costly move shown on the board from it. Screenshots at desktop and phone."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import expect

from .conftest import PHONE, serve, shoot

pytestmark = pytest.mark.browser

SETUP = """
from games.management.commands.simulate_match import simulate
from games.services.analysis import analyse_match
match = simulate(ruleset="duel", players=2, seed="browser-report")
analyse_match(match.pk)
print(match.code)
"""


@pytest.fixture(scope="module")
def report_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    folder = tmp_path_factory.mktemp("report")
    with serve(folder, tag="report", setup=SETUP) as (url, printed):
        yield url, printed.split()[-1]


def test_the_report_chart_and_a_costly_move_on_the_board(
    report_site: tuple[str, str], people: Any
) -> None:
    site, code = report_site
    record = people().page().request.get(f"{site}/api/matches/{code}/replay").json()
    report = record["report"]
    assert report["state"] == "ready"
    costly = max(
        (c for s in report["seats"].values() for c in s["costliest"]), key=lambda c: c["lost"]
    )
    page = people().page()
    page.goto(f"{site}/r/{code}/replay/")
    expect(page.locator("#match-report")).to_have_attribute("data-state", "ready")
    expect(page.locator("#chances-chart path.line")).to_have_count(2)
    expect(page.locator("#report-figures tbody tr")).to_have_count(2)
    shoot(page, "report-desktop")
    # The costliest move first: Show puts the board at the position it was chosen in.
    first = page.locator("#report-costliest .costly-move").first
    expect(first).to_have_attribute("data-seq", str(costly["seq"]))
    first.click()
    frames = page.evaluate("JSON.parse(document.getElementById('replay-config').textContent)")
    at = int(page.locator("#slider").input_value())
    assert frames["frames"][at + 1]["seq"] == costly["seq"]
    expect(page.locator("#where-am-i")).to_contain_text(f"Step {at} of")
    # A tap on the chart's right end jumps to the last turn.
    box = page.locator("#chances-chart").bounding_box()
    assert box is not None
    page.mouse.click(box["x"] + box["width"] - 3, box["y"] + box["height"] / 2)
    expect(page.locator("#slider")).to_have_value(str(len(frames["frames"]) - 1))
    page.set_viewport_size(PHONE)
    shoot(page, "report-phone")
