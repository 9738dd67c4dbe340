"""A local game with an undo, in a real browser: the U key and the Undo button take back the
last person's roll or move with the computer's turn after it; the replay still checks every
roll. Screenshots at phone and desktop sizes (artefacts/screenshots/)."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from .conftest import DESKTOP, PHONE, open_with_socket_played, shoot
from .test_site import history, play_until

pytestmark = pytest.mark.browser


def record(page: Page, site: str, code: str) -> dict[str, Any]:
    """The match's record from the JSON API (events, rolls), as this browser's session."""
    response = page.request.get(f"{site}/api/matches/{code}/replay")
    assert response.ok, response.text()
    return response.json()


def test_a_local_game_with_an_undo(site: str, people: Any) -> None:
    person = people(PHONE)
    page = person.page()
    page.goto(site + "/play/local/")
    page.select_option("select[name=ruleset]", "family")
    page.select_option("select[name=players]", "2")
    page.select_option("select[name=seat0]", "person")
    page.select_option("select[name=seat2]", "easy")
    page.click("button[type=submit]")
    expect(page.locator("#seats .bot-tag")).to_have_count(1)
    code = page.url.rstrip("/").split("/")[-1]
    # Nothing to take back yet: no Undo button.
    expect(page.locator("#roll")).to_be_enabled()
    expect(page.locator("#undo")).to_be_hidden()

    # Red rolls; U takes the roll back and Red rolls again.
    page.click("#roll")
    expect(page.locator("#history")).to_contain_text("Red rolls")
    expect(page.locator("#undo")).to_be_visible()
    # Focus inside the page, on nothing that acts (a tap on the board would roll when the
    # computer has already played and it is Red's roll again).
    page.locator("#history").click()
    page.keyboard.press("u")
    expect(page.locator("#history")).to_contain_text("Undo: back to Red")
    events = record(page, site, code)["events"]
    undone = [e for e in events if e["kind"] == "undone"]
    assert len(undone) == 1 and undone[0]["corner"] == 0
    rolled = [e for e in events if e["kind"] == "rolled"]
    assert undone[0]["from"] == rolled[0]["seq"], "the undo took back Red's roll"

    # Play on until the computer (Yellow) has had a turn since the undo (the history is newest
    # first), Red is to roll again and the last roll was Yellow's (after a six Red rolls again
    # with no Yellow turn since Red's last move: an undo then takes back only Red's own).
    def yellow_played() -> bool:
        since = history(page).split("Undo: back to Red")[0]
        if "Yellow rolls" not in since or not page.locator("#roll:not([disabled])").count():
            return False
        return record(page, site, code)["rolls"][-1]["corner"] == 2

    play_until([(page, "click")], yellow_played, 40)
    before = record(page, site, code)
    yellow_rolls = [r for r in before["rolls"] if r["corner"] == 2]
    assert yellow_rolls
    shoot(page, "local-before-undo")

    # The Undo button takes back Red's last roll or move and Yellow's turn after it.
    page.click("#undo")
    expect(page.locator("#history")).to_contain_text("Undo: back to Red", use_inner_text=True)
    expect(page.locator("#history li", has_text="Undo: back to Red")).to_have_count(2)
    after = record(page, site, code)
    last = [e for e in after["events"] if e["kind"] == "undone"][-1]
    withdrawn = [r for r in after["rolls"] if last["from"] <= r["seq"] <= last["to"]]
    assert any(r["corner"] == 2 for r in withdrawn), "Yellow's turn was taken back too"
    assert last["corner"] == 0
    expect(page.locator("#roll")).to_be_enabled()
    expect(page.locator("#seats .to-play")).to_contain_text("Red")
    shoot(page, "local-undo")
    page.set_viewport_size(DESKTOP)
    expect(page.locator("#undo")).to_be_visible()
    shoot(page, "local-undo")

    # Red plays on after the undo (fresh dice), then ends the game: the replay steps through
    # the undos and every roll, the withdrawn ones included, matches the revealed seed.
    rolls = len(after["rolls"])
    play_until([(page, "click")], lambda: len(record(page, site, code)["rolls"]) >= rolls + 2, 20)
    page.once("dialog", lambda d: d.accept())
    page.click("#resign")
    expect(page.locator("#replay-link")).to_be_visible()
    expect(page.locator("#undo")).to_be_hidden()
    page.click("#replay-link a")
    expect(page.locator("#proof-result")).to_contain_text("rolls match the seed")
    expect(page.locator("#all-steps")).to_contain_text("Undo: back to Red")
    expect(page.locator("#all-steps")).to_contain_text("(taken back)")
    shoot(page, "replay-with-undo")


def test_shield_chosen_after_the_roll_goes_with_the_move(site: str, people: Any) -> None:
    """Power: with a Shield in stock and no bonus used on the roll, the room offers "Shield
    the pawn I move"; ticked, the move frame carries ``shield``. The socket is played by
    the test (Playwright's WebSocket routing), standing in for a server position where the
    player holds a Shield; the services' side is tested in tests/realtime."""
    from games.engine import move, new_game, roll, rules_from_name
    from games.match.selectors import _legal

    page = people(PHONE).page()
    page.goto(site + "/play/local/")  # a guest session, with a local game of its own
    page.click("button[type=submit]")
    expect(page.locator("#roll")).to_be_visible()
    csrf = page.request.get(f"{site}/api/session").json()["csrf"]
    made = page.request.post(
        f"{site}/api/matches",
        data={"ruleset": "party", "players": 2, "mode": "local", "options": ["power"]},
        headers={"X-CSRFToken": csrf, "Referer": site + "/"},
    )
    assert made.status == 201, made.text()
    code = made.json()["code"]
    snap = page.request.get(f"{site}/api/matches/{code}").json()
    red = snap["seats"][0]["corner"]
    state, _ = roll(new_game(rules_from_name("party+power"), 2, first=red), 6)
    v = snap["v"] + 1
    position = {
        **snap,
        "v": v,
        "to_play": red,
        "phase": "move",
        "die": 6,
        "face": 6,
        "legal": [_legal(m) for m in state.legal],
        "stock": [0, 0, 1],
        "bonus": "",
    }
    sent: list[dict[str, Any]] = []
    sockets: list[Any] = []

    def server(ws: Any) -> None:
        sockets.append(ws)
        ws.on_message(lambda m: sent.append(json.loads(m)))
        ws.send(json.dumps({"t": "state", "v": v, "d": position}))

    open_with_socket_played(page, site, code, server)
    box = page.locator("#shield-box")
    expect(box).to_be_visible()
    expect(box).to_contain_text("Shield the pawn I move (1)")
    expect(page.locator("#bonuses")).to_be_hidden()
    page.check("#shield-move")
    shoot(page, "room-shield-after-roll")
    page.keyboard.press("1")
    for _ in range(60):
        if sent:
            break
        page.wait_for_timeout(50)
    assert sent, "no move frame was sent"
    assert sent[-1]["t"] == "move" and sent[-1]["v"] == v
    assert sent[-1]["d"] == {"pawn": 0, "shield": True}
    # A roll that used Double roll or Dice control has its bonus: no Shield on offer then.
    used = {**position, "v": v + 1, "bonus": "double", "die": 12}
    sockets[0].send(json.dumps({"t": "state", "v": v + 1, "d": used}))
    expect(box).to_be_hidden()
    # Four pawns out of the yard onto one square: one line in the list.
    expect(page.locator("#legal button")).to_have_count(1)
    # A shielded pawn is drawn with its shield ring and says so to a screen reader.
    out, _ = move(state, state.legal[0])
    guarded = {**used, "v": v + 2, "pawns": [list(r) for r in out.pawns]}
    guarded["shields"] = [[red, red, state.legal[0].pawn]]  # (given by, pawn's corner, pawn)
    sockets[0].send(json.dumps({"t": "state", "v": v + 2, "d": guarded}))
    pawn = page.locator(".ludo-board .pawn.shielded")
    expect(pawn).to_have_count(1)
    expect(pawn).to_have_attribute("aria-label", re.compile(r"pawn 1, .*shielded$"))
    shoot(page, "room-shielded-pawn")
