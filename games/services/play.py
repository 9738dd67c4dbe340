"""Playing a turn: a player's roll and move (with a retried action answered as before), and
the due deadline (`match_timeout`): a bot's step, a lone legal move, or a missed turn."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.db import IntegrityError, transaction
from django.utils.translation import gettext_lazy

from games.engine import (
    STORED_BONUSES,
    State,
    mover_of,
    timeout_move,
)
from games.engine import Move as EngineMove
from games.match.errors import ServiceError, said
from games.match.selectors import snapshot_for
from games.models import (
    Match,
    MatchEvent,
    Seat,
    Status,
)
from games.models import Move as MoveRow
from games.models import Roll as RollRow
from games.services import fenced
from games.services.bots import (
    DEFAULT_BOT_LEVEL,
    bot_rng,
    bot_step,
    choose_bot_move,
    leaver_would_finish,
)
from games.services.change import Change, acting_seat, check_active
from games.services.kernel import ActionResult, begin, lock_match, result_of, save
from games.services.leave import take_out
from games.services.presence import seat_back
from games.services.reactions import only_reactions_since

ACTION_ID_MAX = 64


def _check_action_id(action_id: str) -> str:
    action_id = str(action_id or "")
    if len(action_id) > ACTION_ID_MAX:
        raise ServiceError("bad_request", f"An action id has at most {ACTION_ID_MAX} characters")
    return action_id


def _earlier(match: Match, corner: int, action_id: str) -> ActionResult | None:
    """The result of an action this seat already sent with `action_id`, if any."""
    if not action_id:
        return None
    rolls = RollRow.objects.filter(match=match, corner=corner, action_id=action_id).order_by()
    moves = MoveRow.objects.filter(match=match, corner=corner, action_id=action_id).order_by()
    found = list(rolls.values_list("seq", flat=True).union(moves.values_list("seq", flat=True)))
    if not found:
        return None
    first = MatchEvent.objects.get(match=match, seq=found[0])
    events = MatchEvent.objects.filter(match=match, change=first.change).order_by("seq")
    return ActionResult(
        match_id=match.pk,
        seq=match.seq,
        events=[e.as_wire() for e in events],
        snapshot=snapshot_for(match),
        repeated=True,
    )


Body = Callable[[Change, Seat], None]


def roll_body(*, action_id: str, bonus: str = "", face: int | None = None) -> Body:
    """A roll applied to a change (Power: `bonus`, and `face` for Dice control)."""

    def body(change: Change, seat: Seat) -> None:
        if bonus and bonus not in STORED_BONUSES:
            raise ServiceError("bad_request", f"There is no bonus {bonus!r}")
        if bonus == "control":
            if face is None or face not in range(1, 7):
                raise ServiceError("bad_request", "Dice control needs a face from 1 to 6")
            change.roll(seat, face=face, bonus=bonus, by="player", action_id=action_id)
        elif face is not None:
            raise ServiceError("bad_request", "Only Dice control chooses the face")
        else:
            change.dice_roll(seat, by="player", action_id=action_id, bonus=bonus)

    return body


def move_body(
    *, action_id: str, pawn: int, pawn_corner: int | None = None, shield: bool = False
) -> Body:
    """A move of pawn `pawn` (of `pawn_corner`) applied to a change."""

    def body(change: Change, seat: Seat) -> None:
        state = change.state
        assert state is not None
        if state.phase != "move":
            raise ServiceError("illegal", said(gettext_lazy("Roll the die first")))
        owner = mover_of(state, seat.corner) if pawn_corner is None else int(pawn_corner)
        if owner not in range(4) or int(pawn) not in range(4):
            raise ServiceError("bad_request", "Pawns are 0 to 3 of corners 0 to 3")
        chosen = next((m for m in state.legal if m.corner == owner and m.pawn == int(pawn)), None)
        if chosen is None:
            rows = state.pawns[owner]
            frm = rows[int(pawn)] if rows else -1
            chosen = EngineMove(owner, int(pawn), frm, frm + state.die)
        change.move(seat, chosen, shield=bool(shield), by="player", action_id=action_id)

    return body


def _player_action(
    match_id: int,
    user: Any,
    corner: int | None,
    seq: int,
    action_id: str,
    *,
    fast: bool = False,
) -> tuple[Change, Seat, ActionResult | None]:
    """Lock (or, `fast`, read without a lock: `fenced.load`), find the seat, answer a repeated
    action id, refuse a stale or out-of-turn one."""
    action_id = _check_action_id(action_id)
    if fast:
        match = fenced.load(match_id)
        change = fenced.begin_loaded(match)
    else:
        match = lock_match(match_id)
        change = begin(match)
    seat = acting_seat(change, user, corner)
    if seq != match.seq:
        # A retried action arrives with the seq it was made against: answer it as before.
        # (A repeated id with the current seq is caught by the unique constraint instead.)
        earlier = _earlier(match, seat.corner, action_id)
        if earlier is not None:
            return change, seat, earlier
    check_active(match)
    if seq != match.seq and not only_reactions_since(match, seq):
        stale = ServiceError(
            "stale", f"The match has moved on (v{match.seq}, not v{seq}): here is the new state"
        )
        # The match as it was just read, for the answer's state (the room sends it without
        # reading the match again: under load a stale action is a race, and a read costs).
        stale.loaded = (match, change.seats)
        raise stale
    assert change.state is not None
    if seat.corner != change.state.to_play:
        raise ServiceError("not_your_turn", "It is not your turn")
    if seat.missed_turns or seat.away:
        change.reclaimed = True
    if seat.missed_turns:
        change.seat_update(seat, missed_turns=0)
    if seat.away:
        seat_back(change, seat)  # the player acts: the computer gives their seat back
    if match.pause_until is not None and change.now < match.pause_until:
        raise ServiceError(
            "pause", "No pawn could use the last roll: the die passes on in a moment"
        )
    return change, seat, None


def _act(
    body: Callable[[Change, Seat], None],
    match_id: int,
    user: Any,
    corner: int | None,
    seq: int,
    action_id: str,
) -> ActionResult:
    """A player's action: `body` checks it and applies it to the change. On PostgreSQL it is
    tried first without a lock and written in one fenced statement (`fenced`); a change that
    needs more, or whose fence was lost to another writer, runs on the locked path."""
    if fenced.enabled():
        try:
            change, seat, earlier = _player_action(
                match_id, user, corner, seq, action_id, fast=True
            )
            if earlier is not None:
                return earlier
            body(change, seat)
            if fenced.write(change):
                return result_of(change)
        except (fenced.Fallback, IntegrityError):
            pass  # the locked path decides (a repeated id is answered there)

    def run() -> ActionResult:
        with transaction.atomic():
            change, seat, earlier = _player_action(match_id, user, corner, seq, action_id)
            if earlier is not None:
                return earlier
            body(change, seat)
            save(change)
            return result_of(change)

    return _repeat_on_conflict(run, match_id, user, corner, action_id)


def _repeat_on_conflict(
    run: Callable[[], ActionResult], match_id: int, user: Any, corner: int | None, action_id: str
) -> ActionResult:
    """Run a player action; if a concurrent twin stored the same action id first, answer
    with its result."""
    try:
        return run()
    except IntegrityError:
        if not action_id:
            raise
        with transaction.atomic():
            match = lock_match(match_id)
            seat = acting_seat(begin(match), user, corner)
            earlier = _earlier(match, seat.corner, _check_action_id(action_id))
        if earlier is None:
            raise
        return earlier


def match_roll(
    *,
    match_id: int,
    user: Any = None,
    corner: int | None = None,
    seq: int,
    action_id: str,
    bonus: str = "",
    face: int | None = None,
) -> ActionResult:
    """Roll the die for the seat to play. Power: `bonus` "double", "control" (then `face` is
    the chosen face) or "shield"."""

    body = roll_body(action_id=action_id, bonus=bonus, face=face)
    return _act(body, match_id, user, corner, seq, action_id)


def match_move(
    *,
    match_id: int,
    user: Any = None,
    corner: int | None = None,
    seq: int,
    action_id: str,
    pawn: int,
    pawn_corner: int | None = None,
    shield: bool = False,
) -> ActionResult:
    """Move pawn `pawn` (of `pawn_corner`: the partner's in Pairs once one's own are home)."""

    body = move_body(action_id=action_id, pawn=pawn, pawn_corner=pawn_corner, shield=shield)
    return _act(body, match_id, user, corner, seq, action_id)


def match_timeout(
    *, match_id: int, turn_seq: int | None, skip_locked: bool = False
) -> ActionResult | None:
    """A due deadline fired. Does nothing (None) unless the match is active, `turn_seq` is its
    current turn (None: whichever turn is due now, as the sweep reads it) and the deadline
    has passed (by the database clock).

    A bot's turn: the bot takes its step. A lone legal move after a roll: it is played (not a
    missed turn). Otherwise the player missed the turn: the server plays the rest of it
    (rolling if needed, then the preset's timeout move, or the bot's move where the preset
    says a bot plays), counts the missed turn, and after ``rules.timeouts_to_forfeit`` in a
    row the player forfeits instead.

    On PostgreSQL it is tried first as a player's action is (`_act`): read without a lock and
    written in one fenced statement (two round trips instead of eight), a missed turn's count
    on the seat included. A change that needs more (a forfeit, the end of the match) runs on
    the locked path, which decides again from the stored match; so does one whose fence
    another writer took, except for the sweep.
    With `skip_locked` (the sweep) a match whose row another transaction holds, or whose
    fence another writer took, is left alone (None): the next sweep looks again.
    """
    if fenced.enabled():
        try:
            match = fenced.load(match_id)
            change = _expired(match, fenced.begin_loaded(match), turn_seq)
            if change is None:
                return None
            if fenced.write(change, skip_locked=skip_locked):
                return result_of(change)
            if skip_locked:
                # Another writer moved the match on first (a player, another sweep) or holds
                # its row: the step is theirs or the next sweep's, never made twice, and not
                # decided again on the locked path.
                return None
        except (fenced.Fallback, IntegrityError):
            pass  # the locked path decides
    with transaction.atomic():
        if skip_locked and not (
            Match.objects.select_for_update(skip_locked=True).filter(pk=match_id).exists()
        ):
            return None  # another transaction holds it: the next sweep looks again
        match = lock_match(match_id)
        change = _expired(match, begin(match), turn_seq)
        if change is None:
            return None
        save(change)
        return result_of(change)


def _expired(match: Match, change: Change, turn_seq: int | None) -> Change | None:
    """`match_timeout`'s decision applied to `change` (None: nothing is due)."""
    if match.status != Status.ACTIVE or turn_seq not in (None, match.turn_seq):
        return None
    if match.turn_deadline is None or match.turn_deadline > change.now:
        return None
    state = change.state
    assert state is not None
    seat = change.seat_to_play()
    if seat.away and leaver_would_finish(change, seat):
        # Party: a leaver who never returns loses: out, below everyone still playing.
        take_out(change, seat, reason="left", forfeit=True)
    elif seat.bot or seat.away:
        # A bot's seat, or a player's the computer plays while they are away.
        bot_step(change, seat)
    elif state.phase == "move" and len(state.legal) == 1:
        change.move(seat, state.legal[0], shield=False, by="auto", action_id="")
    else:
        rules = match.rules
        missed = seat.missed_turns + 1
        change.event("timeout", {"corner": seat.corner, "missed": missed})
        change.seat_update(seat, missed_turns=missed)
        if rules.timeouts_to_forfeit and missed >= rules.timeouts_to_forfeit:
            take_out(change, seat, reason="timeout", forfeit=True)
        else:
            if rules.on_timeout == "bot":
                rng = bot_rng(match)
                level = DEFAULT_BOT_LEVEL

                def policy(s: State) -> EngineMove:
                    return choose_bot_move(s, level, rng)
            else:
                policy = timeout_move
            change.play_turn_for(seat, by="timeout", policy=policy)
    return change
