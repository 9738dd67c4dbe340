"""Regressions: engine behaviour that once contradicted docs/rules.md or the engine's own contract,
found while writing the rule tests (impossible positions accepted by the notation, an
unreachable error message, a finished party player set to play)."""

import pytest

from games.engine import RULESETS, IllegalAction, Move, loads, move, roll, setup

Y = -1
PAWNS = "pawns=y,y,y,y/-/y,y,y,y/-"


def test_loads_of_an_empty_string_raises_illegal_action():
    # Was: ValueError("not enough values to unpack ...") from `head, *tokens = text.split()`.
    with pytest.raises(IllegalAction):
        loads("")


def test_loads_with_a_corner_past_3_to_play_in_phase_move_raises_illegal_action():
    # Was: IndexError("tuple index out of range") from mover_of / _moves.
    with pytest.raises(IllegalAction):
        loads("classic to=7 phase=move die=3 face=3 pawns=5,y,y,y/-/y,y,y,y/-")


@pytest.mark.parametrize(
    "text",
    [
        "classic to=7 " + PAWNS,  # no corner 7; roll() then raises IndexError
        "classic to=1 " + PAWNS,  # corner 1 has no player (setup refuses this)
        "classic to=0 pawns=-/-/-/-",  # nobody seated
        "classic to=0 pawns=y,y,y,y/-/-/-",  # one player (setup refuses this)
        "classic to=0 seats=9 " + PAWNS,  # a seat that is no corner
        "mensch to=0 pawns=5,5,y,y/-/y,y,y,y/-",  # mensch: never two own pawns on one square
        "classic to=0 phase=move die=13 face=6 pawns=5,y,y,y/-/y,y,y,y/-",  # no die shows 13
        "classic to=0 phase=move die=-2 face=3 pawns=5,y,y,y/-/y,y,y,y/-",
        "classic to=0 phase=move die=3 face=6 pawns=5,y,y,y/-/y,y,y,y/-",  # die is face w/o Double
        "classic to=0 sixes=-1 " + PAWNS,
        "party+power to=0 stock=999/000/000/000 " + PAWNS,  # at most 3 of each kind
        "party+power to=0 bonus=banana " + PAWNS,  # bonuses are double, control, shield
    ],
)
def test_loads_refuses_a_position_that_cannot_exist(text):
    # Was: each of these loads without complaint (and dumps back unchanged).
    with pytest.raises(IllegalAction):
        loads(text)


def test_moving_a_pawn_that_is_already_home_says_so():
    # Was: "Pawn 0 cannot move 3: it would pass home (exact finish)"; the "already home"
    # branch in play._why_not is unreachable because the pass-home check comes first.
    state = setup(RULESETS["classic"], {0: [56, 5, Y, Y], 2: [Y] * 4})
    state, _ = roll(state, 3)
    with pytest.raises(IllegalAction, match="already home"):
        move(state, Move(0, 0, 56, 59))


def test_setup_refuses_a_finished_party_player_as_the_one_to_play():
    # docs/rules.md (party): finished players are skipped. Actual: setup starts Red's turn although
    # all Red's pawns are home, and Red then gets three "tries for a 6" with a NoMove reason
    # "no pawn is out, and only a 6 brings one out of the yard".
    with pytest.raises(IllegalAction):
        setup(RULESETS["party"], {0: [56] * 4, 1: [5, Y, Y, Y], 2: [5, Y, Y, Y]}, to_play=0)
