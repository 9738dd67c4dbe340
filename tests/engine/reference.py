"""The rules (docs/rules.md) read plainly: what a roll allows, written slowly and obviously,
apart from the engine.

The engine is tuned for speed (precomputed tables, a fast path for plain moves); this module is
not. The property tests and the position table hold the engine to it, so that a change in the
engine that changes the rules shows up as a disagreement with a second, independent reading.
The presets' data (board, safe squares, capture, extra rolls, sixes, bringing out) is this
module's own table, PRESETS, copied by hand from the rules' table, so that a wrong entry in the
engine's table disagrees with it instead of being copied. From the engine it takes only the
value objects, the fixed Power board layout (`BONUS_OFFSETS`), and the
house rules and party options a game was started with (choices, not preset data).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from games.engine import BONUS_OFFSETS, YARD, Ruleset, State


@dataclass(frozen=True)
class Rules:
    """One preset as docs/rules.md states it, plus the options a game switched on."""

    name: str
    # "Coordinates": 52-square boards have quarter 13, track progress 0..50, home column
    # 51..55, home 56; mensch's 40-square board has quarter 10, track 0..39, home squares 40..43.
    track_len: int
    quarter: int
    last_track: int
    goal: int
    finish_from: int
    safe: frozenset[int]
    capture: str  # "all", "lone" or "count"
    land_on_own: bool
    extra_roll_on_capture: bool
    extra_roll_on_home: bool
    max_sixes: int  # the six that makes this many in a row is forfeited; 0: no limit
    unusable_six_rolls_again: bool
    tries_without_pawn_out: int
    must_bring_out: bool
    # The start and the finish (quick, issue 30; the others keep these defaults): the faces
    # that bring a pawn out, the pawns that start on the start square, the pawns home to win.
    release_faces: frozenset[int] = frozenset({6})
    start_out: int = 0
    win_pawns: int = 4
    # House rules and party options: chosen per game, read from the game's own rules.
    compulsory_capture: bool = False
    optional_bring_out: bool = False
    no_jump_home_column: bool = False
    pairs: bool = False
    power: bool = False
    # "Six at a table" and "Teams": the arms of the board and Team-Up's number of teams (0: none).
    arms: int = 4
    teams: int = 0


# "Six at a table": six arms of 13, track 78, starts 0/13/26/39/52/65, stars 8 past each start,
# progress 0..76 the track, 77..81 the home column, 82 home.
STARS_AND_STARTS_78 = frozenset({0, 13, 26, 39, 52, 65} | {8, 21, 34, 47, 60, 73})
BOARD_78 = {"track_len": 78, "quarter": 13, "last_track": 76, "goal": 82, "finish_from": 82}
# "2 take 0 and 3; 3 take 0, 2, 4; 4 take 0, 1, 3, 4; 5 take 0..4; 6 take all."
SEATS_78 = {2: (0, 3), 3: (0, 2, 4), 4: (0, 1, 3, 4), 5: (0, 1, 2, 3, 4), 6: (0, 1, 2, 3, 4, 5)}
# "Teams": the teams by how many there are, per board.
TEAMS = {
    (4, 2): ((0, 2), (1, 3)),
    (6, 2): ((0, 2, 4), (1, 3, 5)),
    (6, 3): ((0, 3), (1, 4), (2, 5)),
}


# "4 starts + 4 stars": starts 0/13/26/39, stars 8 past each start.
STARS_AND_STARTS = frozenset({0, 13, 26, 39} | {8, 21, 34, 47})
BOARD_52 = {"track_len": 52, "quarter": 13, "last_track": 50, "goal": 56, "finish_from": 56}

PRESETS: dict[str, Rules] = {
    # capture all; extra roll for 6, capture, home; third 6 forfeited; an unusable 6 rolls
    # again; one roll with no pawn out; bringing out optional.
    "classic": Rules(
        "classic", **BOARD_52, safe=STARS_AND_STARTS, capture="all", land_on_own=True,
        extra_roll_on_capture=True, extra_roll_on_home=True, max_sixes=3,
        unusable_six_rolls_again=True, tries_without_pawn_out=1, must_bring_out=False,
    ),
    # only a lone opponent pawn is captured; extra roll for a 6 only.
    "family": Rules(
        "family", **BOARD_52, safe=STARS_AND_STARTS, capture="lone", land_on_own=True,
        extra_roll_on_capture=False, extra_roll_on_home=False, max_sixes=3,
        unusable_six_rolls_again=True, tries_without_pawn_out=1, must_bring_out=False,
    ),
    # as classic, for two (the sixes' count reset is the engine's own test).
    "duel": Rules(
        "duel", **BOARD_52, safe=STARS_AND_STARTS, capture="all", land_on_own=True,
        extra_roll_on_capture=True, extra_roll_on_home=True, max_sixes=3,
        unusable_six_rolls_again=True, tries_without_pawn_out=1, must_bring_out=False,
    ),
    # 40 squares, no safe squares, never on your own pawn, extra roll for a 6 only, no limit
    # on sixes, three tries for a 6, bringing out compulsory (the start cleared first).
    "mensch": Rules(
        "mensch", track_len=40, quarter=10, last_track=39, goal=43, finish_from=40,
        safe=frozenset(), capture="all", land_on_own=False,
        extra_roll_on_capture=False, extra_roll_on_home=False, max_sixes=0,
        unusable_six_rolls_again=True, tries_without_pawn_out=3, must_bring_out=True,
    ),
    # capture by count; extra roll for 6, capture, the middle (and Power's +1); third 6
    # forfeited; an unusable 6 is lost with no roll again; three tries for a 6.
    # as classic, but two pawns start on the start square, a 1 or a 6 brings one out, and the
    # first pawn home wins (issue 30; README "Quick" and the rules page).
    "quick": Rules(
        "quick", **BOARD_52, safe=STARS_AND_STARTS, capture="all", land_on_own=True,
        extra_roll_on_capture=True, extra_roll_on_home=True, max_sixes=3,
        unusable_six_rolls_again=True, tries_without_pawn_out=1, must_bring_out=False,
        release_faces=frozenset({1, 6}), start_out=2, win_pawns=1,
    ),
    "party": Rules(
        "party", **BOARD_52, safe=STARS_AND_STARTS, capture="count", land_on_own=True,
        extra_roll_on_capture=True, extra_roll_on_home=True, max_sixes=3,
        unusable_six_rolls_again=False, tries_without_pawn_out=3, must_bring_out=False,
    ),
}  # fmt: skip

OPTIONS = ("compulsory_capture", "optional_bring_out", "no_jump_home_column", "pairs", "power")


def table(rules: Ruleset | Rules) -> Rules:
    """The reference's own reading of `rules`' preset, with the game's options."""
    if isinstance(rules, Rules):
        return rules
    chosen: dict[str, object] = {name: getattr(rules, name) for name in OPTIONS}
    chosen["arms"], chosen["teams"] = rules.arms, rules.teams
    if rules.arms == 6:
        chosen.update(BOARD_78, safe=STARS_AND_STARTS_78)
    return dataclasses.replace(PRESETS[rules.name], **chosen)


def team(rules: Ruleset | Rules, corner: int) -> tuple[int, ...]:
    """The corners on `corner`'s side: its team (Team-Up), its pair (Pairs), or itself."""
    rules = table(rules)
    if rules.pairs:
        return (corner, (corner + 2) % 4)
    if rules.teams:
        return next(t for t in TEAMS[rules.arms, rules.teams] if corner in t)
    return (corner,)


@dataclass(frozen=True, order=True)
class Expected:
    """One legal move as the rules describe it."""

    corner: int
    pawn: int
    frm: int
    to: int
    captures: tuple[tuple[int, int], ...] = ()  # (corner, pawn), sorted
    home: bool = False
    bonus: str = ""


def track_square(rules: Ruleset | Rules, corner: int, progress: int) -> int | None:
    """The absolute track square of a pawn, or None in the yard, home column or home."""
    rules = table(rules)
    if 0 <= progress <= rules.last_track:
        return (corner * rules.quarter + progress) % rules.track_len
    return None


def is_home(rules: Rules, progress: int) -> bool:
    return progress >= rules.finish_from


def mover(state: State) -> int:
    """Whose pawns the player to act moves: in Pairs and Team-Up a finished player moves a
    partner's, the first one clockwise who has not finished."""
    me = state.to_play
    pawns = state.pawns[me]
    rules = table(state.rules)
    if (rules.pairs or rules.teams) and pawns and finished(rules, pawns):
        for k in range(1, rules.arms):
            c = (me + k) % rules.arms
            if c in team(rules, me) and not finished(rules, state.pawns[c]):
                return c
    return me


def finished(rules: Rules, pawns: tuple[int, ...]) -> bool:
    """Whether a corner is done: every pawn home (quick: `win_pawns` of them)."""
    return bool(pawns) and sum(1 for p in pawns if is_home(rules, p)) >= rules.win_pawns


def bonus_squares(rules: Ruleset | Rules) -> dict[int, str]:
    rules = table(rules)
    if not rules.power:
        return {}
    return {
        q * rules.quarter + off: kind
        for q in range(rules.arms)
        for off, kind in BONUS_OFFSETS.items()
    }


def _can_step(rules: Rules, own: tuple[int, ...], pawn: int, target: int) -> bool:
    """Whether `pawn` of a corner with pawns `own` may end on progress `target` (no compulsions)."""
    frm = own[pawn]
    if target > rules.goal:
        return False  # exact finish
    others = [q for j, q in enumerate(own) if j != pawn]
    if not rules.land_on_own and target in others:
        return False  # mensch: never on your own pawn
    # No jumping (house rule): a move may not pass over a pawn standing in the home column.
    return not (
        rules.no_jump_home_column and any(frm < q < target and q > rules.last_track for q in others)
    )


def captures(state: State, corner: int, pawn: int, target: int) -> tuple[tuple[int, int], ...]:
    """The pawns sent to their yard when `corner`'s `pawn` ends on progress `target`."""
    rules = table(state.rules)
    square = track_square(rules, corner, target)
    if square is None or square in rules.safe:
        return ()
    partner = (corner + 2) % 4 if rules.pairs else None
    side = team(rules, corner)
    there: dict[int, list[tuple[int, int]]] = {}
    for c in state.seats:
        if c == corner or c in state.out:
            continue
        for j, q in enumerate(state.pawns[c]):
            if track_square(rules, c, q) == square:
                there.setdefault(c, []).append((c, j))
    shielded = {(c, j) for _, c, j in state.shields}
    rivals = [cp for c, group in there.items() if c not in side for cp in group]
    if not rivals:
        return ()
    if rules.capture == "all":
        sent = rivals
    elif rules.capture == "lone":
        sent = rivals if len(rivals) == 1 else []
    else:
        # count: each rival side with no more pawns there than the mover's side goes home.
        mine = 1 + sum(1 for j, q in enumerate(state.pawns[corner]) if j != pawn and q == target)
        if partner is not None:
            mine += len(there.get(partner, []))
        sides: dict[int, list[tuple[int, int]]] = {}
        for c, j in rivals:
            sides.setdefault(c % 2 if rules.pairs else c, []).append((c, j))
        sent = [cp for side in sides.values() if len(side) <= mine for cp in side]
    return tuple(sorted(cp for cp in sent if cp not in shielded))


def moves(state: State, die: int, six: bool, release: bool | None = None) -> list[Expected]:
    """Every legal move for `die` (a six when `six`) of the player to act, compulsions applied;
    `release`: whether the roll brings a pawn out (a six, unless told: quick's 1 does too)."""
    rules = table(state.rules)
    release = six if release is None else release
    corner = mover(state)
    own = state.pawns[corner]
    bonuses = bonus_squares(rules)
    found: list[Expected] = []
    for pawn, frm in enumerate(own):
        if frm == YARD:
            if not release:
                continue
            target = 0
        else:
            target = frm + die
        if not _can_step(rules, own, pawn, target):
            continue
        square = track_square(rules, corner, target)
        bonus = ""
        if square is not None and square in bonuses and square not in state.picked:
            bonus = bonuses[square]
        found.append(
            Expected(
                corner,
                pawn,
                frm,
                target,
                captures(state, corner, pawn, target),
                not is_home(rules, frm) and is_home(rules, target),
                bonus,
            )
        )
    if not found:
        return []
    if rules.must_bring_out and not rules.optional_bring_out and YARD in own:
        if 0 in own:
            clearing = [m for m in found if m.frm == 0]
            if clearing:
                return clearing
        elif release:
            return [m for m in found if m.frm == YARD]
    if rules.compulsory_capture and any(m.captures for m in found):
        return [m for m in found if m.captures]
    return found


def in_play(rules: Rules, own: tuple[int, ...]) -> bool:
    """Whether any pawn is out: off the yard and able to move with some roll."""
    return any(
        p != YARD and any(_can_step(rules, own, j, p + d) for d in range(1, 7))
        for j, p in enumerate(own)
    )


@dataclass(frozen=True)
class RollOutcome:
    """What a roll does: ``kind`` is "moves", "forfeit" (a six too many), "again" or "pass"."""

    kind: str
    moves: tuple[Expected, ...] = ()


def roll_outcome(state: State, face: int, bonus: str = "") -> RollOutcome:
    """What rolling `face` (with a Power bonus) does in `state`, phase "roll"."""
    rules = table(state.rules)
    bonus = bonus or state.bonus
    die = face * 2 if bonus == "double" else face
    six = face == 6 and bonus != "double"
    if six and rules.max_sixes and state.sixes + 1 >= rules.max_sixes:
        return RollOutcome("forfeit")
    found = moves(state, die, six, bonus != "double" and face in rules.release_faces)
    if found:
        return RollOutcome("moves", tuple(sorted(found)))
    if six and rules.unusable_six_rolls_again:
        return RollOutcome("again")
    own = state.pawns[mover(state)]
    tries = rules.tries_without_pawn_out
    if tries > 1 and not in_play(rules, own) and state.tries + 1 < tries:
        return RollOutcome("again")
    return RollOutcome("pass")


def extra_roll_reasons(state: State, m: Expected, face: int) -> tuple[str, ...]:
    """Why the mover rolls again after `m` (before the end of the game is considered)."""
    rules = table(state.rules)
    reasons = []
    if face == 6 and state.bonus != "double":
        reasons.append("six")
    if m.captures and rules.extra_roll_on_capture:
        reasons.append("capture")
    if m.home and rules.extra_roll_on_home:
        reasons.append("home")
    if m.bonus == "plus":
        reasons.append("plus")
    return tuple(reasons)


def next_player(state: State, after: int, pawns: tuple[tuple[int, ...], ...]) -> int:
    """The next corner clockwise that still plays (in Pairs and Team-Up a finished player
    plays on while a partner has not finished)."""
    seats = state.seats
    k = seats.index(after)
    rules = table(state.rules)
    for step in range(1, len(seats) + 1):
        c = seats[(k + step) % len(seats)]
        if c in state.out:
            continue
        done = finished(rules, pawns[c])
        side_done = all(finished(rules, pawns[p]) or p in state.out for p in team(rules, c))
        if done and side_done:
            continue
        return c
    return after
