"""The rule sets: one `Ruleset` per preset, house rules and party options as fields.

Every preset is a column of the table in docs/rules.md. A Ruleset is frozen; house rules are
switched with ``dataclasses.replace(RULESETS["mensch"], compulsory_capture=True)``.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Literal

from .events import Moved, Released
from .pawns import YARD, Move

# A pawn's step in the move tables: the move (before captures and bonuses), the rivals on its
# landing square as (corner, progress), its Moved/Released event, and the same rivals as one
# progress for each other corner clockwise from the mover (-9 where that corner cannot stand
# there), or None where nobody can be captured: one probe of three rows instead of a loop.
Step = tuple[Move, tuple[tuple[int, int], ...], Moved | Released, tuple[int, int, int] | None]

Capture = Literal["all", "lone", "count"]
Ending = Literal["first", "last"]
FirstPlayer = Literal["random", "red"]
Timeout = Literal["auto_move", "bot", "none"]
Disconnect = Literal["forfeit", "computer", "bot", "none"]

_COLOURS_52 = ("red", "green", "yellow", "blue")
_COLOURS_40 = ("red", "blue", "green", "yellow")
_COLOURS_78 = ("red", "green", "yellow", "blue", "orange", "purple")
# One shape mark per colour, so that the board never relies on colour alone.
MARKS = {"red": "dot", "blue": "diamond", "green": "bar", "yellow": "triangle"}
MARKS |= {"orange": "square", "purple": "cross"}  # the six-arm board's two more colours
# The six-arm board (docs/rules.md, "Six arms and Team-Up"): one board, chosen by
# `Ruleset.arms`; its geometry replaces the four-arm one's fields, so that every table below
# reads the same names.
SIX_ARMS: dict[str, Any] = {
    "track_len": 78,
    "quarter": 13,
    "last_track": 76,
    "goal": 82,
    "finish_from": 82,
    "safe": frozenset(s + k * 13 for k in range(6) for s in (0, 8)),
    "colours": _COLOURS_78,
    "max_players": 6,
}
# The four-arm 52-square board's, restored when a six-arm rule set is replaced back to four.
FOUR_ARMS: dict[str, Any] = {
    "track_len": 52,
    "quarter": 13,
    "last_track": 50,
    "goal": 56,
    "finish_from": 56,
    "safe": frozenset({0, 8, 13, 21, 26, 34, 39, 47}),
    "colours": _COLOURS_52,
    "max_players": 4,
}
# The presets that may be played on six arms, and with Team-Up.
SIX_ARM_PRESETS = frozenset({"classic", "family"})
TEAM_PRESETS = frozenset({"classic"})
# Seating on six arms: as far apart as the arms allow.
_SEATS_6 = {2: (0, 3), 3: (0, 2, 4), 4: (0, 1, 3, 4), 5: (0, 1, 2, 3, 4), 6: (0, 1, 2, 3, 4, 5)}


@dataclass(frozen=True)
class Ruleset:
    """Everything that differs between presets, as plain data."""

    name: str
    # Board.
    track_len: int = 52
    quarter: int = 13
    last_track: int = 50  # last progress on the shared track
    goal: int = 56  # highest progress: home (52) or the last home square (40)
    finish_from: int = 56  # a pawn at this progress or beyond is home
    safe: frozenset[int] = frozenset({0, 8, 13, 21, 26, 34, 39, 47})
    colours: tuple[str, ...] = _COLOURS_52
    min_players: int = 2
    max_players: int = 4
    # Capturing and landing.
    capture: Capture = "all"
    land_on_own: bool = True
    # Extra rolls and sixes.
    extra_roll_on_capture: bool = True
    extra_roll_on_home: bool = True
    max_sixes: int = 3  # the roll that makes this many sixes in a row is forfeited; 0: no limit
    sixes_reset_on_capture_or_home: bool = False
    unusable_six_rolls_again: bool = True
    tries_without_pawn_out: int = 1
    must_bring_out: bool = False  # a six must bring a waiting pawn out, clearing the start first
    release_faces: frozenset[int] = frozenset({6})  # the faces that bring a pawn out of the yard
    # The start and the finish (quick): pawns that begin on their start square instead of the
    # yard, and how many pawns home finish a player (4: every pawn).
    start_out: int = 0
    win_pawns: int = 4
    # The end and the clock (the clock is the server's business; kept here as data).
    ending: Ending = "first"
    first_player: FirstPlayer = "random"
    turn_seconds: int | None = 20
    on_timeout: Timeout = "auto_move"
    timeouts_to_forfeit: int | None = 3
    disconnect_seconds: int | None = 60
    on_disconnect: Disconnect = "forfeit"
    # House rules (any preset, off by default).
    compulsory_capture: bool = False
    optional_bring_out: bool = False
    no_jump_home_column: bool = False
    # Play on for 2nd and 3rd place: the game goes on after the first player finishes, until
    # one is left (`ending` "last"); places by finishing order.
    play_on: bool = False
    # Party options.
    pairs: bool = False
    power: bool = False
    # The board's arms (4 or 6; six arms: `SIX_ARMS`) and Team-Up: 0 for none, else the number
    # of teams, corner c in team c % teams (2 x 2 on four arms; 2 x 3 or 3 x 2 on six).
    arms: int = 4
    teams: int = 0
    # Derived tables, rebuilt by __post_init__ (also on dataclasses.replace).
    board: Board = field(init=False, repr=False, compare=False, hash=False)
    teamed: bool = field(init=False, repr=False, compare=False, hash=False)  # Pairs or Team-Up

    def __post_init__(self) -> None:
        if self.pairs and self.name != "party":
            raise ValueError("Pairs is a party option")
        if self.power and self.name != "party":
            raise ValueError("Power is a party option")
        if not 0 <= self.start_out <= 4 or not 1 <= self.win_pawns <= 4:
            raise ValueError("start_out is 0 to 4 pawns, win_pawns 1 to 4")
        if not self.release_faces or not self.release_faces <= frozenset(range(1, 7)):
            raise ValueError("release_faces are faces of a die, 1 to 6")
        if self.play_on:
            object.__setattr__(self, "ending", "last")
        self._check_arms_and_teams()
        object.__setattr__(self, "teamed", self.pairs or self.teams > 0)
        object.__setattr__(self, "board", Board(self))

    def _check_arms_and_teams(self) -> None:
        """Refuse a board or teams the rules do not have; fit the board's fields to the arms."""
        if self.arms not in (4, 6):
            raise ValueError(f"a board has 4 or 6 arms, not {self.arms}")
        if self.arms == 6:
            if self.name not in SIX_ARM_PRESETS:
                raise ValueError(f"{self.name} is not played on six arms")
            for key, value in SIX_ARMS.items():
                object.__setattr__(self, key, value)
        elif self.track_len == SIX_ARMS["track_len"]:
            for key, value in FOUR_ARMS.items():
                object.__setattr__(self, key, value)
        if self.teams:
            if self.name not in TEAM_PRESETS:
                raise ValueError(f"Team-Up is a classic option, not {self.name}'s")
            if self.teams not in ((2,) if self.arms == 4 else (2, 3)):
                raise ValueError(f"Team-Up on {self.arms} arms cannot make {self.teams} teams")

    def team_of(self, corner: int) -> tuple[int, ...]:
        """The corners of `corner`'s team, `corner` first then clockwise (Pairs: the pair);
        `corner` alone without teams."""
        n = self.teams or (2 if self.pairs else 0)
        if not n:
            return (corner,)
        return tuple((corner + k * n) % self.arms for k in range(self.arms // n))

    @property
    def home_from(self) -> int:
        """First progress past the shared track (the home column or home row)."""
        return self.last_track + 1

    def done(self, row: tuple[int, ...]) -> bool:
        """Whether a corner with these pawns has finished: `win_pawns` of them home."""
        finish = self.finish_from
        return bool(row) and sum(1 for p in row if p >= finish) >= self.win_pawns

    def releases(self, code: int) -> bool:
        """Whether the roll `code` (a face; 7..12 a Double roll) brings a pawn out."""
        return code in self.release_faces

    @property
    def brings_out_by_force(self) -> bool:
        return self.must_bring_out and not self.optional_bring_out

    def seats_for(self, players: int) -> tuple[int, ...]:
        """The corners that `players` people take: opposite corners for two."""
        low = 4 if self.pairs else self.arms if self.teams else self.min_players
        high = self.arms if self.teams else self.max_players
        if not low <= players <= high:
            want = f"{low}" if low == high else f"{low} to {high}"
            raise ValueError(f"{self.name} is played by {want} players, not {players}")
        if self.arms == 6:
            return _SEATS_6[players]
        return {2: (0, 2), 3: (0, 1, 2), 4: (0, 1, 2, 3)}[players]

    def with_options(self, **options: bool | int) -> Ruleset:
        """This preset with house rules or party options switched on or off; ``arms=6`` for
        the six-arm board, ``teams=2`` or ``3`` for Team-Up."""
        known = {"compulsory_capture", "optional_bring_out", "no_jump_home_column", "play_on"}
        known |= {"pairs", "power"} if self.name == "party" else set()
        known |= {"arms"} if self.name in SIX_ARM_PRESETS else set()
        known |= {"teams"} if self.name in TEAM_PRESETS else set()
        unknown = sorted(set(options) - known)
        if unknown:
            raise ValueError(f"{self.name} has no option {', '.join(unknown)}")
        changes: dict[str, Any] = dict(options)
        return dataclasses.replace(self, **changes)


# Power: bonus squares by offset from each start (the same in every quarter), off the
# safe squares (offsets 0 and 8).
BONUS_OFFSETS = {2: "double", 5: "control", 10: "shield", 11: "plus"}
STORED_BONUSES = ("double", "control", "shield")
MAX_STOCK = 3


class Board:
    """Tables precomputed once per Ruleset so the hot path only indexes tuples."""

    steps: tuple[tuple[tuple[tuple[Step, ...] | None, ...], ...], ...]

    __slots__ = ("square", "progress", "safe", "bonus", "steps", "plain", "probed")

    def __init__(self, rules: Ruleset) -> None:
        # square[c][p + 1] = the absolute track square of corner c's pawn at progress p,
        # or -1 when p is the yard, the home column or home.
        self.square: tuple[tuple[int, ...], ...] = tuple(
            tuple(
                (c * rules.quarter + p) % rules.track_len if 0 <= p <= rules.last_track else -1
                for p in range(-1, rules.goal + 1)
            )
            for c in range(rules.arms)
        )
        # progress[c][s] = the progress at which corner c's pawn stands on track square s
        # (never matching a pawn when that progress would be off the track).
        self.progress: tuple[tuple[int, ...], ...] = tuple(
            tuple(
                q if (q := (s - c * rules.quarter) % rules.track_len) <= rules.last_track else -9
                for s in range(rules.track_len)
            )
            for c in range(rules.arms)
        )
        self.safe: tuple[bool, ...] = tuple(s in rules.safe for s in range(rules.track_len))
        bonus: dict[int, str] = {}
        if rules.power:
            for q in range(4):
                for off, kind in BONUS_OFFSETS.items():
                    bonus[q * rules.quarter + off] = kind
        self.bonus = bonus

        # steps[c][code][p + 1][i] = (move, rivals, event, probe) for corner c's pawn i at
        # progress p (see `Step`), where
        # code is the face (1..6) or 6 + the face for a Double roll (which moves twice the face
        # and brings no pawn out); move is the Move before captures and bonuses, and rivals
        # lists (corner, progress) of the other corners' pawns that would share the landing
        # square when it is a plain track square (empty on safe squares and off the track);
        # None where no pawn at p can move. Built once, so that listing the legal moves
        # allocates nothing in the usual case.
        def step(c: int, code: int, p: int) -> tuple[Step, ...] | None:
            die = code if code <= 6 else 2 * (code - 6)
            t = 0 if p == YARD else p + die
            if (p == YARD and code not in rules.release_faces) or t > rules.goal:
                return None
            s = self.square[c][t + 1]
            home = s < 0 and p < rules.finish_from <= t
            safe = s >= 0 and self.safe[s]
            rivals: tuple[tuple[int, int], ...] = ()
            if s >= 0 and not safe:
                rivals = tuple(
                    (oc, self.progress[oc][s])
                    for oc in range(rules.arms)
                    if oc != c and self.progress[oc][s] >= 0
                )
            probe: tuple[int, int, int] | None = None
            if rivals and rules.arms == 4:
                at = dict(rivals)
                probe = (at.get((c + 1) % 4, -9), at.get((c + 2) % 4, -9), at.get((c + 3) % 4, -9))
            return tuple(
                (
                    Move(c, i, p, t, (), s, safe, home, ""),
                    rivals,
                    Released(c, i, s) if p == YARD else Moved(c, i, p, t, s),
                    probe,
                )
                for i in range(4)
            )

        # No rule beyond the tables narrows the moves: no own-pawn or jump limits, no bonus
        # squares, no compulsion.
        self.plain = (
            rules.land_on_own
            and not rules.no_jump_home_column
            and not bonus
            and not (rules.must_bring_out and not rules.optional_bring_out)
            and not rules.compulsory_capture
        )
        # The steps carry a probe of the three other corners (four arms): `play.roll` reads
        # them without `legal_for`.
        self.probed = self.plain and rules.arms == 4
        self.steps = tuple(
            tuple(
                tuple(step(c, code, p) for p in range(YARD, rules.goal + 1)) for code in range(13)
            )
            for c in range(rules.arms)
        )


RULESETS: dict[str, Ruleset] = {
    "classic": Ruleset(name="classic"),
    "family": Ruleset(
        name="family",
        capture="lone",
        extra_roll_on_capture=False,
        extra_roll_on_home=False,
        first_player="red",
        turn_seconds=None,
        on_timeout="none",
        timeouts_to_forfeit=None,
        disconnect_seconds=None,
        on_disconnect="none",
    ),
    "duel": Ruleset(
        name="duel",
        min_players=2,
        max_players=2,
        sixes_reset_on_capture_or_home=True,
    ),
    "mensch": Ruleset(
        name="mensch",
        track_len=40,
        quarter=10,
        last_track=39,
        goal=43,
        finish_from=40,
        safe=frozenset(),
        colours=_COLOURS_40,
        land_on_own=False,
        extra_roll_on_capture=False,
        extra_roll_on_home=False,
        max_sixes=0,
        tries_without_pawn_out=3,
        must_bring_out=True,
        first_player="red",
        turn_seconds=20,
        on_timeout="auto_move",
        timeouts_to_forfeit=3,
        disconnect_seconds=45,
        on_disconnect="computer",
    ),
    # Quick (issue 30): classic's board and captures, made short: two pawns of each player
    # start on their start square, a 1 or a 6 brings a pawn out, the first pawn home wins
    # (the others placed by pawns home, then by squares covered), and a turn's clock is 12
    # seconds. Four players finish in 5-10 minutes at a person's pace
    # (`scripts/quick_lengths.py` measures it over 1,000 bot games).
    "quick": Ruleset(
        name="quick",
        release_faces=frozenset({1, 6}),
        start_out=2,
        win_pawns=1,
        turn_seconds=12,
    ),
    "party": Ruleset(
        name="party",
        capture="count",
        unusable_six_rolls_again=False,
        tries_without_pawn_out=3,
        ending="last",
        turn_seconds=30,
        on_timeout="bot",
        timeouts_to_forfeit=None,
        disconnect_seconds=0,
        on_disconnect="bot",
    ),
}
