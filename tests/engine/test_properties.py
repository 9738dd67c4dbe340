"""What must always hold, over random games of every preset, option and player count.

For each rule set Hypothesis draws the seats, who starts, an optional hand-placed start, a list
of dice and choices (the part it shrinks), up to two players who leave, and a seed for a
`random.Random` that plays the long tail to the end: every example is one whole game played
through the public API. Rolls and moves are also held to `tests.engine.reference`, a second,
plain reading of docs/rules.md. Failing examples print as one line: the position before the step,
the action, the position after.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, reject, settings
from hypothesis import strategies as st

from games.engine import (
    MAX_STOCK,
    RULESETS,
    STORED_BONUSES,
    YARD,
    BonusPicked,
    Captured,
    ExtraRoll,
    Finished,
    IllegalAction,
    Move,
    Moved,
    NoMove,
    Released,
    Resigned,
    Rolled,
    Ruleset,
    Shielded,
    SixForfeited,
    State,
    TurnPassed,
    Won,
    dumps,
    legal_moves,
    loads,
    move,
    new_game,
    resign,
    roll,
    rules_name,
    setup,
    timeout_move,
    view_for,
)
from tests.engine import reference

VARIANTS: list[Ruleset] = [
    RULESETS["classic"],
    RULESETS["classic"].with_options(compulsory_capture=True, no_jump_home_column=True),
    RULESETS["family"],
    RULESETS["duel"],
    RULESETS["mensch"],
    RULESETS["mensch"].with_options(compulsory_capture=True),
    RULESETS["mensch"].with_options(optional_bring_out=True),
    RULESETS["mensch"].with_options(no_jump_home_column=True),
    RULESETS["mensch"].with_options(
        compulsory_capture=True, optional_bring_out=True, no_jump_home_column=True
    ),
    RULESETS["quick"],
    RULESETS["quick"].with_options(compulsory_capture=True),
    RULESETS["party"],
    RULESETS["party"].with_options(pairs=True),
    RULESETS["party"].with_options(power=True),
    RULESETS["party"].with_options(pairs=True, power=True),
    RULESETS["classic"].with_options(arms=6),
    RULESETS["family"].with_options(arms=6),
    RULESETS["classic"].with_options(teams=2),
    RULESETS["classic"].with_options(arms=6, teams=2),
    RULESETS["classic"].with_options(arms=6, teams=3),
]
CASES = [
    (rules, players)
    for rules in VARIANTS
    for players in range(rules.min_players, rules.max_players + 1)
    if not (rules.pairs and players != 4) and not (rules.teams and players != rules.arms)
]
VARIANT = pytest.mark.parametrize("rules", VARIANTS, ids=rules_name)
# Random games end in a few hundred to two thousand actions (rolls and moves); this bound is
# far above what random dice ever need, and low enough to catch a game that cannot end.
MAX_ACTIONS = 20_000

# Examples per rule set and property, random seeds and the failure blob come from the loaded
# hypothesis profile (tests/conftest.py: HYPOTHESIS_PROFILE=dev, ci or long).
SETTINGS = settings(suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@dataclass(frozen=True)
class Script:
    """Everything that decides one game: the rules, the seats, the start, dice and choices."""

    rules: Ruleset
    players: int
    first: int
    start: dict[int, list[int]] | None
    choices: list[int]
    seed: int
    resigns: dict[int, int] = field(default_factory=dict)  # action number -> which player

    def __repr__(self) -> str:
        return (
            f"Script({rules_name(self.rules)!r}, players={self.players}, first={self.first}, "
            f"start={self.start}, choices={self.choices}, seed={self.seed}, "
            f"resigns={self.resigns})"
        )

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        printer.text(repr(self))  # Hypothesis prints failing examples with this

    def begin(self) -> State:
        if self.start is None:
            return new_game(self.rules, self.players, self.first)
        return setup(self.rules, self.start, self.first)


@st.composite
def scripts(draw: st.DrawFn, rules: Ruleset) -> Script:
    players = draw(st.sampled_from([n for r, n in CASES if r is rules]))
    seats = rules.seats_for(players)
    first = draw(st.sampled_from(seats))
    start = None
    if draw(st.integers(0, 3)) == 0:
        # A hand-placed start puts pawns anywhere, the late game included.
        start = {}
        for c in seats:
            row = draw(st.lists(st.integers(YARD, rules.goal), min_size=4, max_size=4))
            if not rules.land_on_own:
                row = [p if p < 0 or p not in row[:j] else YARD for j, p in enumerate(row)]
            start[c] = row
        if all(p >= rules.finish_from for p in start[first]) and not rules.teamed:
            start[first][0] = YARD  # a player with every pawn home no longer plays
    choices = draw(st.lists(st.integers(0, 255), max_size=300))
    seed = draw(st.integers(0, 2**32 - 1))
    resigns = draw(st.dictionaries(st.integers(0, 1500), st.integers(0, 3), max_size=2))
    return Script(rules, players, first, start, choices, seed, resigns)


Action = tuple  # ("roll", face, bonus) | ("move", Move, shield) | ("resign", corner)


@dataclass
class Step:
    before: State
    action: Action
    after: State
    events: tuple


def play(script: Script) -> tuple[State, list[Step]]:
    """Play `script` to the end (or MAX_ACTIONS): the start and every step."""
    state = script.begin()
    start = state
    rng = random.Random(script.seed)
    pending = iter(script.choices)

    def pick(n: int) -> int:
        x = next(pending, None)
        return rng.randrange(n) if x is None else x % n

    rules = script.rules
    steps: list[Step] = []
    while state.phase != "over" and len(steps) < MAX_ACTIONS:
        before = state
        player = state.to_play
        if len(steps) in script.resigns:
            playing = [c for c in state.seats if c not in state.out and c not in state.placings]
            action: Action = ("resign", playing[script.resigns[len(steps)] % len(playing)])
            state, events = resign(state, action[1])
        elif state.phase == "roll":
            bonus = ""
            if rules.power:
                k = pick(6)
                if k < 3 and state.stock[player][k] and state.bonus in ("", STORED_BONUSES[k]):
                    bonus = STORED_BONUSES[k]
            action = ("roll", pick(6) + 1, bonus)
            state, events = roll(state, action[1], bonus=bonus)
        else:
            options = legal_moves(state)
            k = pick(len(options) + 1)
            chosen = timeout_move(state) if k == len(options) else options[k]
            shield = (
                rules.power
                and state.bonus == ""
                and state.stock[player][2] > 0
                and chosen.to <= rules.last_track
                and pick(3) == 0
            )
            action = ("move", chosen, shield)
            state, events = move(state, chosen, shield=shield)
        steps.append(Step(before, action, state, events))
    return start, steps


def replay(start: State, actions: list[Action]) -> list[tuple[State, tuple]]:
    out = []
    state = start
    for action in actions:
        if action[0] == "roll":
            state, events = roll(state, action[1], bonus=action[2])
        elif action[0] == "move":
            state, events = move(state, action[1], shield=action[2])
        else:
            state, events = resign(state, action[1])
        out.append((state, events))
    return out


def as_expected(m: Move) -> reference.Expected:
    """An engine move in the reference's terms."""
    return reference.Expected(
        m.corner, m.pawn, m.frm, m.to, tuple(sorted(m.captures)), m.home, m.bonus
    )


def where(step: Step) -> str:
    return f"{dumps(step.before)} then {step.action[:2]!r} -> {dumps(step.after)}"


def states(start: State, steps: list[Step]) -> list[State]:
    return [start] + [s.after for s in steps]


# ---------------------------------------------------------------------------- the properties


@VARIANT
@SETTINGS
@given(st.data())
def test_pawns_are_conserved(rules: Ruleset, data: st.DataObject) -> None:
    script = data.draw(scripts(rules), label="script")
    start, steps = play(script)
    for state in states(start, steps):
        assert len(state.pawns) == rules.arms, dumps(state)
        for c in range(rules.arms):
            if c in state.seats and c not in state.out:
                assert len(state.pawns[c]) == 4, dumps(state)
                assert all(YARD <= p <= rules.goal for p in state.pawns[c]), dumps(state)
            else:
                assert state.pawns[c] == (), dumps(state)


@VARIANT
@SETTINGS
@given(st.data())
def test_pawns_only_go_forward_or_to_the_yard_by_a_capture_off_safe_squares(
    rules: Ruleset, data: st.DataObject
) -> None:
    script = data.draw(scripts(rules), label="script")
    start, steps = play(script)
    for step in steps:
        before, after = step.before, step.after
        captured = {(e.corner, e.pawn): e for e in step.events if isinstance(e, Captured)}
        moved = [e for e in step.events if isinstance(e, Moved | Released)]
        if step.action[0] != "move":
            assert not captured and not moved, where(step)
        else:
            chosen = step.action[1]
            assert len(moved) == 1, where(step)
            assert (moved[0].corner, moved[0].pawn) == (chosen.corner, chosen.pawn), where(step)
        for (c, j), e in captured.items():
            q = before.pawns[c][j]
            assert e.square >= 0 and e.square not in rules.safe, where(step)
            assert reference.track_square(rules, c, q) == e.square, where(step)
            assert e.square == moved[0].square, where(step)
            assert c not in reference.team(rules, e.by), where(step)
            assert (c, j) not in {(pc, pj) for _, pc, pj in before.shields}, where(step)
        for c in after.seats:
            if not after.pawns[c]:
                assert c in after.out, where(step)
                continue
            for j, (p, q) in enumerate(zip(before.pawns[c], after.pawns[c], strict=True)):
                if (c, j) in captured:
                    assert q == YARD and p <= rules.last_track, where(step)
                elif moved and (moved[0].corner, moved[0].pawn) == (c, j):
                    assert q == (0 if p == YARD else p + before.die), where(step)
                else:
                    assert q == p, where(step)


@pytest.mark.parametrize("rules", [r for r in VARIANTS if not r.land_on_own], ids=rules_name)
@SETTINGS
@given(st.data())
def test_mensch_pawns_of_one_corner_never_share_a_square(
    rules: Ruleset, data: st.DataObject
) -> None:
    script = data.draw(scripts(rules), label="script")
    start, steps = play(script)
    for state in states(start, steps):
        for row in state.pawns:
            placed = [p for p in row if p >= 0]
            assert len(placed) == len(set(placed)), dumps(state)


@VARIANT
@SETTINGS
@given(st.data())
def test_replaying_the_same_rolls_and_choices_gives_the_same_game(
    rules: Ruleset, data: st.DataObject
) -> None:
    script = data.draw(scripts(rules), label="script")
    start, steps = play(script)
    again = replay(script.begin(), [s.action for s in steps])
    assert script.begin() == start
    for step, (state, events) in zip(steps, again, strict=True):
        assert state == step.after, where(step)
        assert hash(state) == hash(step.after), where(step)
        assert events == step.events, where(step)
    if steps:
        # The notation holds everything the rest of the game depends on.
        k = random.Random(script.seed).randrange(len(steps))
        resumed = replay(loads(dumps(steps[k].after)), [s.action for s in steps[k + 1 :]])
        assert [s for s, _ in resumed] == [s.after for s in steps[k + 1 :]]


@VARIANT
@SETTINGS
@given(st.data())
def test_a_roll_leaves_phase_move_exactly_when_the_rules_allow_a_move(
    rules: Ruleset, data: st.DataObject
) -> None:
    script = data.draw(scripts(rules), label="script")
    start, steps = play(script)
    for state in states(start, steps):
        assert state.phase in ("roll", "move", "over"), dumps(state)
        assert (state.phase == "move") == bool(legal_moves(state)), dumps(state)
        if state.phase != "move":
            assert (state.die, state.face) == (0, 0), dumps(state)
    for step in steps:
        if step.action[0] != "roll":
            continue
        before, after, events = step.before, step.after, step.events
        _, face, bonus = step.action
        player = before.to_play
        want = reference.roll_outcome(before, face, bonus)
        used = bonus or before.bonus
        value = 2 * face if used == "double" else face
        assert events[0] == Rolled(player, face, value, used), where(step)
        if want.kind == "moves":
            # Even a single choice waits for the player: the engine never moves by itself.
            assert after.phase == "move" and after.to_play == player, where(step)
            assert events == (events[0],), where(step)
            got = sorted(as_expected(m) for m in legal_moves(after))
            assert tuple(got) == want.moves, where(step)
            assert (after.die, after.face) == (value, face), where(step)
            for m in legal_moves(after):
                square = reference.track_square(rules, m.corner, m.to)
                assert m.square == (-1 if square is None else square), where(step)
                assert m.safe == (square in rules.safe), where(step)
            continue
        assert after.phase == "roll", where(step)
        kinds = [type(e) for e in events]
        if want.kind == "forfeit":
            assert SixForfeited in kinds and NoMove not in kinds, where(step)
        else:
            assert NoMove in kinds and SixForfeited not in kinds, where(step)
        if want.kind == "again":
            assert after.to_play == player and kinds[-1] is ExtraRoll, where(step)
            six = face == 6 and used != "double"
            assert after.sixes == (before.sixes + 1 if six else 0), where(step)
        else:
            assert kinds[-1] is TurnPassed and after.sixes == 0, where(step)
            assert after.to_play == reference.next_player(before, player, before.pawns)


@VARIANT
@SETTINGS
@given(st.data())
def test_a_move_gives_an_extra_roll_exactly_for_the_rules_reasons(
    rules: Ruleset, data: st.DataObject
) -> None:
    script = data.draw(scripts(rules), label="script")
    start, steps = play(script)
    for step in steps:
        if step.action[0] != "move":
            continue
        before, after, events = step.before, step.after, step.events
        m = step.action[1]
        player = before.to_play
        expected = as_expected(m)
        reasons = reference.extra_roll_reasons(before, expected, before.face)
        extra = [e for e in events if isinstance(e, ExtraRoll)]
        if after.phase == "over":
            assert not extra, where(step)
            continue
        finished_alone = not rules.teamed and all(
            p >= rules.finish_from for p in after.pawns[m.corner]
        )
        if reasons and not finished_alone:
            assert extra == [ExtraRoll(player, reasons)], where(step)
            assert after.to_play == player, where(step)
            reset = rules.sixes_reset_on_capture_or_home and (m.captures or m.home)
            assert after.sixes == (0 if reset else before.sixes), where(step)
        else:
            assert not extra, where(step)
            assert after.to_play == reference.next_player(before, player, after.pawns)
            assert after.sixes == 0 and after.tries == 0, where(step)


@VARIANT
@SETTINGS
@given(st.data())
def test_a_player_who_leaves_is_out_and_the_others_play_on(
    rules: Ruleset, data: st.DataObject
) -> None:
    script = data.draw(scripts(rules), label="script")
    start, steps = play(script)
    for step in steps:
        if step.action[0] != "resign":
            continue
        before, after, corner = step.before, step.after, step.action[1]
        leaving = set(reference.team(rules, corner))
        assert [e for e in step.events if isinstance(e, Resigned)] == [
            Resigned(c, "resigned")
            for c in sorted(leaving, key=lambda c: (c - corner) % rules.arms)
        ], where(step)
        assert leaving <= set(after.out) and all(after.pawns[c] == () for c in leaving)
        for c in set(after.seats) - leaving:
            assert after.pawns[c] == before.pawns[c], where(step)
        if after.phase == "over":
            continue
        if before.to_play in leaving:
            assert after.phase == "roll", where(step)
            assert after.to_play == reference.next_player(after, before.to_play, after.pawns)
        elif after.phase == "move":
            # The roll in hand stays; its moves no longer capture pawns that left.
            # The face releases a pawn as the rules say (quick: a 1 or a 6), not only a 6.
            out = before.face in rules.release_faces and before.bonus != "double"
            want = sorted(reference.moves(after, before.die, out))
            got = sorted(as_expected(m) for m in legal_moves(after))
            assert got == want, where(step)
        else:
            assert after.to_play == before.to_play or before.phase == "move", where(step)


@VARIANT
@SETTINGS
@given(st.data())
def test_the_timeout_move_is_the_most_advanced_legal_pawn(
    rules: Ruleset, data: st.DataObject
) -> None:
    script = data.draw(scripts(rules), label="script")
    start, steps = play(script)
    for state in states(start, steps):
        if state.phase != "move":
            continue
        best = min(legal_moves(state), key=lambda m: (-m.frm, m.pawn))
        assert timeout_move(state) == best, dumps(state)


@VARIANT
@SETTINGS
@given(st.data())
def test_every_game_ends_with_every_seat_placed_once_winner_first(
    rules: Ruleset, data: st.DataObject
) -> None:
    script = data.draw(scripts(rules), label="script")
    start, steps = play(script)
    final = steps[-1].after if steps else start
    event(f"{rules_name(script.rules)} x{script.players}")
    event(f"actions: {len(steps) // 500 * 500}+")
    event("resigned" if final.out else "played out")
    assert final.phase == "over", f"no end after {MAX_ACTIONS} actions: {dumps(final)}"
    assert sorted(final.placings) == sorted(final.seats), dumps(final)
    assert final.winner == final.placings[0], dumps(final)
    events = [e for s in steps for e in s.events]
    won = [e for e in events if isinstance(e, Won)]
    if steps:
        assert won == [Won(final.placings[0], final.placings)], dumps(final)
        assert all(s.before.phase != "over" for s in steps)
    if rules.teamed:
        # The side with all its pawns home (or the side left) wins: every partner above the
        # others.
        side = reference.team(rules, final.placings[0])
        assert set(final.placings[: len(side)]) == set(side), dumps(final)
        if not final.out:
            done = [c for c in side if reference.finished(reference.table(rules), final.pawns[c])]
            assert len(done) == len(side), dumps(final)
        return
    finished = list(start.placings) + [e.corner for e in events if isinstance(e, Finished)]
    out = [e.corner for e in events if isinstance(e, Resigned)]
    # Finishers in finishing order, then those still playing, then those who left, the
    # first to leave last.
    assert list(final.placings[: len(finished)]) == finished, dumps(final)
    assert list(final.placings[len(final.placings) - len(out) :]) == out[::-1], dumps(final)
    still = len(final.seats) - len(finished) - len(out)
    if rules.ending == "last":
        assert still == 1, dumps(final)  # plays on until one is left: the last loses
    else:
        assert finished[:1] == list(final.placings[:1]) or still == 1, dumps(final)
    if rules.name == "classic":
        # Classic places the others by pawns home, then total progress.
        rest = final.placings[len(finished) : len(final.placings) - len(out)]
        keys = [
            (sum(p >= rules.finish_from for p in final.pawns[c]), sum(final.pawns[c])) for c in rest
        ]
        assert keys == sorted(keys, reverse=True), dumps(final)


@VARIANT
@SETTINGS
@given(st.data())
def test_the_notation_round_trips_every_state(rules: Ruleset, data: st.DataObject) -> None:
    script = data.draw(scripts(rules), label="script")
    start, steps = play(script)
    for state in states(start, steps):
        text = dumps(state)
        again = loads(text)
        assert again == state, text
        assert hash(again) == hash(state), text
        assert dumps(again) == text


@VARIANT
@SETTINGS
@given(st.data())
def test_the_sixes_count_stays_below_the_limit(rules: Ruleset, data: st.DataObject) -> None:
    script = data.draw(scripts(rules), label="script")
    start, steps = play(script)
    limit = script.rules.max_sixes
    for state in states(start, steps):
        if limit:
            assert 0 <= state.sixes <= limit - 1, dumps(state)
        assert 0 <= state.tries < script.rules.tries_without_pawn_out or state.tries == 0


@VARIANT
@SETTINGS
@given(st.data())
def test_states_are_hashable_and_equal_states_hash_equal(
    rules: Ruleset, data: st.DataObject
) -> None:
    script = data.draw(scripts(rules), label="script")
    start, steps = play(script)
    seen: dict[State, State] = {}
    for state in states(start, steps):
        twin = loads(dumps(state))
        assert twin == state and hash(twin) == hash(state)
        other = seen.setdefault(state, state)
        assert other == state and hash(other) == hash(state)


@pytest.mark.parametrize("rules", [r for r in VARIANTS if r.power], ids=rules_name)
@SETTINGS
@given(st.data())
def test_power_bonuses_are_picked_spent_and_laid_back_as_the_rules_say(
    rules: Ruleset, data: st.DataObject
) -> None:
    script = data.draw(scripts(rules), label="script")
    start, steps = play(script)
    for step in steps:
        before, after, events = step.before, step.after, step.events
        player = before.to_play
        mine = list(before.stock[player])
        if step.action[0] == "roll":
            bonus = step.action[2]
            if bonus in ("double", "control"):
                mine[STORED_BONUSES.index(bonus)] -= 1  # spent on the roll, used or not
            assert after.stock[player] == tuple(mine), where(step)
            for k, kind in enumerate(STORED_BONUSES):
                if before.stock[player][k] == 0:
                    try:
                        roll(before, 3, bonus=kind)
                    except IllegalAction:
                        pass
                    else:
                        raise AssertionError(f"{kind} used from an empty stock: {where(step)}")
        elif step.action[0] == "move":
            m, shield = step.action[1], step.action[2]
            given = [e for e in events if isinstance(e, Shielded)]
            if (shield or before.bonus == "shield") and m.to <= rules.last_track:
                assert given == [Shielded(player, m.corner, m.pawn)], where(step)
                assert (player, m.corner, m.pawn) in after.shields, where(step)
                mine[2] -= 1
            else:
                assert not given, where(step)
            picked = [e for e in events if isinstance(e, BonusPicked)]
            if m.bonus:
                # Ending on a bonus square picks it for the mover, a partner's pawn included.
                assert picked == [BonusPicked(player, m.bonus, m.square)], where(step)
                if m.bonus in STORED_BONUSES:
                    k = STORED_BONUSES.index(m.bonus)
                    mine[k] = min(MAX_STOCK, mine[k] + 1)
            else:
                assert not picked, where(step)
            assert after.stock[player] == tuple(mine), where(step)
            if after.phase == "roll" and after.to_play == player:
                assert after.picked == before.picked | ({m.square} if m.bonus else set())
        others = [c for c in range(4) if c != player]
        assert [after.stock[c] for c in others] == [before.stock[c] for c in others]
        if after.phase == "roll" and after.to_play != player:
            # A new turn: picked bonuses lie on the board again, and the shields the new
            # player gave have lasted until now.
            assert not after.picked, where(step)
            assert all(g != after.to_play for g, _, _ in after.shields), where(step)


@VARIANT
@SETTINGS
@given(st.data())
def test_power_stock_stays_within_limits_and_hidden_from_others(
    rules: Ruleset, data: st.DataObject
) -> None:
    script = data.draw(scripts(rules), label="script")
    start, steps = play(script)
    for state in states(start, steps):
        for c, stock in enumerate(state.stock):
            assert all(0 <= n <= MAX_STOCK for n in stock), dumps(state)
            if not rules.power:
                assert stock == (0, 0, 0), dumps(state)
            seen = view_for(state, c)
            assert seen.stock[c] == stock
            assert all(seen.stock[o] == (0, 0, 0) for o in range(4) if o != c)
        assert rules.power or not (state.picked or state.shields or state.bonus)


@VARIANT
@SETTINGS
@given(st.data())
def test_illegal_moves_are_refused_with_a_readable_error(
    rules: Ruleset, data: st.DataObject
) -> None:
    script = data.draw(scripts(rules), label="script")
    start, steps = play(script)
    for step in steps[:200]:
        state = step.before
        if state.phase == "roll":
            try:
                move(state, Move(state.to_play, 0, state.pawns[state.to_play][0], 0))
            except IllegalAction as exc:
                assert str(exc)
            else:
                raise AssertionError(f"moved in phase roll: {dumps(state)}")
        elif state.phase == "move":
            legal = set(legal_moves(state))
            pawns = state.pawns[state.legal[0].corner]
            for j, p in enumerate(pawns):
                wrong = state.legal[0]._replace(pawn=j, frm=p, to=p + 1 if p >= 0 else 0)
                if any(m[:4] == wrong[:4] for m in legal):
                    continue
                try:
                    move(state, wrong)
                except IllegalAction as exc:
                    assert str(exc)
                else:
                    raise AssertionError(f"illegal {wrong} accepted in {dumps(state)}")
            try:
                roll(state, 3)
            except IllegalAction:
                pass
            else:
                raise AssertionError(f"rolled in phase move: {dumps(state)}")


@st.composite
def crowded_positions(draw: st.DrawFn, rules: Ruleset) -> tuple[State, int, str]:
    """A position with pawns of several corners on a few squares, and a roll for it."""
    players = draw(st.sampled_from([n for r, n in CASES if r is rules]))
    seats = rules.seats_for(players)
    hot = draw(st.lists(st.integers(0, rules.track_len - 1), min_size=1, max_size=3))
    if rules.power:
        # Bonus squares and the squares just before them, to land on them.
        hot.append(draw(st.sampled_from(sorted(reference.bonus_squares(rules)))))
    rows = {}
    for c in seats:
        row = []
        for _ in range(4):
            kind = draw(st.integers(0, 5))
            if kind == 0:
                p = YARD
            elif kind == 1:
                p = draw(st.integers(rules.last_track - 5, rules.goal))
            else:
                s = draw(st.sampled_from(hot)) - draw(st.integers(0, 6)) * (kind == 5)
                p = (s - c * rules.quarter) % rules.track_len
                p = p if p <= rules.last_track else YARD
            if not rules.land_on_own and p >= 0 and p in row:
                p = YARD
            row.append(p)
        rows[c] = row
    to_play = draw(st.sampled_from(seats))
    face = draw(st.integers(1, 6))
    try:
        state = setup(rules, rows, to_play)
    except IllegalAction:
        reject()  # a player with every pawn home does not play
    extra = {}
    if rules.max_sixes:
        extra["sixes"] = draw(st.integers(0, rules.max_sixes - 1))
    if rules.tries_without_pawn_out > 1:
        extra["tries"] = draw(st.integers(0, rules.tries_without_pawn_out - 1))
    bonus = ""
    if rules.power:
        on_track = [
            (c, j)
            for c in seats
            for j, p in enumerate(state.pawns[c])
            if 0 <= p <= rules.last_track
        ]
        shielded = draw(st.lists(st.sampled_from(on_track), max_size=3)) if on_track else []
        extra["shields"] = frozenset((draw(st.sampled_from(seats)), c, j) for c, j in shielded)
        squares = sorted(reference.bonus_squares(rules))
        extra["picked"] = frozenset(draw(st.lists(st.sampled_from(squares), max_size=3)))
        extra["stock"] = tuple(
            tuple(draw(st.integers(0, 3)) for _ in range(3)) if c in seats else (0, 0, 0)
            for c in range(4)
        )
        bonus = draw(st.sampled_from(["", "", "double", "control", "shield"]))
        if bonus and extra["stock"][to_play][STORED_BONUSES.index(bonus)] == 0:
            bonus = ""
    return loads(dumps(state._replace(**extra))), face, bonus


@VARIANT
@settings(SETTINGS, max_examples=SETTINGS.max_examples * 8)
@given(st.data())
def test_crowded_positions_allow_exactly_the_moves_the_rules_allow(
    rules: Ruleset, data: st.DataObject
) -> None:
    state, face, bonus = data.draw(crowded_positions(rules), label="position")
    if state.phase != "roll":
        return
    want = reference.roll_outcome(state, face, bonus)
    after, events = roll(state, face, bonus=bonus)
    where = f"{dumps(state)} ; {face} {bonus}"
    if want.kind != "moves":
        assert after.phase == "roll", where
        forfeited = any(isinstance(e, SixForfeited) for e in events)
        again = after.to_play == state.to_play and any(isinstance(e, ExtraRoll) for e in events)
        assert (forfeited, again) == (want.kind == "forfeit", want.kind == "again"), where
        return
    got = sorted(as_expected(m) for m in legal_moves(after))
    assert tuple(got) == want.moves, where
    for m in legal_moves(after):
        done, events = move(after, m)
        reasons = reference.extra_roll_reasons(after, as_expected(m), face)
        extra = [e for e in events if isinstance(e, ExtraRoll)]
        if done.phase == "over":
            continue
        alone = not rules.teamed and done.finished(m.corner)
        assert extra == ([ExtraRoll(state.to_play, reasons)] if reasons and not alone else []), (
            f"{where} then {m}"
        )


def test_power_bonus_squares_lie_off_the_safe_squares_the_same_in_every_quarter() -> None:
    rules = RULESETS["party"].with_options(power=True)
    found: dict[int, str] = {}
    for corner in (0, 2):
        for p in range(rules.last_track):
            rows = {c: [YARD] * 4 for c in (0, 2)}
            rows[corner] = [p, YARD, YARD, YARD]
            after, _ = roll(setup(rules, rows, corner), 1)
            m = legal_moves(after)[0]
            found[m.square] = m.bonus
    assert len(found) == rules.track_len
    assert all(not found[s] for s in rules.safe)
    for s, kind in found.items():
        assert found[(s + rules.quarter) % rules.track_len] == kind, s
    assert {k for k in found.values() if k} == {"double", "control", "shield", "plus"}
    assert {s: k for s, k in found.items() if k} == reference.bonus_squares(rules)
