"""The engine's presets agree, field by field, with the rules' table (docs/rules.md) as
tests/engine/reference.py copies it by hand (the property tests compare behaviour; this names
the field that differs)."""

from __future__ import annotations

import dataclasses

import pytest

from games.engine import RULESETS
from tests.engine import reference


@pytest.mark.parametrize("name", sorted(reference.PRESETS))
def test_engine_preset_matches_the_rules_table(name: str) -> None:
    mine = reference.PRESETS[name]
    engine = RULESETS[name]
    differ = {
        f.name: (getattr(engine, f.name), getattr(mine, f.name))
        for f in dataclasses.fields(mine)
        if getattr(engine, f.name) != getattr(mine, f.name)
    }
    assert differ == {}, f"{name}: engine vs the rules' table (field: (engine, table)) {differ}"


def test_every_engine_preset_is_in_the_table() -> None:
    assert sorted(RULESETS) == sorted(reference.PRESETS)
