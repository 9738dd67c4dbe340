"""A practice game against three bots to its end, with what the page received kept: every
frame its socket heard and every line its history showed. `every_bot_move_arrived` checks
the match's own record against them: each bot's move came as an ``update`` carrying its
events (not only through a later resync of the whole state) and has its line in the history,
and each bot's reason was told."""

from __future__ import annotations

import json
import re
import urllib.request
from typing import Any

from playwright.sync_api import Page, expect

from .conftest import practise
from .test_site import history, play_until

# Before the room's script: its socket's frames kept in order, and every history line the
# page ever showed (the list keeps only the latest lines on screen).
RECORD = """
(() => {
  window.heard = [];
  window.lines = [];
  const Real = window.WebSocket;
  window.WebSocket = class extends Real {
    constructor(...args) {
      super(...args);
      this.addEventListener("message", (e) => window.heard.push(JSON.parse(e.data)));
    }
  };
  const seen = new Set();
  const look = () => {
    for (const li of document.querySelectorAll("#history li")) {
      const key = li.textContent;
      if (!seen.has(key)) { seen.add(key); window.lines.push(key); }
    }
  };
  new MutationObserver(look).observe(document, { childList: true, subtree: true });
})();
"""

MOVES = ("released", "moved")

# The words room.js writes for a move (English).
COLOURS = {"red": "Red", "green": "Green", "yellow": "Yellow", "blue": "Blue"}


def play_against_three_bots(page: Page, site: str, *, seconds: float = 90) -> dict[str, Any]:
    """Play the person's seat (roll, then a lit pawn) of a 4-player quick practice game to its
    end; the match's record (its replay API) with what the page heard and showed."""
    page.add_init_script(RECORD)
    practise(page, site, ruleset="quick", players="4")
    expect(page.locator("#seats .bot-tag")).to_have_count(3)
    code = re.search(r"/r/([^/]+)/", page.url)
    assert code, page.url
    play_until([(page, "click")], lambda: "over" in page.locator("#turn").inner_text(), seconds)
    expect(page.locator("#replay-link")).to_be_visible()
    page.wait_for_timeout(500)  # the last frames drawn
    with urllib.request.urlopen(f"{site}/api/matches/{code.group(1)}/replay", timeout=30) as r:
        record: dict[str, Any] = json.load(r)
    colours = page.evaluate(
        "() => JSON.parse(document.getElementById('room-config').textContent).board.colours"
    )
    record["heard"] = page.evaluate("() => window.heard")
    record["lines"] = page.evaluate("() => window.lines")
    record["colours"] = colours
    record["history"] = history(page)
    return record


def move_line(event: dict[str, Any], colours: list[str]) -> str:
    who = COLOURS.get(colours[event["corner"]], colours[event["corner"]].capitalize())
    pawn = event["pawn"] + 1
    if event["kind"] == "released":
        return f"{who} brings pawn {pawn} out onto the start square"
    if event["square"] < 0:
        return f"{who} moves pawn {pawn} up the home column"
    return f"{who} moves pawn {pawn} to square {event['square']}"


def every_bot_move_arrived(record: dict[str, Any]) -> int:
    """Assert that every bot move of the match came to the page as an ``update`` with its
    events, each with its history line, and every bot reason with its line; returns how many
    bot moves."""
    bots = {s["corner"] for s in record["seats"] if s["bot"]}
    assert len(bots) == 3, record["seats"]
    assert record["status"] == "finished", record["status"]
    updates = [f for f in record["heard"] if f.get("t") == "update"]
    came = {
        (e.get("seq"), e.get("kind"), e.get("corner")): e
        for f in updates
        for e in (f.get("d") or {}).get("events", [])
    }
    # What the bots played before the page's socket opened, the page learnt from its first
    # state: every move after it must come as an update.
    states = [f for f in record["heard"] if f.get("t") == "state"]
    assert states, "the socket never sent the state"
    opened = int(states[0]["d"]["v"])
    wanted = [
        e
        for e in record["events"]
        if e["kind"] in MOVES and e.get("corner") in bots and e["seq"] > opened
    ]
    assert len(wanted) >= 10, len(wanted)
    missing = [e for e in wanted if (e["seq"], e["kind"], e["corner"]) not in came]
    assert not missing, f"{len(missing)} of {len(wanted)} bot moves not in an update: {missing[:3]}"
    lines = set(record["lines"])
    unsaid = [move_line(e, record["colours"]) for e in wanted]
    unsaid = [line for line in unsaid if line not in lines]
    assert not unsaid, f"{len(unsaid)} bot moves with no history line: {unsaid[:3]}"
    # A bot with a choice says why: those reasons came in updates too, each with its line.
    said = [e for e in record["events"] if e["kind"] == "bot_said" and e["seq"] > opened]
    assert said, "no bot ever said why it moved"
    heard_said = [e for e in came.values() if e.get("kind") == "bot_said"]
    assert len(heard_said) == len(said), (len(heard_said), len(said))
    for e in heard_said:
        assert isinstance(e["text"], str) and e["text"], e
        assert any(line.endswith(e["text"]) for line in lines), e["text"]
    return len(wanted)


def no_broadcast_failed(log: str) -> None:
    """The server's log says no broadcast failed (nor was any owed a resync)."""
    for words in ("broadcast of match", "not plain data", "Traceback"):
        assert words not in log, log[log.find(words) - 2000 : log.find(words) + 2000]
