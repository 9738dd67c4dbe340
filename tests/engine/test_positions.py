"""Replay the counted legal-move table (tests/engine/positions.txt), like a chess perft file.

Each line is a position, a roll and every legal move it allows (or why nothing moves); a line
that fails names the position. Regenerate the table with
``.venv/bin/python -m tests.engine.make_positions`` only for a deliberate rule change.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from games.engine import dumps, loads
from tests.engine.make_positions import CHECKED, engine_result, parse_roll, reference_result

TABLE = Path(__file__).with_name("positions.txt")


def read_table() -> list[tuple[int, str, str, str]]:
    rows = []
    for number, line in enumerate(TABLE.read_text().splitlines(), start=1):
        if not line.strip() or line.startswith("#"):
            continue
        notation, roll_text, expected = (part.strip() for part in line.split(" ; "))
        rows.append((number, notation, roll_text, expected))
    return rows


ROWS = read_table()


@pytest.mark.parametrize(
    ("number", "notation", "roll_text", "expected"), ROWS, ids=[f"line{r[0]}" for r in ROWS]
)
def test_the_engine_allows_exactly_the_listed_moves(
    number: int, notation: str, roll_text: str, expected: str
) -> None:
    state = loads(notation)
    assert dumps(state) == notation, f"line {number}: the notation does not round-trip"
    face, bonus = parse_roll(roll_text)
    got = engine_result(state, face, bonus)
    assert got.split() == sorted(expected.split()), (
        f"line {number}: {notation} ; {roll_text}\n  table:  {expected}\n  engine: {got}"
    )


def test_the_table_agrees_with_a_plain_reading_of_the_rules() -> None:
    wrong = [
        f"line {n}: {notation} ; {roll_text}: table {expected}, reference {ref}"
        for n, notation, roll_text, expected in ROWS
        if (ref := reference_result(loads(notation), *parse_roll(roll_text))) != expected
    ]
    assert not wrong, "\n".join(wrong)


def test_the_hand_checked_lines_are_in_the_table_as_checked() -> None:
    table = {(notation, roll_text): expected for _, notation, roll_text, expected in ROWS}
    for notation, roll_text, by_hand, why in CHECKED:
        key = (dumps(loads(notation)), roll_text)
        assert table.get(key) == by_hand, f"{notation} ; {roll_text} ({why})"
    # The header names them by line number; those numbers point at them.
    by_number = {n: (roll_text, expected) for n, _, roll_text, expected in ROWS}
    cited = re.findall(r"^#   line (\d+): roll (.+?) -> (.+?): ", TABLE.read_text(), re.M)
    assert len(cited) == len(CHECKED)
    for number, roll_text, expected in cited:
        assert by_number.get(int(number)) == (roll_text, expected), f"line {number}"


def test_the_table_covers_every_preset_and_option() -> None:
    names = {notation.split()[0] for _, notation, _, _ in ROWS}
    for name in [
        "classic",
        "family",
        "duel",
        "mensch",
        "mensch+compulsory_capture",
        "mensch+optional_bring_out",
        "mensch+no_jump_home_column",
        "party",
        "party+pairs",
        "party+power",
        "party+pairs+power",
    ]:
        assert name in names, name
    results = " ".join(expected for _, _, _, expected in ROWS)
    for kind in ("x", "+double", "+control", "+shield", "+plus", ">h", ":y>0"):
        assert kind in results, kind
    for outcome in ("no-move:again", "no-move:pass", "six-forfeited"):
        assert outcome in results, outcome
    assert len(ROWS) >= 300
