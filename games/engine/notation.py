"""A compact text form of a position, like chess's FEN, that round-trips.

    classic to=0 phase=move die=6 face=6 sixes=1 pawns=y,0,12,h/-/y,y,y,y/-

Tokens are separated by spaces; the first names the preset with its house rules and party
options joined by ``+`` (``mensch+compulsory_capture``, ``party+pairs+power``), then the
six-arm board and Team-Up with their numbers (``classic+arms6+teams3``). Pawns are listed per
corner 0..3 (0..5 on six arms), ``y`` for the yard, ``h`` for home (rules.goal), ``-`` for an
empty corner. Tokens that hold their starting value are left out. The legal moves are not written:
they follow from the rest.

A State reads and writes this form itself (`games.engine.state.loads` and `dumps`, behind
`State.parse` and its repr); here are the rule set names it starts with.
"""

from __future__ import annotations

import functools

from .pawns import IllegalAction
from .rules import RULESETS, Ruleset

OPTIONS = (
    "compulsory_capture",
    "optional_bring_out",
    "no_jump_home_column",
    "play_on",
    "pairs",
    "power",
)
# Options with a number, written name and number together: ``classic+arms6+teams3``.
NUMBERED = ("arms", "teams")


def rules_name(rules: Ruleset) -> str:
    """The preset name with the options switched on: ``mensch+compulsory_capture``; the
    six-arm board and Team-Up after them: ``classic+arms6+teams2``."""
    numbered = [f"arms{rules.arms}"] if rules.arms != 4 else []
    numbered += [f"teams{rules.teams}"] if rules.teams else []
    return "+".join([rules.name] + [o for o in OPTIONS if getattr(rules, o)] + numbered)


def _numbered(option: str) -> tuple[str, int] | None:
    """(name, number) of an option like ``arms6``; None for any other."""
    for key in NUMBERED:
        digits = option[len(key) :]
        if option.startswith(key) and digits.isdigit() and digits.isascii():
            return key, int(digits)
    return None


@functools.lru_cache(maxsize=64)
def rules_from_name(text: str) -> Ruleset:
    """The Ruleset a `rules_name` names (the same object each time)."""
    name, *options = text.split("+")
    if name not in RULESETS:
        raise IllegalAction(f"There is no rule set {name!r}; there are {', '.join(RULESETS)}")
    unknown = [o for o in options if o not in OPTIONS and _numbered(o) is None]
    if unknown:
        raise IllegalAction(f"Unknown option {unknown[0]!r}")
    rules = RULESETS[name]
    if options:
        switched: dict[str, bool | int] = {}
        for o in options:
            pair = _numbered(o)
            key, value = pair if pair is not None else (o, True)
            if key in switched:
                raise IllegalAction(f"Option {key!r} is named twice")
            switched[key] = value
        try:
            rules = rules.with_options(**switched)
        except ValueError as exc:
            raise IllegalAction(str(exc)) from exc
    return rules
