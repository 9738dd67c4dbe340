"""The computer at a seat: a bot's step (a roll, or a move with its reason in words), on
dice and choices derived from the match's secret seed."""

from __future__ import annotations

import hashlib
import hmac
import random
from typing import Any

from django.db import transaction

from games.bots import BOTS
from games.bots.words import Reason
from games.engine import Move as EngineMove
from games.engine import (
    State,
)
from games.engine import move as engine_move
from games.match.errors import ServiceError
from games.models import (
    Match,
    Seat,
    Status,
)
from games.services.change import Change
from games.services.kernel import ActionResult, begin, lock_match, result_of, save

BOT_LEVELS = tuple(BOTS)  # weakest first: beginner, easy, medium, hard, greedy, expert
DEFAULT_BOT_LEVEL = "medium"


def choose_bot_move(state: State, level: str, rng: random.Random) -> EngineMove:
    """The move a bot of `level` plays (games.bots), without its reason (timeouts use it)."""
    chosen, _reason = BOTS[level].choose(state, rng)
    return chosen


def bot_rng(match: Match) -> random.Random:
    # Derived from the secret seed so a bot's choices are reproducible in a replayed
    # simulation, yet no one can predict them; the label keeps it apart from the dice.
    digest = hmac.new(
        match.server_seed.encode("ascii"), f"bot:{match.seq}".encode(), hashlib.sha256
    ).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def bot_step(change: Change, seat: Seat) -> None:
    """One step of a bot's turn: a roll (in Power, with the bonus the bot picks), or a move.
    When the bot had a choice of moves, a "bot_said" event gives its reason in words."""
    state = change.state
    assert state is not None
    bot = BOTS[seat.bot or DEFAULT_BOT_LEVEL]
    rng = bot_rng(change.match)
    if state.phase == "roll":
        bonus = bot.choose_bonus(state, rng) if state.rules.power else ""
        try:
            if bonus == "control":
                face = bot.choose_face(state, rng)
                change.roll(seat, face=face, bonus=bonus, by="bot", action_id="")
            else:
                change.dice_roll(seat, by="bot", bonus=bonus)
            return
        except ServiceError:
            if not bonus:
                raise
        change.dice_roll(seat, by="bot")  # the bonus was not allowed here: a plain roll
    else:
        chosen, reason = bot.choose(state, rng)
        if reason and len(state.legal) > 1:
            said: dict[str, Any] = {"corner": seat.corner, "text": str(reason)}
            if isinstance(reason, Reason):  # the code and data to tell it in each language
                said["why"] = reason.wire()
            change.event("bot_said", said)
        change.move(seat, chosen, shield=False, by="bot", action_id="")


def leaver_would_finish(change: Change, seat: Seat) -> bool:
    """Whether the bot playing for a player who left (a ``gone`` seat) is about to bring
    their last pawn home while someone who has not left still plays. One who
    leaves "can come back while the game runs; otherwise they lose", so the seat is taken
    out there instead (`games.services.play.match_timeout`). Not in Pairs, where the pair
    finishes together."""
    state = change.state
    if not seat.gone or state is None or state.phase != "move" or state.rules.pairs:
        return False
    if seat.corner in state.placings:
        return False
    playing = [
        s
        for s in change.seats
        if s.corner not in state.placings and s.corner not in state.out and not s.gone
    ]
    if not playing:
        return False
    # The same choice `bot_step` makes: the bot's random source depends on the match only.
    chosen, _reason = BOTS[seat.bot or DEFAULT_BOT_LEVEL].choose(state, bot_rng(change.match))
    after, _events = engine_move(state, chosen)
    return seat.corner in after.placings


def bot_act(*, match_id: int, turn_seq: int, seq: int | None = None) -> ActionResult | None:
    """A bot seat takes one step of its turn (a roll or a move). Nothing happens (None) when
    the match is not active, `turn_seq` moved on, `seq` (if given) is stale, or the seat to
    play is not a bot."""
    with transaction.atomic():
        match = lock_match(match_id)
        if match.status != Status.ACTIVE or match.turn_seq != turn_seq:
            return None
        if seq is not None and seq != match.seq:
            return None
        change = begin(match)
        seat = change.seat_to_play()
        if not seat.bot:
            return None
        bot_step(change, seat)
        save(change)
        return result_of(change)
