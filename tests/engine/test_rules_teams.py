"""Team-Up, a `classic` option (docs/rules.md, "Six arms and Team-Up"): 2 x 2 on four arms,
2 x 3 and 3 x 2 on six; partners never capture each other; a player whose pawns are all home
moves a partner's; the team with all its pawns home wins."""

import pytest

from games.engine import (
    RULESETS,
    Captured,
    ExtraRoll,
    Finished,
    Moved,
    TurnPassed,
    Won,
    dumps,
    legal_moves,
    loads,
    move,
    mover_of,
    new_game,
    resign,
    roll,
    rules_name,
    setup,
)
from tests.engine.positions import Y, kinds, on, play, square_of, targets

UP4 = RULESETS["classic"].with_options(teams=2)
UP6x2 = RULESETS["classic"].with_options(arms=6, teams=2)  # 2 teams of 3: 0+2+4, 1+3+5
UP6x3 = RULESETS["classic"].with_options(arms=6, teams=3)  # 3 teams of 2: 0+3, 1+4, 2+5
RED, GREEN, YELLOW, BLUE, ORANGE, PURPLE = range(6)


def everyone(rules, **rows):
    """Every corner seated (Team-Up fills the table); unnamed corners wait in their yards."""
    names = ("red", "green", "yellow", "blue", "orange", "purple")
    pawns = {c: [Y] * 4 for c in range(rules.arms)}
    for name, row in rows.items():
        pawns[names.index(name)] = row
    return pawns


def test_team_up_fills_the_table():
    assert new_game(UP4, 4).seats == (0, 1, 2, 3)
    assert new_game(UP6x2, 6).seats == new_game(UP6x3, 6).seats == (0, 1, 2, 3, 4, 5)
    for rules, players in ((UP4, 3), (UP6x2, 4), (UP6x3, 5)):
        with pytest.raises(ValueError, match="played by"):
            new_game(rules, players)


def test_the_teams_are_the_ones_rules_md_names():
    assert UP4.team_of(RED) == (RED, YELLOW) and UP4.team_of(BLUE) == (BLUE, GREEN)
    assert UP6x2.team_of(GREEN) == (GREEN, BLUE, PURPLE)
    assert UP6x3.team_of(YELLOW) == (YELLOW, PURPLE) and UP6x3.team_of(BLUE) == (BLUE, RED)


def test_team_up_is_classic_only_and_three_teams_need_six_arms():
    with pytest.raises(ValueError, match="no option teams"):
        RULESETS["family"].with_options(teams=2)
    with pytest.raises(ValueError, match="cannot make 3 teams"):
        RULESETS["classic"].with_options(teams=3)


def test_the_notation_names_the_teams():
    assert rules_name(UP6x3) == "classic+arms6+teams3"
    state = setup(UP6x3, everyone(UP6x3, orange=[5, Y, Y, Y]), ORANGE)
    assert loads(dumps(state)) == state
    assert dumps(state).endswith("pawns=y,y,y,y/y,y,y,y/y,y,y,y/y,y,y,y/5,y,y,y/y,y,y,y")


# ---------------------------------------------------------------------------- capturing


@pytest.mark.parametrize(
    ("rules", "partner", "rival"),
    [(UP4, YELLOW, GREEN), (UP6x2, ORANGE, BLUE), (UP6x3, BLUE, GREEN)],
)
def test_partners_never_capture_each_other_but_rivals_go_home(rules, partner, rival):
    rows = everyone(
        rules, red=[15, Y, Y, Y], **{rules.colours[partner]: [on(rules, partner, 20)] + [Y] * 3}
    )
    state = setup(rules, rows)
    state, events = play(state, 5, 0)
    assert "captured" not in kinds(events)
    assert state.pawns[partner][0] == on(rules, partner, 20) and state.pawns[RED][0] == 20
    rows[rules.colours.index(rules.colours[rival])] = [on(rules, rival, 20)] + [Y] * 3
    state = setup(rules, rows)
    state, events = play(state, 5, 0)
    assert [e for e in events if isinstance(e, Captured)] == [Captured(rival, 0, RED, 20)]
    assert state.pawns[partner][0] == on(rules, partner, 20)
    assert state.to_play == RED  # classic's extra roll for the capture


def test_a_rival_beside_a_partner_on_one_square_goes_home_alone():
    # Six arms, 3 x 2: Blue (Red's partner) and Green share square 30 with Purple's pawn.
    rows = everyone(
        UP6x3,
        red=[27, Y, Y, Y],
        blue=[on(UP6x3, BLUE, 30), Y, Y, Y],
        green=[on(UP6x3, GREEN, 30), Y, Y, Y],
    )
    state, _ = roll(setup(UP6x3, rows), 3)
    assert legal_moves(state)[0].captures == ((GREEN, 0),)


# ---------------------------------------------------------------------------- a finished player


def test_a_finished_player_moves_the_partners_pawns_on_four_arms():
    state = setup(
        UP4, everyone(UP4, red=[56] * 4, yellow=[10, Y, Y, Y], green=[5, Y, Y, Y]), placings=[RED]
    )
    assert mover_of(state, RED) == YELLOW and mover_of(state, GREEN) == GREEN
    state, _ = roll(state, 3)
    assert targets(state) == {(YELLOW, 0): 13}
    state, events = move(state, legal_moves(state)[0])
    assert events == (Moved(YELLOW, 0, 10, 13, square_of(UP4, YELLOW, 13)), TurnPassed(0, 1))


def test_a_finished_player_moves_the_next_unfinished_partner_of_three():
    # 2 x 3: Red and Yellow are home; Red moves Orange's pawns, and a six rolls again.
    rows = everyone(UP6x2, red=[82] * 4, yellow=[82] * 4, orange=[40, Y, Y, Y])
    state = setup(UP6x2, rows, placings=[YELLOW, RED])
    assert mover_of(state, RED) == ORANGE
    state, _ = roll(state, 6)
    assert set(targets(state)) == {(ORANGE, j) for j in range(4)}
    state, events = move(state, [m for m in legal_moves(state) if m.pawn == 0][0])
    assert events[-1] == ExtraRoll(RED, ("six",))
    assert state.pawns[ORANGE][0] == 46 and state.to_play == RED


def test_a_finished_player_moves_a_partners_pawn_onto_a_rival_and_captures():
    rows = everyone(
        UP6x3, red=[82] * 4, blue=[10, Y, Y, Y], purple=[on(UP6x3, PURPLE, 13 * 3 + 14)] + [Y] * 3
    )
    state = setup(UP6x3, rows, placings=[RED])
    state, events = play(state, 4, 0)
    assert [e for e in events if isinstance(e, Captured)] == [Captured(PURPLE, 0, BLUE, 53)]
    assert events[-1] == ExtraRoll(RED, ("capture",))


def test_finished_players_keep_their_turn_in_the_order():
    rows = everyone(UP6x2, red=[82] * 4, green=[5, Y, Y, Y])
    state = setup(UP6x2, rows, to_play=PURPLE, placings=[RED])
    state, events = roll(state, 2)
    assert events[-1] == TurnPassed(PURPLE, RED)


# ---------------------------------------------------------------------------- the end


def test_one_team_of_three_home_wins_the_game():
    rows = everyone(
        UP6x2, red=[82] * 4, yellow=[82] * 4, orange=[82, 82, 82, 79], blue=[70, 70, 70, 70]
    )
    state = setup(UP6x2, rows, to_play=ORANGE, placings=[YELLOW, RED])
    state, events = play(state, 3, 3)
    # The winners in finishing order, then the others as classic places them: Blue by
    # progress, then Green and Purple (all in the yard) clockwise from the first finisher.
    assert events[-2:] == (
        Finished(ORANGE, 3),
        Won(YELLOW, (YELLOW, RED, ORANGE, BLUE, PURPLE, GREEN)),
    )
    assert state.phase == "over" and state.winner == YELLOW


def test_a_finished_partner_can_bring_the_team_home():
    rows = everyone(UP4, red=[56] * 4, yellow=[56, 56, 56, 55], blue=[30, Y, Y, Y])
    state = setup(UP4, rows, placings=[RED])
    state, events = play(state, 1, 3)
    assert kinds(events)[-3:] == ["home", "finished", "won"]
    assert state.placings[:2] == (RED, YELLOW)


def test_one_finished_player_of_a_team_does_not_end_the_game():
    rows = everyone(UP6x3, red=[82, 82, 82, 79], blue=[10, Y, Y, Y])
    state, events = play(setup(UP6x3, rows), 3, 3)
    assert "won" not in kinds(events) and state.phase == "roll"
    assert events[-2:] == (Finished(RED, 1), ExtraRoll(RED, ("home",)))


def test_when_a_player_resigns_their_team_leaves_and_the_game_goes_on_for_two_teams():
    state = setup(UP6x3, everyone(UP6x3, red=[10, Y, Y, Y]), to_play=RED)
    state, events = resign(state, GREEN)
    assert kinds(events) == ["resigned", "resigned"]
    assert state.out == (GREEN, ORANGE) and state.phase == "roll"
    state, events = resign(state, YELLOW)
    assert kinds(events) == ["resigned", "resigned", "won"]
    assert state.phase == "over" and set(state.placings[:2]) == {RED, BLUE}
    assert state.placings[2:] == (PURPLE, YELLOW, ORANGE, GREEN)
