"""`party` with Power: bonus squares, a private stock, Double roll, Dice control,
Shield and the +1 square."""

import pytest

from games.engine import (
    BONUS_OFFSETS,
    RULESETS,
    BonusPicked,
    Captured,
    ExtraRoll,
    IllegalAction,
    Moved,
    Rolled,
    Shielded,
    TurnPassed,
    legal_moves,
    loads,
    move,
    roll,
    setup,
    view_for,
)
from tests.engine.positions import Y, extra_roll_reasons, kinds, on, pawn_targets, play, the_move

POWER = RULESETS["party"].with_options(power=True)
RED, GREEN, YELLOW, BLUE = 0, 1, 2, 3
# Red's bonus squares (the same offsets from every start).
DOUBLE, CONTROL, SHIELD, PLUS = 2, 5, 10, 11
NONE = (0, 0, 0)


def power(pawns, to_play=RED, **stock):
    """A Power position; stock as red=(double, control, shield), green=..."""
    names = {"red": RED, "green": GREEN, "yellow": YELLOW, "blue": BLUE}
    return setup(
        POWER, pawns, to_play=to_play, stock={names[k]: v for k, v in stock.items()} or None
    )


# ---------------------------------------------------------------------------- the board


def test_bonus_squares_lie_symmetrically_off_the_safe_squares():
    bonus = POWER.board.bonus
    assert BONUS_OFFSETS == {DOUBLE: "double", CONTROL: "control", SHIELD: "shield", PLUS: "plus"}
    assert bonus == {13 * q + off: kind for q in range(4) for off, kind in BONUS_OFFSETS.items()}
    assert not set(bonus) & POWER.safe


def test_without_power_there_are_no_bonus_squares():
    assert RULESETS["party"].board.bonus == {}


def test_power_is_a_party_option_only():
    with pytest.raises(ValueError, match="no option power"):
        RULESETS["duel"].with_options(power=True)


# ---------------------------------------------------------------------------- picking bonuses


@pytest.mark.parametrize(
    ("square", "kind", "stock"),
    [(DOUBLE, "double", (1, 0, 0)), (CONTROL, "control", (0, 1, 0)), (SHIELD, "shield", (0, 0, 1))],
)
def test_ending_a_move_on_a_bonus_square_adds_it_to_the_movers_stock(square, kind, stock):
    state = power({RED: [square - 1, Y, Y, Y], GREEN: [Y] * 4})
    state, _ = roll(state, 1)
    assert the_move(state, 0).bonus == kind
    state, events = move(state, the_move(state, 0))
    assert events == (
        Moved(RED, 0, square - 1, square, square),
        BonusPicked(RED, kind, square),
        TurnPassed(RED, GREEN),
    )
    assert state.stock[RED] == stock


def test_a_bonus_square_of_another_quarter_is_picked_the_same_way():
    square = 13 * 2 + CONTROL  # on Yellow's quarter
    state = power({RED: [square - 3, Y, Y, Y], GREEN: [Y] * 4})
    state, events = play(state, 3, 0)
    assert BonusPicked(RED, "control", square) in events


def test_passing_over_a_bonus_square_is_not_enough():
    state = power({RED: [0, Y, Y, Y], GREEN: [Y] * 4})
    state, _ = roll(state, 4)  # over Double roll on 2, onto 4
    assert the_move(state, 0).bonus == ""
    state, events = move(state, the_move(state, 0))
    assert "bonus_picked" not in kinds(events)
    assert state.stock[RED] == NONE


def test_at_most_3_of_each_kind():
    state = power({RED: [1, Y, Y, Y], GREEN: [Y] * 4}, red=(3, 2, 0))
    state, _ = play(state, 1, 0)
    assert state.stock[RED] == (3, 2, 0)


def test_a_picked_bonus_is_gone_for_the_rest_of_the_turn_and_comes_back_when_the_next_starts():
    green_on_shield = on(POWER, GREEN, SHIELD)
    state = power({RED: [4, 6, Y, Y], GREEN: [green_on_shield - 1, Y, Y, Y]})
    state, events = play(state, 6, 0)  # onto Shield with a six: roll again
    assert BonusPicked(RED, "shield", SHIELD) in events and state.picked == {SHIELD}
    state, _ = roll(state, 4)
    assert the_move(state, 1).to == SHIELD and the_move(state, 1).bonus == ""
    state, events = move(state, the_move(state, 1))
    assert "bonus_picked" not in kinds(events) and state.stock[RED] == (0, 0, 1)
    assert state.to_play == GREEN and state.picked == frozenset()
    state, events = play(state, 1, 0)  # Green ends on the same square in the next turn
    assert BonusPicked(GREEN, "shield", SHIELD) in events
    assert state.stock[GREEN] == (0, 0, 1)


def test_plus_one_is_not_stored_and_rolls_again_at_once():
    state = power({RED: [PLUS - 3, Y, Y, Y], GREEN: [Y] * 4})
    state, events = play(state, 3, 0)
    assert events[-2:] == (BonusPicked(RED, "plus", PLUS), ExtraRoll(RED, ("plus",)))
    assert state.stock[RED] == NONE and state.to_play == RED


def test_plus_one_with_a_six_still_gives_one_extra_roll():
    state = power({RED: [PLUS - 6, Y, Y, Y], GREEN: [Y] * 4})
    state, events = play(state, 6, 0)
    assert extra_roll_reasons(events) == [("six", "plus")]


def test_a_finished_player_moving_the_partners_pawn_picks_for_their_own_stock():
    rules = RULESETS["party"].with_options(pairs=True, power=True)
    yellow_before_bonus = on(rules, YELLOW, DOUBLE) - 2
    state = setup(
        rules,
        {RED: [56] * 4, GREEN: [Y] * 4, YELLOW: [yellow_before_bonus, Y, Y, Y], BLUE: [Y] * 4},
        placings=[RED],
    )
    state, _ = roll(state, 2)
    state, events = move(state, legal_moves(state)[0])
    assert BonusPicked(RED, "double", DOUBLE) in events
    assert state.stock[RED] == (1, 0, 0) and state.stock[YELLOW] == NONE


# ---------------------------------------------------------------------------- Double roll


def test_double_roll_moves_the_pawn_twice_the_roll():
    state = power({RED: [20, Y, Y, Y], GREEN: [Y] * 4}, red=(2, 0, 0))
    state, events = roll(state, 3, bonus="double")
    assert events == (Rolled(RED, 3, 6, "double"),)
    assert state.stock[RED] == (1, 0, 0)
    assert pawn_targets(state) == {0: 26}  # a 6 worth of steps, but no pawn comes out


def test_a_double_six_makes_12_but_is_not_a_six():
    state = power({RED: [20, Y, Y, Y], GREEN: [Y] * 4}, red=(1, 0, 0))
    state, _ = roll(state, 6, bonus="double")
    assert pawn_targets(state) == {0: 32}
    state, events = move(state, the_move(state, 0))
    assert events[-1] == TurnPassed(RED, GREEN)


def test_a_double_six_does_not_count_towards_three_sixes():
    state = power({RED: [10, Y, Y, Y], GREEN: [Y] * 4}, red=(1, 0, 0))
    state, _ = play(state, 6, 0)
    state, _ = play(state, 6, 0)
    assert state.sixes == 2
    state, events = roll(state, 6, bonus="double")
    assert "six_forfeited" not in kinds(events) and pawn_targets(state) == {0: 34}


def test_a_double_roll_that_captures_still_gives_an_extra_roll():
    state = power({RED: [12, Y, Y, Y], GREEN: [on(POWER, GREEN, 20), Y, Y, Y]}, red=(1, 0, 0))
    state, events = play(state, 4, 0, bonus="double")
    assert "captured" in kinds(events)
    assert events[-1] == ExtraRoll(RED, ("capture",))


def test_a_double_roll_that_reaches_the_middle_still_gives_an_extra_roll():
    state = power({RED: [50, 10, Y, Y], GREEN: [Y] * 4}, red=(1, 0, 0))
    state, events = play(state, 3, 0, bonus="double")
    assert events[-1] == ExtraRoll(RED, ("home",))


def test_a_double_roll_too_long_for_every_pawn_is_spent_and_the_turn_passes():
    state = power({RED: [50, Y, Y, Y], GREEN: [Y] * 4}, red=(1, 0, 0))
    state, events = roll(state, 4, bonus="double")
    assert kinds(events) == ["rolled", "no_move", "turn_passed"]
    assert state.stock[RED] == NONE


# ---------------------------------------------------------------------------- Dice control


def test_dice_control_picks_the_face():
    state = power({RED: [20, Y, Y, Y], GREEN: [Y] * 4}, red=(0, 1, 0))
    state, events = roll(state, 4, bonus="control")
    assert events == (Rolled(RED, 4, 4, "control"),)
    assert state.stock[RED] == NONE and pawn_targets(state) == {0: 24}


def test_a_chosen_six_is_a_normal_six():
    state = power({RED: [Y] * 4, GREEN: [Y] * 4}, red=(0, 1, 0))
    state, events = play(state, 6, 0, bonus="control")
    assert state.pawns[RED] == (0, Y, Y, Y)
    assert events[-1] == ExtraRoll(RED, ("six",)) and state.sixes == 1


def test_a_chosen_third_six_is_forfeited_like_any_third_six():
    state = power({RED: [10, Y, Y, Y], GREEN: [Y] * 4}, red=(0, 1, 0))
    state, _ = play(state, 6, 0)
    state, _ = play(state, 6, 0)
    state, events = roll(state, 6, bonus="control")
    assert "six_forfeited" in kinds(events)


# ---------------------------------------------------------------------------- Shield


def test_a_shield_goes_on_a_pawn_you_move_on_the_track():
    state = power({RED: [19, Y, Y, Y], GREEN: [Y] * 4}, red=(0, 0, 2))
    state, _ = roll(state, 3)
    state, events = move(state, the_move(state, 0), shield=True)
    assert events == (Moved(RED, 0, 19, 22, 22), Shielded(RED, RED, 0), TurnPassed(RED, GREEN))
    assert state.stock[RED] == (0, 0, 1) and state.shields == {(RED, RED, 0)}


def test_a_shield_can_be_switched_on_before_rolling():
    state = power({RED: [19, Y, Y, Y], GREEN: [Y] * 4}, red=(0, 0, 1))
    state, events = roll(state, 3, bonus="shield")
    assert events == (Rolled(RED, 3, 3, "shield"),)
    state, events = move(state, the_move(state, 0))
    assert Shielded(RED, RED, 0) in events
    assert state.stock[RED] == NONE and state.shields == {(RED, RED, 0)}


def test_a_shield_is_only_for_a_pawn_that_ends_on_the_track():
    state = power({RED: [48, Y, Y, Y], GREEN: [Y] * 4}, red=(0, 0, 1))
    state, _ = roll(state, 4)
    with pytest.raises(IllegalAction, match="on the track"):
        move(state, the_move(state, 0), shield=True)


def shielded_red_on_20():
    """Red's pawn 0 ends on 20 with a Shield; Green's pawn waits 3 behind it."""
    state = power({RED: [17, Y, Y, Y], GREEN: [on(POWER, GREEN, 17), Y, Y, Y]}, red=(0, 0, 1))
    state, _ = roll(state, 3)
    state, _ = move(state, the_move(state, 0), shield=True)
    return state


def test_a_shielded_pawn_cannot_be_sent_home_before_the_givers_next_turn():
    state = shielded_red_on_20()
    assert state.to_play == GREEN
    state, _ = roll(state, 3)
    m = the_move(state, 0)
    assert (m.square, m.captures) == (20, ())
    state, events = move(state, m)
    assert "captured" not in kinds(events)
    assert state.pawns[RED][0] == 20 and state.pawns[GREEN][0] == on(POWER, GREEN, 20)


def test_the_shield_ends_when_the_givers_next_turn_starts():
    state = shielded_red_on_20()
    state, _ = play(state, 1, 0)  # Green steps up beside it
    assert state.to_play == RED and state.shields == frozenset()


def test_extra_rolls_do_not_end_the_shield():
    state = power({RED: [14, 30, Y, Y], GREEN: [on(POWER, GREEN, 17), Y, Y, Y]}, red=(0, 0, 1))
    state, _ = roll(state, 6)
    state, events = move(state, the_move(state, 0), shield=True)  # a six: Red rolls again
    assert events[-1] == ExtraRoll(RED, ("six",))
    state, _ = play(state, 1, 1)  # the extra roll
    assert state.to_play == GREEN and state.shields == {(RED, RED, 0)}
    state, _ = roll(state, 3)
    assert the_move(state, 0).captures == ()


def test_a_shielded_pawn_can_still_capture():
    state = power({RED: [17, Y, Y, Y], GREEN: [on(POWER, GREEN, 20), Y, Y, Y]}, red=(0, 0, 1))
    state, _ = roll(state, 3)
    state, events = move(state, the_move(state, 0), shield=True)
    assert "captured" in kinds(events) and "shielded" in kinds(events)


def test_a_shielded_pawn_still_counts_when_the_pawns_are_compared():
    # Red: pawn 0 shielded and pawn 1 unshielded on 20. Green brings one: fewer, nobody goes home.
    state = power({RED: [17, 20, Y, Y], GREEN: [on(POWER, GREEN, 17), Y, Y, Y]}, red=(0, 0, 1))
    state, _ = roll(state, 3)
    state, _ = move(state, the_move(state, 0), shield=True)
    state, _ = roll(state, 3)
    assert the_move(state, 0).captures == ()


def test_two_against_a_shielded_and_a_plain_pawn_send_only_the_plain_one_home():
    # Red's pawns 0 (shielded by Red) and 1 share square 20 with Green's pawn 1 (Green's progress
    # 7); Green's pawn 0 comes 3 squares to make it two against two.
    state = loads("party+power to=1 phase=roll shields=000 pawns=20,20,y,y/4,7,y,y/-/-")
    state, _ = roll(state, 3)
    assert the_move(state, 0).captures == ((RED, 1),)
    state, events = move(state, the_move(state, 0))
    assert [e for e in events if isinstance(e, Captured)] == [Captured(RED, 1, GREEN, 20)]
    assert state.pawns[RED] == (20, Y, Y, Y)


# ---------------------------------------------------------------------------- one bonus per roll


def test_one_bonus_per_roll_no_shield_on_a_double_roll():
    state = power({RED: [20, Y, Y, Y], GREEN: [Y] * 4}, red=(1, 0, 1))
    state, _ = roll(state, 2, bonus="double")
    with pytest.raises(IllegalAction, match="one bonus per roll"):
        move(state, the_move(state, 0), shield=True)


def test_one_bonus_per_roll_no_dice_control_with_a_shield_switched_on():
    state = power({RED: [Y] * 4, GREEN: [Y] * 4}, red=(0, 1, 1))
    state, events = roll(state, 2, bonus="shield")  # no pawn out: another try, shield still on
    assert extra_roll_reasons(events) == [("try",)] and state.bonus == "shield"
    with pytest.raises(IllegalAction, match="[Oo]nly one bonus per roll"):
        roll(state, 6, bonus="control")


def test_a_bonus_needs_stock():
    state = power({RED: [20, Y, Y, Y], GREEN: [Y] * 4}, green=(3, 3, 3))
    for kind in ("double", "control", "shield"):
        with pytest.raises(IllegalAction, match=f"no {kind} bonus in your stock"):
            roll(state, 3, bonus=kind)
    state, _ = roll(state, 3)
    with pytest.raises(IllegalAction, match="no shield bonus in your stock"):
        move(state, the_move(state, 0), shield=True)


# ---------------------------------------------------------------------------- privacy


def test_each_player_sees_only_their_own_stock():
    state = power({RED: [20, Y, Y, Y], GREEN: [Y] * 4}, red=(1, 2, 3), green=(3, 0, 1))
    assert view_for(state, RED).stock[:2] == ((1, 2, 3), NONE)
    assert view_for(state, GREEN).stock[:2] == (NONE, (3, 0, 1))
    assert view_for(state, None).stock == (NONE,) * 4


def test_the_view_leaves_everything_but_the_stock_alone():
    state = power({RED: [20, Y, Y, Y], GREEN: [Y] * 4}, red=(1, 2, 3))
    state, _ = roll(state, 3)
    seen = view_for(state, GREEN)
    assert seen._replace(stock=state.stock) == state


def test_partners_do_not_see_each_others_stock():
    rules = RULESETS["party"].with_options(pairs=True, power=True)
    state = setup(rules, {c: [Y] * 4 for c in range(4)}, stock={YELLOW: (1, 1, 1)})
    assert view_for(state, RED).stock[YELLOW] == NONE
