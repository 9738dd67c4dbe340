"""The words a bot uses to say why it chose a move: colours, pawns and captures.

Pawns are numbered 1 to 4 for people (the engine counts 0 to 3), as on the keyboard.

A reason is a `Reason`: the English sentence (a ``str``, what the tools and outside clients
read) that also carries a code and its data, from which the site tells it again in each
reader's language (issue 29; games.bots is pure and translates nothing itself).
"""

from __future__ import annotations

from typing import Any

from games.engine import YARD, Move, State


class Reason(str):
    """An English reason with ``code`` and ``data`` (JSON-ready) to translate it from."""

    code: str
    data: dict[str, Any]

    def __new__(cls, text: str, code: str, **data: Any) -> Reason:
        made = super().__new__(cls, text)
        made.code = code
        made.data = data
        return made

    def __reduce__(self) -> tuple[Any, ...]:
        # A copy or a pickle is made again from the text, the code and the data (str's own
        # would call ``Reason(text)`` without its code).
        return (_remade, (str(self), self.code, self.data))

    def wire(self) -> dict[str, Any]:
        """``{"code": ..., **data}``: what a bot_said event and a hint carry beside the text."""
        return {"code": self.code, **self.data}

    def plus(self, code: str, text: str, **data: Any) -> Reason:
        """This reason with an addition (" on a hunch", " (it missed a capture)")."""
        return Reason(str(self) + text, code, base=self.wire(), **data)


def _remade(text: str, code: str, data: dict[str, Any]) -> Reason:
    return Reason(text, code, **data)


def colour(state: State, corner: int) -> str:
    """The colour of `corner` as a person reads it: "Yellow"."""
    return state.rules.colours[corner].capitalize()


def _pawn(state: State, m: Move) -> dict[str, Any]:
    """The pawn's data: its number (1 to 4) and, for a partner's pawn (Pairs), its corner."""
    return {"pawn": m.pawn + 1, "of": None if m.corner == state.to_play else m.corner}


def pawn_name(state: State, m: Move) -> str:
    """ "pawn 2", or "Yellow's pawn 2" when the mover plays a partner's pawn (Pairs)."""
    name = f"pawn {m.pawn + 1}"
    return name if m.corner == state.to_play else f"{colour(state, m.corner)}'s {name}"


def _captured_data(m: Move) -> list[list[int]]:
    counts: dict[int, int] = {}
    for corner, _ in m.captures:
        counts[corner] = counts.get(corner, 0) + 1
    return [[c, n] for c, n in counts.items()]


def captured(state: State, m: Move) -> str:
    """The pawns `m` sends to their yards: "Yellow's pawn", "Yellow's and Blue's pawns"."""
    counts = dict((c, n) for c, n in _captured_data(m))
    names = [colour(state, c) + "'s" for c in counts]
    owners = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
    if len(m.captures) == 1:
        return f"{owners} pawn"
    if len(counts) == 1:
        return f"{owners} {len(m.captures)} pawns"
    return f"{owners} pawns"


def say(state: State, m: Move, code: str, **data: Any) -> Reason:
    """The reason `code` for move `m`, in English and as data. Codes (the English):

    home "brings P home", capture_with "captures C with P", capture "captures C",
    out "brings P out of the yard", bonus "moves P onto the B square", column "moves P into
    its home column", to_column "moves P to its home column", safe "moves P to a safe
    square", steps "moves P N squares", behind "moves P, the pawn furthest behind", along
    "moves P, the pawn furthest along", away "moves P away from a rival pawn", away_all
    "moves P away from rival pawns", reach "moves P out of a rival's reach", shield "moves P
    under a Shield"."""
    pawn = pawn_name(state, m)
    facts = _pawn(state, m)
    if code in ("capture", "capture_with"):
        facts["captured"] = _captured_data(m)
    text = {
        "home": f"brings {pawn} home",
        "capture": f"captures {captured(state, m)}" if m.captures else "",
        "capture_with": f"captures {captured(state, m)} with {pawn}" if m.captures else "",
        "out": f"brings {pawn} out of the yard",
        "column": f"moves {pawn} into its home column",
        "to_column": f"moves {pawn} to its home column",
        "safe": f"moves {pawn} to a safe square",
        "behind": f"moves {pawn}, the pawn furthest behind",
        "along": f"moves {pawn}, the pawn furthest along",
        "away": f"moves {pawn} away from a rival pawn",
        "away_all": f"moves {pawn} away from rival pawns",
        "reach": f"moves {pawn} out of a rival's reach",
        "shield": f"moves {pawn} under a Shield",
    }.get(code)
    if code == "bonus":
        bonus = str(data.get("bonus", m.bonus))
        text = f"moves {pawn} onto the {BONUS_NAMES.get(bonus, bonus)} square"
        facts["bonus"] = bonus
    elif code == "steps":
        steps = m.to - m.frm
        text = f"moves {pawn} {NUMBERS.get(steps, str(steps))} square{'s' if steps > 1 else ''}"
        facts["n"] = steps
    if text is None:
        raise ValueError(f"no bot reason {code!r}")
    return Reason(text, code, **facts)


def describe(state: State, m: Move) -> Reason:
    """What `m` does, in a few words: the most telling fact first."""
    rules = state.rules
    if m.home:
        return say(state, m, "home")
    if m.captures:
        return say(state, m, "capture_with")
    if m.frm == YARD:
        return say(state, m, "out")
    if m.bonus:
        return say(state, m, "bonus", bonus=m.bonus)
    if m.to > rules.last_track and m.frm <= rules.last_track:
        return say(state, m, "column")
    if m.safe:
        return say(state, m, "safe")
    return say(state, m, "steps")


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
