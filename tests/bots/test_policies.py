"""Every bot, on every preset and party option, returns a legal move with a reason, and a
usable bonus before a Power roll."""

import random

import pytest

from games.bots import BOTS
from games.bots.tournament import POLICIES
from games.engine import RULESETS, IllegalAction, legal_moves, move, new_game, roll, rules_name

VARIANTS = [
    (RULESETS["classic"], 4),
    (RULESETS["classic"], 3),
    (RULESETS["family"], 2),
    (RULESETS["duel"], 2),
    (RULESETS["mensch"], 4),
    (RULESETS["mensch"].with_options(compulsory_capture=True, no_jump_home_column=True), 3),
    (RULESETS["mensch"].with_options(optional_bring_out=True), 2),
    (RULESETS["party"], 4),
    (RULESETS["party"].with_options(pairs=True), 4),
    (RULESETS["party"].with_options(power=True), 3),
    (RULESETS["party"].with_options(pairs=True, power=True), 4),
]


def positions(rules, players, seed, every=7):
    """Move-phase positions sampled from one game that random choices play to its end."""
    rng = random.Random(seed)
    state = new_game(rules, players, first=rules.seats_for(players)[0])
    seen = 0
    while state.phase != "over":
        bonus = ""
        if rules.power and state.bonus == "" and rng.random() < 0.4:
            kinds = [
                k
                for k, n in zip(
                    ("double", "control", "shield"), state.stock[state.to_play], strict=True
                )
                if n
            ]
            bonus = rng.choice(kinds) if kinds else ""
        state, _ = roll(state, rng.randint(1, 6), bonus=bonus)
        if state.phase == "move":
            seen += 1
            if seen % every == 0:
                yield state
            state, _ = move(state, rng.choice(legal_moves(state)))


@pytest.mark.parametrize(
    ("rules", "players"), VARIANTS, ids=[f"{rules_name(r)}-{n}" for r, n in VARIANTS]
)
def test_every_bot_returns_a_legal_move_and_a_reason(rules, players):
    rng = random.Random(1)
    checked = 0
    for state in positions(rules, players, seed=players):
        for name, bot in POLICIES.items():
            chosen, reason = bot.choose(state, rng)
            assert chosen in legal_moves(state), (name, state)
            assert isinstance(reason, str) and reason.strip(), (name, state)
            assert move(state, chosen)[0] is not None
        checked += 1
    assert checked >= 5


@pytest.mark.parametrize(
    "rules",
    [
        RULESETS["party"].with_options(power=True),
        RULESETS["party"].with_options(pairs=True, power=True),
    ],
    ids=["power", "pairs+power"],
)
def test_bonuses_chosen_before_a_roll_are_usable(rules):
    rng = random.Random(2)
    used = set()
    for state in positions(rules, 4, seed=5, every=3):
        # The position after the move: whoever rolls next chooses a bonus from their stock.
        state, _ = move(state, legal_moves(state)[0])
        if state.phase != "roll":
            continue
        for name in BOTS:
            bonus = BOTS[name].choose_bonus(state, rng)
            assert bonus in ("", "double", "control", "shield"), name
            face = BOTS[name].choose_face(state, rng) if bonus == "control" else 3
            assert 1 <= face <= 6
            try:
                roll(state, face, bonus=bonus)
            except IllegalAction as exc:  # pragma: no cover - the failure message
                pytest.fail(f"{name} chose {bonus!r} in {state!r}: {exc}")
            used.add(bonus)
    assert "control" in used or "double" in used


def test_labels_say_bot():
    assert [bot.label for bot in BOTS.values()] == [
        "Beginner BOT",
        "Easy BOT",
        "Medium BOT",
        "Hard BOT",
        "Greedy BOT",
        "Expert BOT",
    ]
    assert list(BOTS) == ["beginner", "easy", "medium", "hard", "greedy", "expert"]
    assert all(bot.about for bot in BOTS.values())


def test_a_bot_refuses_a_state_without_a_roll_in_hand():
    state = new_game(RULESETS["duel"], 2, first=0)
    for bot in BOTS.values():
        with pytest.raises(ValueError):
            bot.choose(state, random.Random(0))
