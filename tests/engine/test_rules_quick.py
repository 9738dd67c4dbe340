"""`quick` (issue 30): classic's board, captures and extra rolls, made short: two pawns of each
player start on their start square, a 1 or a 6 brings a pawn out of the yard, and the first
pawn home wins the game (the others placed by pawns home, then by squares covered). Worked
examples, as the rules page shows them."""

import pytest

from games.engine import RULESETS, NoMove, dumps, legal_moves, loads, move, new_game, roll, setup
from tests.engine.positions import Y, kinds, play, the_move

QUICK = RULESETS["quick"]
CLASSIC = RULESETS["classic"]
GREEN, YELLOW, BLUE = 1, 2, 3


def test_two_pawns_of_each_player_start_on_their_start_square():
    state = new_game(QUICK, 4)
    assert state.pawns == ((0, 0, Y, Y),) * 4
    assert new_game(QUICK, 2).pawns == ((0, 0, Y, Y), (), (0, 0, Y, Y), ())
    # Every other preset still starts in the yard.
    assert new_game(CLASSIC, 4).pawns == ((Y, Y, Y, Y),) * 4


def test_worked_example_a_one_brings_a_pawn_out_in_quick_and_not_in_classic():
    position = {0: [5, Y, Y, Y], YELLOW: [Y, Y, Y, 30]}
    quick, _ = roll(setup(QUICK, position), 1)
    outs = [m for m in legal_moves(quick) if m.frm == Y]
    assert len(outs) == 3 and {m.to for m in outs} == {0}
    assert any(m.frm == 5 and m.to == 6 for m in legal_moves(quick))
    classic, _ = roll(setup(CLASSIC, position), 1)
    assert [m.frm for m in legal_moves(classic)] == [5]


def test_a_six_brings_one_out_too_and_rolls_again():
    state = setup(QUICK, {0: [Y, Y, Y, Y], YELLOW: [Y, Y, Y, Y]})
    state, events = play(state, 6, 0)
    assert state.pawns[0][0] == 0 and state.to_play == 0
    assert kinds(events)[-1] == "extra_roll"


def test_with_no_pawn_out_a_two_to_five_passes_the_turn():
    state = setup(QUICK, {0: [Y, Y, Y, Y], YELLOW: [Y, Y, Y, 30]})
    for face in (2, 3, 4, 5):
        after, events = roll(state, face)
        assert after.to_play == YELLOW and after.phase == "roll"
        said = [e for e in events if isinstance(e, NoMove)]
        reason = "no pawn is out, and only a 1 or 6 brings one out of the yard"
        assert said and said[0].reason == reason


def test_worked_example_the_first_pawn_home_wins_and_places_the_rest():
    # Red's pawn at 53 needs a 3 to reach home (56); Yellow has squares covered, Green and
    # Blue fewer: Red wins at once, then Yellow, Blue (a pawn in the home column), Green.
    state = setup(
        QUICK,
        {0: [53, 0, Y, Y], GREEN: [4, Y, Y, Y], YELLOW: [40, 20, Y, Y], BLUE: [52, Y, Y, Y]},
    )
    state, events = roll(state, 3)
    state, events = move(state, the_move(state, 0))
    assert state.phase == "over"
    assert state.placings == (0, YELLOW, BLUE, GREEN)
    assert kinds(events)[-2:] == ["finished", "won"]


def test_the_exact_finish_still_holds():
    state = setup(QUICK, {0: [53, Y, Y, Y], YELLOW: [Y, Y, Y, 30]})
    after, _ = roll(state, 4)
    assert all(m.frm != 53 for m in legal_moves(after))


def test_a_capture_sends_a_pawn_to_the_yard_and_a_one_brings_it_back():
    # Red lands on Yellow's lone pawn on a plain square; Yellow's next 1 brings it out again.
    yellow_at = (10 + 0 * 13 - YELLOW * 13) % 52  # Yellow's progress on Red's square 10
    state = setup(QUICK, {0: [6, Y, Y, Y], YELLOW: [yellow_at, Y, Y, Y]})
    state, events = play(state, 4, 0)
    assert "captured" in kinds(events)
    assert state.pawns[YELLOW] == (Y, Y, Y, Y)


@pytest.mark.parametrize("name", ["classic", "family", "duel", "mensch", "party"])
def test_the_other_presets_keep_their_start_and_finish(name):
    rules = RULESETS[name]
    assert rules.release_faces == frozenset({6})
    assert rules.start_out == 0 and rules.win_pawns == 4


def test_the_position_text_names_quick_and_reads_back():
    state = new_game(QUICK, 2)
    text = dumps(state)
    assert text.startswith("quick ") and "pawns=0,0,y,y/-/0,0,y,y/-" in text
    assert loads(text) == state
