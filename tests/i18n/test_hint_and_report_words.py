"""The practice Hint and the match report in the reader's language (issue 29): their reasons are
English text with a code and data (`games.bots.words.Reason`); the hint API keeps its English
`why`, adds `said` (the code and data) and `text` (the reader's words, games.match.saying), and
the report's costliest moves keep `why` and add `why_said` (with `played_said`,
`better_said`), which the replay page tells from the codes (static/js/reasons.js, run here in
Node with the page's own JavaScriptCatalog)."""

from __future__ import annotations

import json
import random
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from django.test import Client
from django.utils import translation

from games.bots import BOTS
from games.bots.analysis import analyse, explain, hint
from games.bots.calibrate import recorded
from games.bots.words import NUMBERS, Reason, describe
from games.engine import dumps, legal_moves, move, new_game, roll, rules_from_name, setup
from games.match.saying import bot_reason, hint_reason

LANGS = ["hi", "bn", "ur", "ar", "id", "pt-br", "es", "tr", "fr", "de"]
STATIC = Path(__file__).resolve().parents[2] / "static" / "js"


def _digits(english: str) -> str:
    """The English with "moves pawn 2 three squares" as the translated words say it ("3
    squares": the catalogues count in digits)."""
    for n, word in NUMBERS.items():
        english = english.replace(f" {word} square", f" {n} square")
    return english


def _positions(seed: int, count: int) -> list[Any]:
    """Positions with a choice, from games between medium bots on the classic and Pairs-free
    tables."""
    found = []
    rng = random.Random(seed)
    for table, players in (("classic", 4), ("classic", 2), ("duel", 2)):
        rules = rules_from_name(table)
        state = new_game(rules, players, first=rules.seats_for(players)[0])
        while state.phase != "over" and len(found) < count:
            state, _ = roll(state, rng.randint(1, 6))
            if state.phase != "move" or not legal_moves(state):
                continue
            if len(state.legal) > 1:
                found.append(state)
            chosen, _ = BOTS["medium"].choose(state, rng)
            state, _ = move(state, chosen)
    return found


def _capture_position() -> Any:
    # Red can capture Yellow's pawn 3 squares ahead (Yellow's progress 1 is Red's 27).
    state = setup(rules_from_name("classic"), {0: [24, 5, -1, -1], 2: [1, -1, -1, -1]}, 0)
    state, _ = roll(state, 3)
    return state


def test_the_hint_is_a_reason_told_the_same_in_english_and_in_each_language() -> None:
    state = _capture_position()
    best, why, _ = hint(state)
    assert isinstance(why, Reason)
    assert why == "captures Yellow's pawn with pawn 1: it captures Yellow's pawn"
    wire = why.wire()
    assert wire["code"] == "best"
    assert wire["does"] == {"code": "capture_with", "pawn": 1, "of": None, "captured": [[2, 1]]}
    assert wire["why"]["code"] == "it_captures"
    with translation.override("de"):
        assert hint_reason(state.rules, wire) == (
            "schlägt die Figur von Gelb mit Figur 1: dieser Zug schlägt die Figur von Gelb"
        )
    # Over many positions: the codes say exactly the English, and every language has words.
    seen = set()
    for state in _positions(3, 80):
        _, why, _ = hint(state)
        wire = json.loads(json.dumps(why.wire()))  # as the API sends it
        seen.add(wire.get("why", {}).get("code", wire["code"]))
        with translation.override("en"):
            assert hint_reason(state.rules, wire) == _digits(str(why))
        for lang in LANGS:
            with translation.override(lang):
                said = hint_reason(state.rules, wire)
            assert said and said != str(why), (lang, str(why))
    assert len(seen) >= 3, seen


@pytest.mark.django_db
def test_the_hint_api_answers_in_the_readers_language_with_the_same_code() -> None:
    from accounts.models import User
    from games import services

    ann = User.objects.create_user("ann", password="pw-for-tests")
    client = Client()
    client.force_login(ann)
    match = services.match_create(
        ruleset="classic", players=2, mode="practice", host=ann, bots={2: "easy"}, first=0
    )
    match.refresh_from_db()
    match.snapshot = {**match.snapshot, "notation": dumps(_capture_position())}
    match.save(update_fields=["snapshot"])
    url = f"/api/matches/{match.code}/hint"
    english = client.get(url, HTTP_ACCEPT_LANGUAGE="en").json()
    german = client.get(url, HTTP_ACCEPT_LANGUAGE="de").json()
    by_query = client.get(url + "?lang=de").json()
    english_words = "captures Yellow's pawn with pawn 1: it captures Yellow's pawn"
    assert english["why"] == german["why"] == by_query["why"] == english_words
    assert english["text"] == english_words
    assert german["said"] == english["said"] == by_query["said"]
    assert german["said"]["code"] == "best"
    assert german["said"]["why"]["code"] == "it_captures"
    assert german["text"] == by_query["text"]
    assert german["text"].startswith("schlägt die Figur von Gelb mit Figur 1: ")
    with translation.override("fr"):
        assert client.get(url + "?lang=fr").json()["text"] == hint_reason(
            match.rules, english["said"]
        )


def _report() -> tuple[Any, dict[str, Any]]:
    """The report of a whole classic game between a beginner and an easy bot (they err)."""
    rules = rules_from_name("classic")
    level = {0: "beginner", 2: "easy"}.__getitem__
    start, actions = recorded(rules, 2, level, random.Random(11))
    return rules, json.loads(json.dumps(analyse(start, actions)))  # as it is stored


def test_a_reports_costliest_moves_keep_their_english_and_carry_codes() -> None:
    rules, report = _report()
    assert report["version"] >= 2
    costly = [c for s in report["seats"].values() for c in s["costliest"]]
    assert costly
    for c in costly:
        assert isinstance(c["why"], str) and c["why"]  # English, as before
        assert c["why_said"]["code"] in {
            "could_capture",
            "could_go_home",
            "left_in_reach",
            "could_escape",
            "could_come_out",
            "could_move",
        }
        assert c["played_said"]["code"] and c["better_said"]["code"]
        with translation.override("en"):  # the describe codes say the English exactly
            assert bot_reason(rules, c["played_said"]) == _digits(c["played"])
            assert bot_reason(rules, c["better_said"]) == _digits(c["better"])


def _explanations(count: int) -> list[tuple[Any, Reason]]:
    """Pairs of moves explained (`explain`) over many positions, every code met at least
    once where the games give it."""
    out = []
    for state in [_capture_position(), *_positions(7, count)]:
        moves = list(state.legal)
        for played in moves:
            for better in moves:
                if played != better:
                    out.append((state, explain(state, played, better)))
    return out


def _node_render(tmp_path: Path, client: Client, lang: str, cases: list[dict[str, Any]]) -> Any:
    """static/js/reasons.js run in Node with the page's JavaScriptCatalog for `lang`."""
    for name in ("i18n", "reasons"):
        text = (STATIC / f"{name}.js").read_text().replace('"./i18n.js"', '"./i18n.mjs"')
        (tmp_path / f"{name}.mjs").write_text(text)
    catalog = client.get(f"/i18n/js/?lang={lang}").content.decode()
    (tmp_path / f"catalog-{lang}.js").write_text(catalog)
    (tmp_path / f"cases-{lang}.json").write_text(json.dumps(cases))
    (tmp_path / "run.mjs").write_text(
        """
import fs from "node:fs";
import vm from "node:vm";
const [catalog, lang, casesPath] = process.argv.slice(2);
globalThis.window = globalThis;
globalThis.document = { documentElement: { lang } };
vm.runInThisContext(fs.readFileSync(catalog, "utf8"));
const { botReason, lostReason } = await import("./reasons.mjs");
const { colourName } = await import("./i18n.mjs");
const cases = JSON.parse(fs.readFileSync(casesPath, "utf8"));
const out = cases.map((c) => {
  const name = (corner) => colourName(c.colours[corner]);
  return (c.kind === "lost" ? lostReason : botReason)(c.why, name);
});
process.stdout.write(JSON.stringify(out));
"""
    )
    done = subprocess.run(
        [
            "node",
            str(tmp_path / "run.mjs"),
            str(tmp_path / f"catalog-{lang}.js"),
            lang,
            str(tmp_path / f"cases-{lang}.json"),
        ],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return json.loads(done.stdout)


@pytest.mark.django_db
@pytest.mark.skipif(shutil.which("node") is None, reason="needs Node")
def test_the_replay_page_tells_a_costly_move_from_its_codes_in_each_language(
    tmp_path: Path,
) -> None:
    explained = _explanations(25)
    codes = {why.code for _, why in explained}
    assert {"could_capture", "left_in_reach", "could_move"} <= codes, codes
    cases = []
    english = []
    for state, why in explained:
        colours = list(state.rules.colours)
        cases.append(
            {"kind": "lost", "why": json.loads(json.dumps(why.wire())), "colours": colours}
        )
        english.append(str(why))
    for state in _positions(5, 10):
        does = describe(state, state.legal[0])
        cases.append({"kind": "does", "why": does.wire(), "colours": list(state.rules.colours)})
        english.append(str(does))
    client = Client()
    # The page's script says exactly the English the report stores, from the codes alone.
    assert _node_render(tmp_path, client, "en", cases) == [_digits(e) for e in english]
    for lang in LANGS:
        said = _node_render(tmp_path, client, lang, cases)
        for words, text in zip(said, english, strict=True):
            assert words and words != text, (lang, text)
    # A capture the better move would have made, in German.
    state = _capture_position()
    capture = next(m for m in state.legal if m.captures)
    other = next(m for m in state.legal if not m.captures)
    why = explain(state, other, capture)
    assert why == "pawn 1 could have captured Yellow's pawn"
    case = {"kind": "lost", "why": why.wire(), "colours": list(state.rules.colours)}
    assert _node_render(tmp_path, client, "de", [case]) == [
        "Figur 1 hätte die Figur von Gelb schlagen können"
    ]
