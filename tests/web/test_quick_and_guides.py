"""Issue 30: the Quick preset on the site (its queue, the home page, the rules page), the rules
page's first screen a newcomer reads in two minutes, and a guide for every preset, linked from
the home page, the rules page and the room."""

from __future__ import annotations

import json
import re

import pytest
from django.test import Client

from accounts.models import User
from games import services
from games.engine import RULESETS
from ranked.models import Queue
from ranked.ratings import QUEUE_RULES

pytestmark = pytest.mark.django_db
JSON = {"HTTP_ACCEPT": "application/json"}


def _json_script(html: str, element_id: str) -> object:
    found = re.search(
        rf'<script id="{element_id}" type="application/json">(.*?)</script>', html, re.S
    )
    assert found, f"no {element_id} on the page"
    return json.loads(found.group(1))


def test_the_rules_page_opens_with_the_basics_then_how_the_presets_differ() -> None:
    html = Client().get("/rules/").content.decode()
    first = html.index('id="basics-title"')
    # A row of links that jump, then the six points, then the full tables, each preset folded.
    assert html.index('id="contents"') < first < html.index('id="classic"')
    for name in RULESETS:
        assert f'<details class="preset" id="{name}">' in html
    for key in ("goal", "turn", "six", "capture", "safe", "home"):
        assert f'id="basic-{key}"' in html
    boards = _json_script(html, "basics-data")
    assert isinstance(boards, list) and len(boards) == 6
    assert all(len(b["frames"]) == 1 and b["board"]["size"] == 52 for b in boards)
    # The capture board shows the capture done: Green's pawn back in its yard.
    capture = boards[3]["frames"][0]
    assert capture["pawns"][0][0] == 20 and capture["pawns"][1][0] == -1
    table = html[html.index('id="differences"') :]
    table = table[: table.index("</table>")]
    for name in RULESETS:
        assert f'href="/rules/{name}/"' in table
    assert ">Quick</h2>" in html


@pytest.mark.parametrize("name", sorted(RULESETS))
def test_every_preset_has_a_guide_how_to_play_and_how_to_win(name: str) -> None:
    html = Client().get(f"/rules/{name}/").content.decode()
    assert "How to play" in html and "How to win" in html
    assert html.count('class="mini"') >= 2  # its worked examples, on small boards
    data = _json_script(html, "rules-data")
    assert isinstance(data, dict) and list(data) == [name]
    tips = html[html.index('class="tips"') :]
    assert tips.count("<li>") >= 3
    others = [n for n in RULESETS if n != name]
    assert all(f'href="/rules/{o}/"' in html for o in others)


def test_the_quick_guide_says_its_three_changes() -> None:
    html = Client().get("/rules/quick/").content.decode()
    assert "a 1 or a 6" in html
    assert "2 pawns of each player on their start square" in html
    assert "the first pawn home wins" in html
    assert "12 seconds" in html
    assert Client().get("/rules/nope/").status_code == 404


def test_the_home_page_and_the_room_link_the_guides() -> None:
    home = Client().get("/").content.decode()
    guides = home[home.index('id="preset-guides"') :]
    for name in RULESETS:
        assert f'href="/rules/{name}/"' in guides
    assert '<option value="quick"' in home
    ann = User.objects.create_user("ann", password="a-long-pass-42")
    match = services.match_create(ruleset="quick", players=4, mode="practice", host=ann)
    client = Client()
    client.force_login(ann)
    room = client.get(f"/r/{match.code}/").content.decode()
    assert 'id="preset-guide" href="/rules/quick/"' in room or (
        'href="/rules/quick/" id="preset-guide"' in room
    )


def test_quick_has_its_own_queue_for_four() -> None:
    assert QUEUE_RULES[Queue.QUICK_4] == ("quick", 4)
    ranked = Client()
    ranked.force_login(User.objects.create_user("rita", password="a-long-pass-42"))
    assert 'value="quick-4"' in ranked.get("/play/ranked/").content.decode()
    casual = Client()
    body = casual.post("/play/queue/join", {"queue": "quick-4", "ranked": "0"}, **JSON).json()
    assert body["state"] == "waiting" and body["queue"] == "quick-4"
    assert body["label"] == "Quick, 4 players"
