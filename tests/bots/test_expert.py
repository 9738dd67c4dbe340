"""The expert: legal moves, sensible choices, Power and Pairs, and its budgets (driven by a
fake clock, never by timing)."""

import random

from games.bots import BOTS, Expert
from games.bots.expert import Table, values
from games.engine import RULESETS, YARD, legal_moves, move, roll, setup

Y = YARD
CLASSIC = RULESETS["classic"]
DUEL = RULESETS["duel"]
POWER = RULESETS["party"].with_options(power=True)
PAIRS = RULESETS["party"].with_options(pairs=True)


def at(rules, pawns, face, to_play=0, **kw):
    state, _ = roll(setup(rules, pawns, to_play, **kw), face)
    assert state.phase == "move"
    return state


class Clock:
    """A clock that moves `step` seconds each time it is read."""

    def __init__(self, step):
        self.now = 0.0
        self.step = step
        self.reads = 0

    def __call__(self):
        self.reads += 1
        self.now += self.step
        return self.now


# Red can move pawn 1 (square 30) or pawn 2 (square 2) by 4; four legal moves after a 6.
BUSY = at(DUEL, {0: [30, 2, 12, Y], 2: [40, 1, Y, Y]}, 6)


def test_an_unlimited_budget_searches_to_full_depth():
    expert = Expert(depth=2, max_nodes=10**9, budget_ms=1.0, clock=Clock(0.0))
    ranked = expert.rank(BUSY)
    assert expert.reached == 2
    assert sorted(m for _, m in ranked) == sorted(legal_moves(BUSY))


def test_the_node_budget_stops_deepening_after_the_first_layer():
    full = Expert(depth=2, max_nodes=10**9, clock=Clock(0.0))
    full.rank(BUSY)
    shallow = Expert(depth=1, clock=Clock(0.0))
    shallow.rank(BUSY)
    assert full.nodes > 5 * shallow.nodes
    # Too small for a second level: it is not started.
    tiny = Expert(depth=2, max_nodes=1, clock=Clock(0.0))
    tiny.rank(BUSY)
    assert (tiny.reached, tiny.nodes) == (1, shallow.nodes)
    # Room to start the second level but not to finish it: it gives up near the budget.
    cap = shallow.nodes * 10
    assert cap < full.nodes - shallow.nodes
    partial = Expert(depth=2, max_nodes=cap, clock=Clock(0.0))
    ranked = partial.rank(BUSY)
    assert partial.reached == 1
    assert cap < partial.nodes < cap + 100
    assert ranked == sorted(shallow.rank(BUSY), key=lambda vm: -vm[0])


def test_a_spent_clock_falls_back_to_the_last_complete_level():
    # Every read of the clock moves it 1 ms; a budget of 5 ms allows a handful of reads.
    clock = Clock(0.001)
    expert = Expert(depth=2, max_nodes=10**9, budget_ms=5.0, clock=clock)
    ranked = expert.rank(BUSY)
    assert expert.reached < 2
    assert clock.reads <= 7
    assert ranked[0][1] in legal_moves(BUSY)


def test_with_no_time_at_all_the_evaluation_alone_decides():
    clock = Clock(10.0)
    expert = Expert(depth=2, budget_ms=1.0, clock=clock)
    ranked = expert.rank(BUSY)
    assert expert.reached == 0
    me = BUSY.to_play
    from games.bots.expert import score

    flat = []
    for m in legal_moves(BUSY):
        after, _ = move(BUSY, m)
        flat.append((score(after, values(after), me), m))
    assert ranked[0][1] == max(flat)[1]
    chosen, reason = Expert(depth=2, budget_ms=1.0, clock=Clock(10.0)).choose(BUSY, random.Random())
    assert chosen in legal_moves(BUSY) and reason


def test_a_single_legal_move_needs_no_search():
    state = at(DUEL, {0: [20, Y, Y, Y], 2: [Y] * 4}, 3)
    clock = Clock(0.0)
    chosen, reason = Expert(clock=clock).choose(state, random.Random())
    assert chosen == legal_moves(state)[0] and reason == "moves pawn 1 three squares"
    assert clock.reads == 0


def expert(state):
    return BOTS["expert"].choose(state, random.Random(0))


def test_the_expert_captures_a_far_advanced_pawn():
    # Pawn 1 on square 10 can hit Yellow's pawn on square 14 (Yellow's progress 40).
    chosen, reason = expert(at(DUEL, {0: [10, 30, Y, Y], 2: [40, Y, Y, Y]}, 4))
    assert chosen.captures == ((2, 0),)
    assert reason == "captures Yellow's pawn with pawn 1"


def test_the_expert_does_not_stop_just_in_front_of_a_rival():
    # Yellow waits on square 27 (progress 1). Pawn 1 from 24 would stop on 28, a square in
    # front of it; pawn 2 from 40 goes to 44, out of anyone's reach.
    chosen, _ = expert(at(DUEL, {0: [24, 40, Y, Y], 2: [1, Y, Y, Y]}, 4))
    assert chosen.pawn == 1


def test_the_expert_runs_from_a_rival_right_behind():
    # Yellow on square 27 is 3 behind pawn 1 (square 30); pawn 2 (square 5) is in no danger.
    chosen, reason = expert(at(DUEL, {0: [30, 5, Y, Y], 2: [1, Y, Y, Y]}, 5))
    assert (chosen.pawn, chosen.to) == (0, 35)
    assert reason == "moves pawn 1 out of a rival's reach"


def test_danger_lowers_a_pawns_worth():
    quiet = setup(DUEL, {0: [30, Y, Y, Y], 2: [Y] * 4}, to_play=2)
    # Yellow's pawn at progress 1 stands on square 27, three squares behind Red's pawn.
    chased = setup(DUEL, {0: [30, Y, Y, Y], 2: [Y, Y, Y, 1]}, to_play=2)
    assert values(chased)[0] < values(quiet)[0]
    # On the star at 34 the same threat costs nothing.
    starred = setup(DUEL, {0: [34, Y, Y, Y], 2: [Y, Y, Y, 4]}, to_play=2)
    calm = setup(DUEL, {0: [34, Y, Y, Y], 2: [Y] * 4}, to_play=2)
    assert values(starred)[0] == values(calm)[0]


# Power: Red holds one Dice control; Yellow's pawn at progress 45 stands 3 squares ahead of
# Red's pawn on square 16 (square 19, not safe, not a bonus square).
def test_the_expert_spends_dice_control_on_a_capture_worth_it():
    state = setup(POWER, {0: [16, Y, Y, Y], 2: [45, Y, Y, Y]}, 0, stock={0: (0, 1, 0)})
    bot = BOTS["expert"]
    assert bot.choose_bonus(state, random.Random(0)) == "control"
    face = bot.choose_face(state, random.Random(0))
    assert face == 3
    rolled, _ = roll(state, face, bonus="control")
    assert any(m.captures for m in legal_moves(rolled))


def test_the_expert_keeps_a_double_roll_that_would_overshoot_home():
    # Pawn 1 is 3 from home and the rest wait in the yard: doubled, only a 1 could move it.
    state = setup(POWER, {0: [53, Y, Y, Y], 2: [Y] * 4}, 0, stock={0: (1, 0, 0)})
    assert BOTS["expert"].choose_bonus(state, random.Random(0)) == ""


def test_the_expert_keeps_a_shield_when_no_rival_is_near():
    state = setup(POWER, {0: [16, 20, Y, Y], 2: [Y] * 4}, 0, stock={0: (0, 0, 1)})
    assert BOTS["expert"].choose_bonus(state, random.Random(0)) == ""


def test_no_stock_no_bonus():
    state = setup(POWER, {0: [16, Y, Y, Y], 2: [45, Y, Y, Y]}, 0)
    for bot in BOTS.values():
        assert bot.choose_bonus(state, random.Random(0)) == ""


def test_the_expert_shields_a_pawn_in_danger():
    # Yellow's pawns on squares 26..29 (its start and just past it) crowd Red's pawn on 31.
    state = setup(POWER, {0: [31, Y, Y, Y], 2: [0, 1, 2, 3]}, 0, stock={0: (0, 0, 1)})
    assert BOTS["expert"].choose_bonus(state, random.Random(0)) == "shield"


def test_a_finished_player_moves_the_partners_pawns_in_pairs():
    # Red (corner 0) is home; Yellow (corner 2) is Red's partner.
    state = at(PAIRS, {0: [56] * 4, 1: [Y] * 4, 2: [10, 20, Y, Y], 3: [Y] * 4}, 3)
    for name, bot in BOTS.items():
        chosen, reason = bot.choose(state, random.Random(0))
        assert chosen.corner == 2, name
        assert "Yellow's pawn" in reason, name


def test_a_table_setting_applies_only_at_tables_of_more_than_two():
    one_level = Table(1, "rule", 10**9)
    crowd = Expert(tables={"duel": one_level, "classic": one_level}, clock=Clock(0.0))
    crowd.rank(BUSY)  # duel: the usual two levels
    assert crowd.reached == 2
    four = at(CLASSIC, {0: [30, 2, 12, Y], 1: [Y] * 4, 2: [40, 1, Y, Y], 3: [Y] * 4}, 6)
    ranked = crowd.rank(four)
    assert crowd.reached == 1
    assert sorted(m for _, m in ranked) == sorted(legal_moves(four))


def test_rivals_answering_by_the_hard_rule_still_rank_every_move():
    expert = Expert(model="rule", depth=2, max_nodes=10**9, clock=Clock(0.0))
    ranked = expert.rank(BUSY)
    assert expert.reached == 2
    assert sorted(m for _, m in ranked) == sorted(legal_moves(BUSY))
