"""The expert on positions set by hand where one move is plainly best, for every preset:
a capture that wins the race, a safe square for a pawn under threat, and mensch's start
squares (a bring-out captures there, so a pawn does not wait on a rival's start)."""

import copy
import random

import pytest

from games.bots import BOTS, Expert
from games.bots.expert import TABLE_SETTINGS
from games.engine import RULESETS, YARD, roll, rules_from_name, rules_name, setup

Y = YARD
BOARD_52 = ["classic", "family", "duel", "party", "party+power"]


def expert_choice(rules, pawns, face):
    state, _ = roll(setup(rules, pawns, 0), face)
    assert state.phase == "move" and len(state.legal) > 1
    # A clock that never moves: the search is the same on any machine.
    chosen, reason = Expert(clock=lambda: 0.0).choose(state, random.Random(0))
    assert chosen in state.legal and reason
    return chosen, reason


@pytest.mark.parametrize("name", BOARD_52)
def test_a_capture_that_wins_the_race(name):
    # Yellow has three pawns home and its last one 11 from home, on square 19 (not safe).
    # Red's pawn 2 reaches it with a 4; the alternative brings pawn 1 home.
    rules = rules_from_name(name)
    chosen, reason = expert_choice(rules, {0: [52, 15, Y, Y], 2: [45, 56, 56, 56]}, 4)
    assert (chosen.pawn, chosen.captures) == (1, ((2, 0),))
    assert reason.startswith("captures Yellow's pawn")


@pytest.mark.parametrize("name", BOARD_52)
def test_a_safe_square_for_a_pawn_under_threat(name):
    # Yellow's pawn on square 28 is 3 behind Red's pawn 1 on square 31; a 3 takes that pawn
    # to the star on square 34. Red's pawn 2 (square 3) has nobody behind it.
    rules = rules_from_name(name)
    chosen, reason = expert_choice(rules, {0: [31, 3, Y, Y], 2: [2, 40, Y, Y]}, 3)
    assert (chosen.pawn, chosen.to) == (0, 34)
    assert "safe" in reason or "reach" in reason


MENSCH = RULESETS["mensch"]


def test_mensch_a_capture_that_wins_the_race():
    # Green (corner 2 on this board) has three pawns in its home row and its last one on
    # square 15 (progress 35).
    chosen, reason = expert_choice(MENSCH, {0: [11, 25, Y, Y], 2: [35, 41, 42, 43]}, 4)
    assert (chosen.pawn, chosen.captures) == (0, ((2, 0),))
    assert reason.startswith("captures Green's pawn")


def test_mensch_a_pawn_under_threat_runs_into_its_home_row():
    # No safe squares in mensch: only the home row is out of reach. Yellow's pawn on square
    # 36 is 2 behind Red's pawn at progress 38; a 3 takes it into the home row (41).
    chosen, _ = expert_choice(MENSCH, {0: [38, 5, Y, Y], 2: [16, Y, Y, Y]}, 3)
    assert (chosen.pawn, chosen.to) == (0, 41)


def test_mensch_a_pawn_leaves_a_rival_start_square():
    # Red's pawn 1 stands on Yellow's start square (20) while Yellow has pawns in its yard:
    # Yellow's next 6 must bring one out, and that captures. Pawn 2 is out of reach.
    chosen, _ = expert_choice(MENSCH, {0: [20, 5, Y, Y], 2: [30, Y, Y, Y]}, 2)
    assert (chosen.pawn, chosen.frm) == (0, 20)


def test_mensch_a_pawn_does_not_stop_on_a_rival_start_square():
    # A 4 would take pawn 1 onto Yellow's start square (20); pawn 2 moves as far in safety.
    chosen, _ = expert_choice(MENSCH, {0: [16, 2, Y, Y], 2: [30, Y, Y, Y]}, 4)
    assert (chosen.pawn, chosen.to) == (1, 6)


# ---------------------------------------------------------------- tables of four
# The expert plays a table of four with its own settings per rule set (`TABLE_SETTINGS`):
# the same plain choices at every four-player table, Pairs and Power included. Red's rivals
# here are Blue (corner 3) and, outside Pairs, Green and Yellow (in Pairs Yellow is Red's
# partner).

TABLES_52 = ["classic", "family", "party", "party+pairs", "party+power", "party+pairs+power"]


def table_choice(rules, pawns, face):
    state, _ = roll(setup(rules, pawns, 0), face)
    assert state.phase == "move" and len(state.legal) > 1 and len(state.seats) == 4
    expert = copy.copy(BOTS["expert"])
    expert.clock = lambda: 0.0  # a clock that never moves: the same search on any machine
    assert expert._settings(state) == TABLE_SETTINGS[rules_name(rules)]
    chosen, reason = expert.choose(state, random.Random(0))
    assert chosen in state.legal and reason
    return chosen, reason


@pytest.mark.parametrize("name", TABLES_52)
def test_at_a_table_of_four_a_capture_that_wins_the_race(name):
    # Blue has three pawns home and its last one on square 19 (progress 32); Red's pawn 1
    # (square 15) reaches it with a 4; the alternative brings pawn 0 home.
    rules = rules_from_name(name)
    pawns = {0: [52, 15, Y, Y], 1: [Y] * 4, 2: [Y] * 4, 3: [32, 56, 56, 56]}
    chosen, reason = table_choice(rules, pawns, 4)
    assert (chosen.pawn, chosen.captures) == (1, ((3, 0),))
    assert reason.startswith("captures Blue's pawn")


@pytest.mark.parametrize("name", TABLES_52)
def test_at_a_table_of_four_a_safe_square_for_a_pawn_under_threat(name):
    # Blue's pawn on square 28 is 3 behind Red's pawn 0 on square 31; a 3 takes it to the
    # star on square 34. Red's pawn 1 (square 3) has nobody behind it.
    rules = rules_from_name(name)
    pawns = {0: [31, 3, Y, Y], 1: [Y] * 4, 2: [Y] * 4, 3: [41, Y, Y, Y]}
    chosen, reason = table_choice(rules, pawns, 3)
    assert (chosen.pawn, chosen.to) == (0, 34)
    assert "safe" in reason or "reach" in reason


def test_mensch_at_a_table_of_four_a_capture_that_wins_the_race():
    # Green has three pawns in its home row and its last one on square 15 (progress 35).
    pawns = {0: [11, 25, Y, Y], 1: [Y] * 4, 2: [35, 41, 42, 43], 3: [Y] * 4}
    chosen, reason = table_choice(MENSCH, pawns, 4)
    assert (chosen.pawn, chosen.captures) == (0, ((2, 0),))
    assert reason.startswith("captures Green's pawn")


def test_mensch_at_a_table_of_four_a_pawn_leaves_a_rival_start_square():
    # Red's pawn 0 stands on Green's start square (20) while Green has pawns in its yard:
    # Green's next 6 must bring one out, and that captures.
    pawns = {0: [20, 5, Y, Y], 1: [Y] * 4, 2: [30, Y, Y, Y], 3: [Y] * 4}
    chosen, _ = table_choice(MENSCH, pawns, 2)
    assert (chosen.pawn, chosen.frm) == (0, 20)
