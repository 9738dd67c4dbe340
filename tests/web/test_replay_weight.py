"""A long game's replay page stays light: its thousand-odd steps go as compact arrays (each
sentence once, only the pawns that moved), so the whole page, report included, is under
150 KB in English and in the languages with the longest words in bytes."""

from __future__ import annotations

import itertools
import json
import re
from typing import Any

import pytest
from django.test import Client

from games.management.commands.simulate_match import simulate
from games.match.replay import load_actions, replay
from games.services.analysis import analyse_match

LIMIT = 150_000


def config_of(html: str) -> dict[str, Any]:
    found = re.search(r'<script id="replay-config" type="application/json">(.*?)</script>', html)
    assert found, "no replay-config"
    parsed: dict[str, Any] = json.loads(found.group(1))
    return parsed


@pytest.mark.django_db
def test_a_long_games_replay_page_weighs_under_150_kb(client: Client) -> None:
    # Four beginner bots at a classic table: a long game (some thousand steps).
    match = simulate(ruleset="classic", players=4, seed="2", level="beginner")
    steps = len(load_actions(match)) + 1
    assert steps >= 1000, steps
    analyse_match(match.pk)
    for lang in ("en", "bn", "hi", "ar"):
        html = client.get(f"/r/{match.code}/replay/?lang={lang}").content.decode()
        weight = len(html.encode())
        assert weight < LIMIT, (lang, weight)
        assert 'id="replay-report"' in html  # the report is in the weight
        config = config_of(html)
        assert len(config["steps"]["seq"]) == steps
        if lang == "en":
            # Every step's seq read back; the last position is the match's own.
            seqs = list(itertools.accumulate(config["steps"]["seq"]))
            assert seqs[-1] == max(a.seq for a in load_actions(match))
            assert config["words"][config["steps"]["said"][0][0]] == "The start"
            pawns = [row[:] for row in config["steps"]["pawns"][0]]
            for moved in config["steps"]["pawns"][1:]:
                for c, p, v in zip(*[iter(moved or [])] * 3, strict=True):
                    pawns[c][p] = v
            final = replay(match)
            assert final is not None and pawns == [list(row) for row in final.pawns]
