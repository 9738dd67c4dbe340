"""House rules (any preset, off by default): compulsory capture, optional
bring-out, no jumping in the home column."""

import pytest

from games.engine import RULESETS, IllegalAction, move, roll, setup
from tests.engine.positions import Y, kinds, on, pawn_targets, the_move

HOUSE_RULES = ("compulsory_capture", "optional_bring_out", "no_jump_home_column")
PRESETS = ["classic", "family", "duel", "mensch", "party"]
GREEN = 2  # in mensch the corner opposite Red; on the 52-square board Yellow


@pytest.mark.parametrize("name", PRESETS)
def test_house_rules_are_off_by_default_and_can_be_switched_on_for_any_preset(name):
    rules = RULESETS[name]
    assert not any(getattr(rules, h) for h in HOUSE_RULES)
    switched = rules.with_options(**{h: True for h in HOUSE_RULES})
    assert all(getattr(switched, h) for h in HOUSE_RULES)
    assert switched.name == name and switched.capture == rules.capture


def test_an_unknown_house_rule_is_refused():
    with pytest.raises(ValueError, match="no option blockades"):
        RULESETS["classic"].with_options(blockades=True)


# ---------------------------------------------------------------------------- compulsory capture


def capture_or_not(rules):
    """Red's pawn 0 can capture Yellow's (Green's in mensch) pawn 4 squares ahead; pawn 1 cannot."""
    return setup(rules, {0: [15, 30, Y, Y], GREEN: [on(rules, GREEN, 19), Y, Y, Y]})


@pytest.mark.parametrize("name", PRESETS)
def test_capturing_is_optional_by_default(name):
    state, _ = roll(capture_or_not(RULESETS[name]), 4)
    assert pawn_targets(state) == {0: 19, 1: 34}


@pytest.mark.parametrize("name", PRESETS)
def test_with_compulsory_capture_only_capturing_moves_are_legal(name):
    rules = RULESETS[name].with_options(compulsory_capture=True)
    state, _ = roll(capture_or_not(rules), 4)
    assert pawn_targets(state) == {0: 19}
    assert the_move(state, 0).captures == ((GREEN, 0),)


def test_with_compulsory_capture_a_non_capturing_move_is_refused_with_the_reason():
    rules = RULESETS["classic"].with_options(compulsory_capture=True)
    state, _ = roll(capture_or_not(rules), 4)
    plain = the_move(state, 0)._replace(pawn=1, frm=30, to=34, captures=(), square=34)
    with pytest.raises(IllegalAction, match="Capturing is compulsory"):
        move(state, plain)


def test_with_compulsory_capture_every_capturing_move_is_offered():
    rules = RULESETS["classic"].with_options(compulsory_capture=True)
    state = setup(
        rules, {0: [15, 26, 40, Y], GREEN: [on(rules, GREEN, 19), on(rules, GREEN, 30), Y, Y]}
    )
    state, _ = roll(state, 4)
    assert pawn_targets(state) == {0: 19, 1: 30}


def test_with_compulsory_capture_a_turn_without_a_capture_is_free():
    rules = RULESETS["classic"].with_options(compulsory_capture=True)
    state, _ = roll(capture_or_not(rules), 3)
    assert pawn_targets(state) == {0: 18, 1: 33}


def test_compulsory_capture_does_not_apply_when_a_pawn_must_be_brought_out():
    rules = RULESETS["mensch"].with_options(compulsory_capture=True)
    state = setup(rules, {0: [Y, 4, Y, Y], GREEN: [on(rules, GREEN, 10), Y, Y, Y]})
    state, _ = roll(state, 6)
    assert pawn_targets(state) == {0: 0, 2: 0, 3: 0}


def test_compulsory_capture_does_not_apply_when_the_start_square_must_be_cleared():
    rules = RULESETS["mensch"].with_options(compulsory_capture=True)
    state = setup(rules, {0: [0, 4, Y, Y], GREEN: [on(rules, GREEN, 7), Y, Y, Y]})
    state, _ = roll(state, 3)
    assert pawn_targets(state) == {0: 3}


def test_in_mensch_bringing_out_onto_an_opponent_is_the_capture():
    rules = RULESETS["mensch"].with_options(compulsory_capture=True)
    state = setup(rules, {0: [Y, 4, Y, Y], GREEN: [on(rules, GREEN, 0), Y, Y, Y]})
    state, _ = roll(state, 6)
    assert set(pawn_targets(state).values()) == {0}
    state, events = move(state, the_move(state, 0))
    assert kinds(events)[:2] == ["released", "captured"]


# ---------------------------------------------------------------------------- optional bring-out


def test_mensch_with_optional_bring_out_a_six_may_move_another_pawn():
    rules = RULESETS["mensch"].with_options(optional_bring_out=True)
    state = setup(rules, {0: [Y, 10, Y, Y], GREEN: [Y] * 4})
    state, _ = roll(state, 6)
    assert pawn_targets(state) == {0: 0, 1: 16, 2: 0, 3: 0}


def test_mensch_with_optional_bring_out_the_start_square_need_not_be_cleared():
    rules = RULESETS["mensch"].with_options(optional_bring_out=True)
    state = setup(rules, {0: [0, 10, Y, Y], GREEN: [Y] * 4})
    state, _ = roll(state, 3)
    assert pawn_targets(state) == {0: 3, 1: 13}


def test_mensch_with_optional_bring_out_a_pawn_still_never_comes_out_onto_its_own():
    rules = RULESETS["mensch"].with_options(optional_bring_out=True)
    state = setup(rules, {0: [0, 10, Y, Y], GREEN: [Y] * 4})
    state, _ = roll(state, 6)
    assert pawn_targets(state) == {0: 6, 1: 16}


def test_mensch_with_optional_bring_out_compulsory_capture_applies_to_a_six():
    rules = RULESETS["mensch"].with_options(optional_bring_out=True, compulsory_capture=True)
    state = setup(rules, {0: [Y, 4, Y, Y], GREEN: [on(rules, GREEN, 10), Y, Y, Y]})
    state, _ = roll(state, 6)
    assert pawn_targets(state) == {1: 10}


# ---------------------------------------------------------------------------- no jumping


@pytest.mark.parametrize(
    ("name", "pawns", "face", "jumping_pawn"),
    [
        ("mensch", [40, 42, Y, Y], 3, 0),  # 40 -> 43 over 42
        ("classic", [51, 53, Y, Y], 4, 0),  # 51 -> 55 over 53
        ("family", [52, 54, Y, Y], 3, 0),  # 52 -> 55 over 54
        ("party", [51, 52, Y, Y], 5, 0),  # 51 -> 56 (home) over 52
    ],
)
def test_no_jumping_in_the_home_column(name, pawns, face, jumping_pawn):
    rules = RULESETS[name]
    state = setup(rules, {0: pawns, 2: [Y] * 4})
    state, _ = roll(state, face)
    assert jumping_pawn in pawn_targets(state)  # allowed by default

    house = rules.with_options(no_jump_home_column=True)
    state = setup(house, {0: pawns, 2: [Y] * 4})
    state, _ = roll(state, face)
    assert jumping_pawn not in pawn_targets(state)


def test_no_jumping_still_lets_a_pawn_step_up_to_the_pawn_ahead():
    rules = RULESETS["mensch"].with_options(no_jump_home_column=True)
    state = setup(rules, {0: [40, 42, Y, Y], GREEN: [Y] * 4})
    state, _ = roll(state, 1)
    assert pawn_targets(state) == {0: 41, 1: 43}


def test_no_jumping_in_the_home_column_leaves_jumping_on_the_track_alone():
    rules = RULESETS["classic"].with_options(no_jump_home_column=True)
    state = setup(rules, {0: [10, 12, Y, Y], GREEN: [on(rules, GREEN, 13), Y, Y, Y]})
    state, _ = roll(state, 5)
    assert pawn_targets(state) == {0: 15, 1: 17}


def test_no_jumping_also_stops_a_pawn_entering_the_column_over_one_standing_there():
    # No jumping in the home column (docs/rules.md, "House rules"): a pawn that passes over a
    # pawn of its own standing in its home column while entering it jumps there too.
    rules = RULESETS["mensch"].with_options(no_jump_home_column=True)
    state = setup(rules, {0: [38, 40, Y, Y], GREEN: [Y] * 4})
    state, _ = roll(state, 3)
    assert 0 not in pawn_targets(state)
