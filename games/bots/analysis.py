"""A finished match explained, pure: each seat's dice luck and decisions by the winning-chances
evaluator (`chances`), and the chances after every turn.

    report = analyse(start, actions)   # a dict ready for JSON (the replay API's `report`)

`actions` are the match's rolls, moves and leaves in order: ``("roll", seq, face, bonus)``,
``("move", seq, Move, shield)`` and ``("leave", seq, corner, reason)``; withdrawn actions
(undo) are left out by the caller. Luck: for every
roll, the roller's (its side's) chance after the face, played best, less the average over the
six faces: its expectation is zero whatever the position, for every seat. Decisions: for every
move with a real choice (moves that lead to the same position, such as one pawn of the yard or
another out, are one choice), the chance lost against the best move. Dice control chooses its
face: such a roll has no luck and is no six.

A seat's chance over the match (`change`, the last point of the chart less the first) is
taken apart exactly: its luck, less what its moves lost (`lost`), plus what the other seats'
turns did to it (`others`: their rolls, moves and leaves), plus the rest of its own turns
(`own`: the evaluator's chance before each of its rolls against the six faces' average,
which is not zero since the race model is no exact average of itself a roll ahead; a chosen
face; its own leave).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any

from games.engine import Move, State, move, resign, roll

from .chances import after_choices, chances
from .threats import threat
from .words import Reason, _captured_data, _pawn, captured, colour, describe, pawn_name

# 2: each costliest move also carries played_said, better_said and why_said (codes and data);
# a report of version 1 has the English only (the page shows it as it is). 3: each seat also
# carries others, own and change (the page finds the rest of an older report from its chart).
VERSION = 3
SWING = 0.15  # a change of a side's chance this large in one turn is marked on the chart


def _side(state: State, corner: int) -> int:
    """The corner whose chance stands for `corner`'s side (itself; in Pairs, the pair's)."""
    return corner


def _reach_after(state: State, chosen: Move) -> int:
    """How many rival pawns can reach the moved pawn once `chosen` is played."""
    after, _ = move(state, chosen)
    return threat(after, chosen.corner, chosen.to) if after.phase != "over" else 0


def explain(state: State, played: Move, better: Move) -> Reason:
    """Why `better` beats `played`, in words, from what changes on the board: the English
    sentence with its code and data (the replay report tells it in the reader's language from
    them, static/js/reasons.js). Codes (the English): could_capture "P could have captured C",
    could_go_home "P could have gone home", left_in_reach "moving P left it in reach of N
    rival pawns" (P the pawn played), could_escape "P could have moved out of a rival's
    reach", could_come_out "bringing P out of the yard kept better chances", could_move
    "moving P instead kept better chances"."""
    left, kept = _reach_after(state, played), _reach_after(state, better)
    name = pawn_name(state, better)
    facts = _pawn(state, better)
    if better.captures and not played.captures:
        return Reason(
            f"{name} could have captured {captured(state, better)}",
            "could_capture",
            **facts,
            captured=_captured_data(better),
        )
    if better.home and not played.home:
        return Reason(f"{name} could have gone home", "could_go_home", **facts)
    if left and not kept:
        rivals = "a rival pawn" if left == 1 else f"{left} rival pawns"
        return Reason(
            f"moving {pawn_name(state, played)} left it in reach of {rivals}",
            "left_in_reach",
            **_pawn(state, played),
            n=left,
        )
    before = threat(state, better.corner, better.frm)
    if before and not kept:
        return Reason(f"{name} could have moved out of a rival's reach", "could_escape", **facts)
    if better.frm < 0 <= played.frm:
        return Reason(
            f"bringing {name} out of the yard kept better chances", "could_come_out", **facts
        )
    return Reason(f"moving {name} instead kept better chances", "could_move", **facts)


def _sixes_interval(rolls: int) -> tuple[float, float]:
    """The 95% range of sixes in `rolls` fair rolls (normal approximation)."""
    mean = rolls / 6.0
    half = 1.96 * math.sqrt(rolls * 5.0 / 36.0)
    return max(0.0, mean - half), mean + half


def analyse(start: State, actions: Iterable[Sequence[Any]]) -> dict[str, Any]:
    """The report of a match from its first state and its actions (see the module's note)."""
    state = start
    seats = state.seats
    seat: dict[int, dict[str, Any]] = {
        c: {
            "luck": 0.0,
            "rolls": 0,
            "sixes": 0,
            "longest_wait": 0,
            "wait": 0,
            "choices": 0,
            "best": 0,
            "lost": 0.0,
            "moves": [],
            "others": 0.0,
            "own": 0.0,
        }
        for c in seats
    }
    now = first = chances(state)
    timeline = [{"seq": 0, "turn": 1, "chances": _rounded(now)}]
    turn = 1
    for action in actions:
        kind, seq = action[0], int(action[1])
        luck = lost = 0.0  # this action's, for its actor
        known: tuple[float, ...] | None = None  # the chances after it, when already found
        if kind == "roll":
            face, bonus = int(action[2]), str(action[3] or "")
            me = actor = state.to_play
            s = seat.get(me)
            if s is not None and bonus != "control":
                side = _side(state, me)
                faces = [chances(roll(state, f, bonus=bonus)[0]) for f in range(1, 7)]
                options = [v[side] for v in faces]
                luck = options[face - 1] - sum(options) / 6.0
                s["luck"] += luck
                known = faces[face - 1]
                s["rolls"] += 1
                if face == 6:
                    s["sixes"] += 1
                    s["wait"] = 0
                else:
                    s["wait"] += 1
                    s["longest_wait"] = max(s["longest_wait"], s["wait"])
            before = state
            state, _ = roll(state, face, bonus=bonus)
        elif kind == "move":
            named: Move = action[2]
            shield = bool(action[3]) if len(action) > 3 else False
            played = next(
                (
                    m
                    for m in state.legal
                    if (m.corner, m.pawn, m.frm, m.to)
                    == (named.corner, named.pawn, named.frm, named.to)
                ),
                named,
            )
            me = actor = state.to_play
            s = seat.get(me)
            ranked = after_choices(state) if s is not None and len(state.legal) > 1 else []
            if s is not None and len(ranked) > 1:
                side = _side(state, me)
                best_move, best_chances, _same = ranked[0]
                got = next((c for _m, c, same in ranked if played in same), None)
                known = got
                got = got or best_chances
                lost = max(0.0, best_chances[side] - got[side])
                s["choices"] += 1
                s["lost"] += lost
                if lost <= 1e-9 or played in ranked[0][2]:
                    s["best"] += 1
                elif lost > 0.0:
                    does, instead = describe(state, played), describe(state, best_move)
                    why = explain(state, played, best_move)
                    s["moves"].append(
                        {
                            "seq": seq,
                            "played": does,
                            "better": instead,
                            "why": why,
                            # The same three as codes and data (VERSION 2), told in the
                            # reader's language by the replay page (static/js/reasons.js).
                            "played_said": does.wire(),
                            "better_said": instead.wire(),
                            "why_said": why.wire(),
                            "lost": round(lost, 4),
                            "played_move": _move_dict(played),
                            "better_move": _move_dict(best_move),
                        }
                    )
            before = state
            state, _ = move(state, played, shield=shield)
        elif kind == "leave":
            actor = int(action[2])
            before = state
            state, _ = resign(state, actor, str(action[3]))
        else:
            continue
        # Where each seat's chance went: its own rolls' luck, its own moves (the decisions,
        # each the chance lost against the best move), and the rest of its own turn (the
        # evaluator's chance before a roll against its six faces' average, a chosen face, a
        # leave) apart from what the other seats' turns did to it. The four add up to the
        # change of its chance over the match.
        after = known if known is not None else chances(state)
        for c, t in seat.items():
            change = after[c] - now[c]
            if c != actor:
                t["others"] += change
            else:
                t["own"] += change - luck + lost
        now = after
        passed = state.phase == "over" or state.to_play != before.to_play
        if passed:
            turn += 1
            timeline.append({"seq": seq, "turn": turn, "chances": _rounded(after)})
    swings = []
    for a, b in zip(timeline, timeline[1:], strict=False):
        for c in seats:
            change = b["chances"][c] - a["chances"][c]
            if abs(change) >= SWING:
                swings.append(
                    {"seq": b["seq"], "turn": b["turn"], "corner": c, "change": round(change, 4)}
                )
    out: dict[str, dict[str, Any]] = {}
    for c, s in seat.items():
        low, high = _sixes_interval(s["rolls"])
        costly = sorted(s["moves"], key=lambda m: -m["lost"])[:3]
        out[str(c)] = {
            "colour": colour(state, c),
            "luck": round(s["luck"], 4),
            "rolls": s["rolls"],
            "sixes": s["sixes"],
            "expected_sixes": round(s["rolls"] / 6.0, 2),
            "sixes_interval": [round(low, 1), round(high, 1)],
            "longest_wait": s["longest_wait"],
            "choices": s["choices"],
            "best_share": round(s["best"] / s["choices"], 4) if s["choices"] else None,
            "lost": round(s["lost"], 4),
            "others": round(s["others"], 4),
            "own": round(s["own"], 4),
            "change": round(now[c] - first[c], 4),
            "costliest": costly,
        }
    return {
        "version": VERSION,
        "seats": out,
        "chances": timeline,
        "swings": swings,
        "placings": list(state.placings),
    }


def _rounded(values: Sequence[float]) -> list[float]:
    return [round(v, 4) for v in values]


def _move_dict(m: Move) -> dict[str, int]:
    return {"corner": m.corner, "pawn": m.pawn, "from": m.frm, "to": m.to}


def hint(state: State) -> tuple[Move, Reason, float]:
    """Practice: the best move for the player to move, what it does and why in words, and the
    player's chance after it. The words are a `Reason`: code best "D: W" with ``does`` (D, a
    `describe` reason's wire) and ``why`` (W, `_why_best`'s), only "D (the only move)" or
    same "D (any of the lit pawns: each leads to the same position)" with ``does``;
    games.match.saying.hint_reason tells it in the reader's language. Moves that lead to the
    same position (one pawn of the yard or another out) are one choice: the next best it is
    compared with is another position."""
    ranked = after_choices(state)
    best, found, _same = ranked[0]
    does = describe(state, best)
    if len(ranked) == 1 and len(state.legal) > 1:
        return (
            best,
            Reason(
                f"{does} (any of the lit pawns: each leads to the same position)",
                "same",
                does=does.wire(),
            ),
            found[state.to_play],
        )
    if len(ranked) == 1:
        return (
            best,
            Reason(f"{does} (the only move)", "only", does=does.wire()),
            found[state.to_play],
        )
    why = _why_best(state, best, ranked[1][0])
    return (
        best,
        Reason(f"{does}: {why}", "best", does=does.wire(), why=why.wire()),
        found[state.to_play],
    )


def _why_best(state: State, best: Move, other: Move) -> Reason:
    """Why `best` is the move to play rather than `other` (the next best), said before it is
    played (`explain` says it after a worse move was). Codes (the English): it_captures "it
    captures C", goes_home "P goes home", would_leave "moving P would leave it in reach of N
    rival pawns" (P the other pawn), takes_out "it takes P out of a rival's reach",
    keeps_better "it keeps better chances than moving P" (P the other pawn)."""
    left, kept = _reach_after(state, other), _reach_after(state, best)
    name, instead = pawn_name(state, best), pawn_name(state, other)
    if best.captures and not other.captures:
        return Reason(
            f"it captures {captured(state, best)}",
            "it_captures",
            **_pawn(state, best),
            captured=_captured_data(best),
        )
    if best.home and not other.home:
        return Reason(f"{name} goes home", "goes_home", **_pawn(state, best))
    if left and not kept:
        rivals = "a rival pawn" if left == 1 else f"{left} rival pawns"
        return Reason(
            f"moving {instead} would leave it in reach of {rivals}",
            "would_leave",
            **_pawn(state, other),
            n=left,
        )
    if threat(state, best.corner, best.frm) and not kept:
        return Reason(f"it takes {name} out of a rival's reach", "takes_out", **_pawn(state, best))
    return Reason(
        f"it keeps better chances than moving {instead}", "keeps_better", **_pawn(state, other)
    )
