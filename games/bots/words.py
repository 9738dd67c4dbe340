"""The words a bot uses to say why it chose a move: colours, pawns and captures.

Pawns are numbered 1 to 4 for people (the engine counts 0 to 3), as on the keyboard.
"""

from __future__ import annotations

from games.engine import YARD, Move, State


def colour(state: State, corner: int) -> str:
    """The colour of `corner` as a person reads it: "Yellow"."""
    return state.rules.colours[corner].capitalize()


def pawn_name(state: State, m: Move) -> str:
    """ "pawn 2", or "Yellow's pawn 2" when the mover plays a partner's pawn (Pairs)."""
    name = f"pawn {m.pawn + 1}"
    return name if m.corner == state.to_play else f"{colour(state, m.corner)}'s {name}"


def captured(state: State, m: Move) -> str:
    """The pawns `m` sends to their yards: "Yellow's pawn", "Yellow's and Blue's pawns"."""
    counts: dict[int, int] = {}
    for corner, _ in m.captures:
        counts[corner] = counts.get(corner, 0) + 1
    names = [colour(state, c) + "'s" for c in counts]
    owners = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
    if len(m.captures) == 1:
        return f"{owners} pawn"
    if len(counts) == 1:
        return f"{owners} {len(m.captures)} pawns"
    return f"{owners} pawns"


def describe(state: State, m: Move) -> str:
    """What `m` does, in a few words: the most telling fact first."""
    rules = state.rules
    pawn = pawn_name(state, m)
    if m.home:
        return f"brings {pawn} home"
    if m.captures:
        return f"captures {captured(state, m)} with {pawn}"
    if m.frm == YARD:
        return f"brings {pawn} out of the yard"
    if m.bonus:
        return f"moves {pawn} onto the {BONUS_NAMES.get(m.bonus, m.bonus)} square"
    if m.to > rules.last_track and m.frm <= rules.last_track:
        return f"moves {pawn} into its home column"
    if m.safe:
        return f"moves {pawn} to a safe square"
    steps = m.to - m.frm
    return f"moves {pawn} {NUMBERS.get(steps, str(steps))} square{'s' if steps > 1 else ''}"


BONUS_NAMES = {"double": "Double roll", "control": "Dice control", "shield": "Shield", "plus": "+1"}
NUMBERS = {
    1: "one",
    2: "two",
    3: "three",
    4: "four",
    5: "five",
    6: "six",
    7: "seven",
    8: "eight",
    9: "nine",
    10: "ten",
    11: "eleven",
    12: "twelve",
}
