"""The greedy, hard and beginner bots' orders of preference, on positions set by
hand, and how often easy and medium play the best pawn."""

import random

import pytest

from games.bots import BOTS, best_pawn
from games.engine import RULESETS, YARD, roll, setup

Y = YARD
CLASSIC = RULESETS["classic"]


def at(pawns, face, rules=CLASSIC, to_play=0):
    state, _ = roll(setup(rules, pawns, to_play), face)
    assert state.phase == "move"
    return state


# Yellow (corner 2) stands at progress 44, which is Red's progress 18 (square 18, not safe).
HOME_OR_CAPTURE = at({0: [53, 15, Y, Y], 2: [44, Y, Y, Y]}, 3)
CAPTURE_OR_OUT = at({0: [12, Y, Y, Y], 2: [44, Y, Y, Y]}, 6)
OUT_OR_ALONG = at({0: [20, Y, Y, Y], 2: [Y, Y, Y, Y]}, 6)
ALONG = at({0: [20, 5, Y, Y], 2: [Y, Y, Y, Y]}, 2)


def greedy(state):
    return BOTS["greedy"].choose(state, random.Random(0))


def test_greedy_brings_a_pawn_home_before_capturing():
    chosen, reason = greedy(HOME_OR_CAPTURE)
    assert (chosen.pawn, chosen.to) == (0, 56)
    assert reason == "brings pawn 1 home"


def test_greedy_captures_before_leaving_the_yard():
    chosen, reason = greedy(CAPTURE_OR_OUT)
    assert chosen.captures == ((2, 0),)
    assert reason == "captures Yellow's pawn"


def test_greedy_leaves_the_yard_before_moving_along():
    chosen, reason = greedy(OUT_OR_ALONG)
    assert chosen.frm == YARD and chosen.pawn == 1
    assert reason == "brings pawn 2 out of the yard"


def test_greedy_otherwise_moves_the_pawn_that_ends_furthest_along():
    chosen, reason = greedy(ALONG)
    assert (chosen.pawn, chosen.to) == (0, 22)
    assert reason == "moves pawn 1, the pawn furthest along"


def test_greedy_names_every_colour_it_captures():
    # Green (corner 1) at progress 5 and Blue (corner 3) at progress 31 share square 18.
    state = at({0: [12, Y, Y, Y], 1: [5, Y, Y, Y], 2: [Y] * 4, 3: [31, Y, Y, Y]}, 6)
    chosen, reason = greedy(state)
    assert set(chosen.captures) == {(1, 0), (3, 0)}
    assert reason == "captures Green's and Blue's pawns"


def hard(state):
    return best_pawn(state)


def test_hard_captures_before_bringing_a_pawn_home():
    chosen, reason = hard(HOME_OR_CAPTURE)
    assert chosen.captures == ((2, 0),)
    assert reason == "captures Yellow's pawn"


def test_hard_brings_a_pawn_home_before_landing_safe():
    # Pawn 2 at progress 5 could land on the star at 8.
    chosen, reason = hard(at({0: [53, 5, Y, Y], 2: [Y] * 4}, 3))
    assert chosen.home and reason == "brings pawn 1 home"


def test_hard_lands_safe_before_leaving_the_yard():
    chosen, reason = hard(at({0: [2, Y, Y, Y], 2: [Y] * 4}, 6))
    assert (chosen.pawn, chosen.to) == (0, 8)
    assert reason == "moves pawn 1 to a safe square"


def test_hard_counts_the_home_column_as_safe():
    chosen, reason = hard(at({0: [48, 10, Y, Y], 2: [Y] * 4}, 4))
    assert (chosen.pawn, chosen.to) == (0, 52)
    assert reason == "moves pawn 1 to its home column"


# Yellow at progress 1 stands on square 27, three squares behind Red's pawn on square 30.
def test_hard_leaves_the_yard_before_running_from_a_rival():
    chosen, _ = hard(at({0: [30, Y, Y, Y], 2: [1, Y, Y, Y]}, 6))
    assert chosen.frm == YARD


def test_hard_runs_from_a_rival_before_moving_the_pawn_furthest_along():
    chosen, reason = hard(at({0: [30, 40, Y, Y], 2: [1, Y, Y, Y]}, 5))
    assert (chosen.pawn, chosen.to) == (0, 35)
    assert reason == "moves pawn 1 away from a rival pawn"


def test_hard_does_not_run_to_a_square_no_less_threatened():
    # From 30 to 32 Yellow's pawn on 27 is still within a roll: no run, the furthest pawn.
    chosen, reason = hard(at({0: [30, 40, Y, Y], 2: [1, Y, Y, Y]}, 2))
    assert (chosen.pawn, chosen.to) == (1, 42)
    assert reason == "moves pawn 2, the pawn furthest along"


def test_hard_runs_with_the_most_threatened_pawn():
    # Pawn 1 on square 40 has one rival behind it (Yellow on 38), pawn 2 on square 20 has two
    # (Yellow on 15 and 16); a 5 takes either out of reach, and pawn 2 runs.
    state = at({0: [40, 20, Y, Y], 2: [12, 41, 42, Y]}, 5)
    chosen, reason = hard(state)
    assert (chosen.pawn, chosen.to) == (1, 25)
    assert reason == "moves pawn 2 away from a rival pawn"


# Four legal moves with a 6 and exactly one best: pawn 1 captures Yellow on square 16.
CHOICE = at({0: [10, 20, 30, Y], 2: [42, Y, Y, Y]}, 6)


@pytest.mark.parametrize(("name", "skill"), [("easy", 0.2), ("medium", 0.7), ("hard", 1.0)])
def test_the_best_pawn_is_played_as_often_as_the_level_says(name, skill):
    rng = random.Random(f"frequency:{name}")
    best, _ = best_pawn(CHOICE)
    assert best.captures
    n = 3000
    picks = [BOTS[name].choose(CHOICE, rng) for _ in range(n)]
    chose_best = sum(m == best for m, _ in picks) / n
    # Best on purpose with probability `skill`, else by chance one time in four.
    expected = skill + (1 - skill) / len(CHOICE.legal)
    assert abs(chose_best - expected) < 0.03
    on_purpose = sum(not r.endswith("on a hunch") for _, r in picks) / n
    assert abs(on_purpose - skill) < 0.03


class Fixed(random.Random):
    """A random source whose every draw is `value`: the gentle level notices, or misses."""

    def __init__(self, value):
        super().__init__(0)
        self.value = value

    def random(self):
        return self.value


def beginner(state, notices):
    return BOTS["beginner"].choose(state, Fixed(0.0 if notices else 0.99))


def test_beginner_sometimes_misses_a_capture_and_says_so():
    chosen, reason = beginner(CAPTURE_OR_OUT, notices=True)
    assert chosen.captures == ((2, 0),)
    assert reason == "captures Yellow's pawn"
    chosen, reason = beginner(CAPTURE_OR_OUT, notices=False)
    assert (chosen.frm, chosen.captures) == (Y, ())
    assert reason == "brings pawn 2 out of the yard (it missed a capture)"


def test_beginner_sometimes_misses_a_safe_square_and_says_so():
    state = at({0: [2, 18, Y, Y], 2: [Y, Y, Y, Y]}, 3)  # pawn 2 can reach the star at 21
    chosen, reason = beginner(state, notices=True)
    assert (chosen.pawn, chosen.to) == (1, 21)
    assert reason == "moves pawn 2 to a safe square"
    chosen, reason = beginner(state, notices=False)
    assert (chosen.pawn, chosen.to) == (0, 5)
    assert reason == "moves pawn 1, the pawn furthest behind (it missed a safe square)"


def test_beginner_otherwise_keeps_its_pawns_together():
    chosen, reason = beginner(ALONG, notices=True)
    assert (chosen.pawn, chosen.frm) == (1, 5)
    assert reason == "moves pawn 2, the pawn furthest behind"
