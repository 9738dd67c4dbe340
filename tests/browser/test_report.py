"""Issue 31 in a real browser: a finished match's report beside its replay (the chart and the
figures), and a costly move shown on the board from it; a practice game's Hint, its report
when it ends, and the player's luck and decisions on their profile. Screenshots at desktop
and phone."""

from __future__ import annotations

import contextlib
import itertools
import re
import time
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from playwright.sync_api import expect

from .conftest import DESKTOP, PHONE, practise, serve, shoot

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
    # The clock in-process too (the embedded default has no Celery): a bot that plays first
    # rolls, else the practice game waits for it for ever.
    with serve(
        folder, tag="report", setup=SETUP, LUDO_TEST_CLOCK_EVERY="0.2", LUDO_BOT_DELAY="0.01"
    ) as (url, printed):
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
    # The columns are explained on the page (a phone has no hover), the rest named; a
    # visitor's page marks no row "you"; moves only ever give chances away, said with a minus.
    legend = page.locator("#report-legend")
    expect(legend).to_be_visible()
    expect(legend).to_contain_text("the other players’ turns")
    expect(page.locator("#report-figures tr.yours")).to_have_count(0)
    for moves in page.locator("#report-figures tbody td:nth-child(3)").all_inner_texts():
        assert moves[0] in "-−" or moves.startswith("0%"), moves
    shoot(page, "report-desktop")
    # The costliest move first: Show puts the board at the position it was chosen in.
    first = page.locator("#report-costliest .costly-move").first
    expect(first).to_have_attribute("data-seq", str(costly["seq"]))
    first.click()
    config = page.evaluate("JSON.parse(document.getElementById('replay-config').textContent)")
    seqs = list(itertools.accumulate(config["steps"]["seq"]))  # sent as the change each step
    at = int(page.locator("#slider").input_value())
    assert seqs[at + 1] == costly["seq"]
    expect(page.locator("#where-am-i")).to_contain_text(f"Step {at} of")
    # A tap on the chart's right end jumps to the last turn.
    page.locator("#chances-chart").scroll_into_view_if_needed()
    box = page.locator("#chances-chart").bounding_box()
    assert box is not None
    page.mouse.click(box["x"] + box["width"] - 3, box["y"] + box["height"] / 2)
    expect(page.locator("#slider")).to_have_value(str(len(seqs) - 1))
    page.set_viewport_size(PHONE)
    shoot(page, "report-phone")


def test_a_practice_games_hint_then_its_report_and_the_profile(
    report_site: tuple[str, str], people: Any
) -> None:
    site, _ = report_site
    page = people(DESKTOP).page()
    page.on("dialog", lambda dialog: dialog.accept())  # "End this game?"
    practise(page, site, ruleset="classic", players="2")
    expect(page.locator("#seats .bot-tag")).to_have_text("BOT")
    code = re.search(r"/r/([^/]+)/", page.url)
    assert code is not None
    hint = page.locator("#hint")
    expect(hint).to_be_visible()
    # Roll (and play lone moves) until a roll offers a real choice of move.
    choices = page.locator("#legal .move-choice")
    deadline = time.monotonic() + 180
    while True:
        assert time.monotonic() < deadline, "no roll with a choice of move in three minutes"
        if page.locator("#roll:not([disabled])").count():
            page.click("#roll")
            page.wait_for_timeout(200)
            continue
        offered = choices.count()
        if offered >= 2:
            break
        if offered == 1:
            with contextlib.suppress(PlaywrightTimeout):  # it may play itself first
                choices.first.click(timeout=1000)
        page.wait_for_timeout(100)
    hint.click()
    said = page.locator("#hint-text")
    expect(said).to_contain_text("Best: pawn")
    expect(said).to_contain_text("Your chance to win after it:")
    text = said.inner_text()
    said.scroll_into_view_if_needed()
    shoot(page, "practice-hint")
    # The pawn it names is one of the player's lit pawns, and the words say why.
    pawn = re.search(r"Best: pawn (\d)\. (.+)\. Your chance to win after it: (\d+)%", text)
    assert pawn is not None, text
    lit = page.locator(f"#board .pawn.movable[data-pawn='{int(pawn.group(1)) - 1}']")
    assert lit.count() >= 1
    assert len(pawn.group(2)) > 10 and 0 <= int(pawn.group(3)) <= 100
    # The API says the same move, a legal one.
    body = page.request.get(f"{site}/api/matches/{code.group(1)}/hint").json()
    assert body["best"] == int(pawn.group(1)) and body["choices"] >= 2

    # End the game: the result offers its report, made at once for a practice game.
    page.click("#resign")
    link = page.locator("#result #practice-report")
    expect(link).to_be_visible()
    link.click()
    expect(page.locator("#match-report")).to_have_attribute("data-state", "ready")
    expect(page.locator("#report-figures tbody tr")).to_have_count(2)
    expect(page.locator("#chances-chart path.line")).to_have_count(2)
    mine = page.locator("#report-figures tbody tr.yours")
    expect(mine).to_have_count(1)
    expect(mine.locator("td").first).to_contain_text("(you)")

    # The player's profile sums up their analysed matches (this one).
    page.goto(f"{site}/accounts/profile/")
    report = page.locator("#luck-report")
    expect(report).to_contain_text("Luck evens out")
    expect(page.locator("#luck-running tbody tr")).to_have_count(1)
    expect(page.locator("#luck-matches li")).to_have_count(1)
    report.scroll_into_view_if_needed()
    shoot(page, "profile-luck")
    page.set_viewport_size(PHONE)
    report.scroll_into_view_if_needed()
    shoot(page, "profile-luck")
