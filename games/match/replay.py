"""Rebuild a match, at any step, from its stored rows through the engine.

A match is a pure fold: its frozen rules, the first player (from its "started" event), then
every roll, move, leave and undo in event order (``seq``). `replay` gives the state at any seq;
`steps` walks every action with the state and engine events after it. The cached snapshot on
`Match` is `snapshot_of` the replay's last step; `games.match.verify` checks that it is.

Undo (local games only): an "undone" event ``{"from", "to", "corner", "turn"}`` withdraws the
actions stored at seqs ``from``..``to`` (``to`` is the seq just before it) and puts back the
state as it was before the action at ``from``. Nothing is deleted: the withdrawn rows stay,
each roll keeps its dice number ``n`` (so the proof re-derives every roll, withdrawn ones
included) and the rolls after it draw fresh numbers. The undo begins a new turn (``turn``, a
Turn row from the undone event) for ``corner``, the corner to play again.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from games.engine import Event, Move, State, dumps, move, new_game, resign, roll
from games.engine.events import KINDS, TurnPassed
from games.models import Match, MatchEvent
from games.models import Move as MoveRow
from games.models import Roll as RollRow

# Kinds of the events the engine emits (`as_dict(event)["kind"]`, `games.engine.events.KINDS`);
# every other kind in the
# stream is a service event (created, joined, client_seed, started, timeout, leave, undone,
# bot_took_seat, away, bot_said, voided, ended).
ENGINE_KINDS = KINDS


def snapshot_of(state: State, *, rolls: int, turn: int) -> dict[str, Any]:
    """The cache stored on `Match.snapshot`: the engine notation plus counters."""
    return {"notation": dumps(state), "rolls": rolls, "turn": turn}


@dataclass(frozen=True)
class Action:
    """One stored input to the fold: a roll, a move, a leave (resign or forfeit) or an undo."""

    seq: int
    kind: str  # "roll" | "move" | "leave" | "undo"
    row: RollRow | MoveRow | MatchEvent


@dataclass(frozen=True)
class Step:
    """An action applied: the state after it, and what the engine said."""

    action: Action
    state: State
    events: tuple[Event, ...]
    rolls: int  # rolls stored so far, this one included
    turn: int  # the turn number after the action


def started_event(match: Match) -> MatchEvent | None:
    return MatchEvent.objects.filter(match=match, kind="started").order_by("seq").first()


def initial_state(match: Match, started: MatchEvent | None = None) -> State | None:
    """The state at the start (None if the match never started)."""
    started = started or started_event(match)
    if started is None:
        return None
    return new_game(match.rules, match.players, first=int(started.data["first"]))


SERVICE_ACTIONS = {"leave": "leave", "undone": "undo"}


def load_actions(match: Match) -> list[Action]:
    """Every roll, move, leave and undo of `match`, in event order."""
    actions = [Action(r.seq, "roll", r) for r in RollRow.objects.filter(match=match)]
    actions += [Action(m.seq, "move", m) for m in MoveRow.objects.filter(match=match)]
    actions += [
        Action(e.seq, SERVICE_ACTIONS[e.kind], e)
        for e in MatchEvent.objects.filter(match=match, kind__in=SERVICE_ACTIONS)
    ]
    actions.sort(key=lambda a: a.seq)
    return actions


def withdrawn(actions: list[Action]) -> set[int]:
    """The seqs of the actions that an undo withdrew (undos included)."""
    gone: set[int] = set()
    for action in actions:
        if action.kind == "undo":
            data = action.row.data  # type: ignore[union-attr]
            low, high = int(data["from"]), int(data["to"])
            gone.update(a.seq for a in actions if low <= a.seq <= high)
    return gone


def apply(state: State, action: Action) -> tuple[State, tuple[Event, ...]]:
    """Apply one stored roll, move or leave; raises the engine's IllegalAction if the rules
    refuse it. (An undo needs the states before: `steps` applies it.)"""
    row = action.row
    if action.kind == "undo":
        raise ValueError("an undo is applied by steps(), which keeps the states it goes back to")
    if isinstance(row, RollRow):
        return roll(state, row.face, bonus=row.bonus)
    if isinstance(row, MoveRow):
        # A move is named by whose pawn, which pawn, from and to; the rest is derived.
        chosen = Move(row.pawn_corner, row.pawn, row.frm, row.to)
        return move(state, chosen, shield=row.shield)
    return resign(state, int(row.data["corner"]), str(row.data["reason"]))


def steps(
    match: Match, actions: list[Action] | None = None, *, start: State | None = None
) -> Iterator[Step]:
    """Walk the match's actions from the start, yielding the state after each. An undo's step
    has the state it put back and no engine events."""
    state = start if start is not None else initial_state(match)
    if state is None:
        return
    rolls, turn = 0, 1
    before: dict[int, State] = {}  # seq of an action -> the state before it
    for action in load_actions(match) if actions is None else actions:
        if action.kind == "undo":
            state, events = before[int(action.row.data["from"])], ()  # type: ignore[union-attr]
            turn += 1
            yield Step(action, state, events, rolls, turn)
            continue
        before[action.seq] = state
        state, events = apply(state, action)
        if action.kind == "roll":
            rolls += 1
        turn += sum(1 for e in events if isinstance(e, TurnPassed))
        yield Step(action, state, events, rolls, turn)


def undo_point(
    match: Match, people: set[int], actions: list[Action] | None = None
) -> tuple[Action, State] | None:
    """What an undo in a local game would take back: the last roll or move a person made
    (one of the `people` corners; not a lone legal move, which goes with its roll), and the
    state before it; None when there is none (no person has acted, or someone left since)."""
    actions = load_actions(match) if actions is None else actions
    state = initial_state(match)
    if state is None:
        return None
    before: dict[int, State] = {}  # seq of an action -> the state before it
    for step in steps(match, actions, start=state):
        before[step.action.seq] = state
        state = step.state
    gone = withdrawn(actions)
    for action in reversed(actions):
        if action.seq in gone or action.kind == "undo":
            continue
        if action.kind == "leave":
            return None
        restored = before[action.seq]
        # A person's action: made by a player (seats switch between person and computer in
        # a local game, so the seat's kind now does not say who made it).
        row = action.row
        person = row.corner in people and getattr(row, "by", "") == "player"  # type: ignore[union-attr]
        if not person or (restored.phase == "move" and len(restored.legal) == 1):
            continue
        return action, restored
    return None


def replay(match: Match, upto_seq: int | None = None) -> State | None:
    """The state after every action up to event `upto_seq` (the latest when None)."""
    state = initial_state(match)
    if state is None:
        return None
    for step in steps(match, start=state):
        if upto_seq is not None and step.action.seq > upto_seq:
            break
        state = step.state
    return state


def replay_snapshot(match: Match) -> dict[str, Any]:
    """What `Match.snapshot` must equal: the cache rebuilt from the rows."""
    state = initial_state(match)
    if state is None:
        return {}
    rolls, turn = 0, 1
    for step in steps(match, start=state):
        state, rolls, turn = step.state, step.rolls, step.turn
    return snapshot_of(state, rolls=rolls, turn=turn)
