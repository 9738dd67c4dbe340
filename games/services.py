"""The only code that changes a match: create, join, seed, start, roll, move, timeout, forfeit,
resign, and a bot's step.

Every service is keyword-only and runs in one transaction: lock the match
(``SELECT ... FOR UPDATE``), check the seat, the ``seq`` and the turn, call the engine, append
rows (rolls, moves, turns, events), write audit entries, update the match's cached snapshot,
and after commit broadcast the change. A refusal raises `ServiceError` and writes nothing.

Who acts: either ``user`` (a seated user; in local play the host holds several seats and acts
for the one to play) or ``corner`` (server-side callers: timers, bots, local play).

Times come from the database clock (see `games.change` for the deadlines). Whatever fires a
due ``turn_deadline`` calls `match_timeout`, which does nothing unless the deadline has passed
and ``turn_seq`` is still the turn it was given; for a bot's turn it takes the bot's step.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import random
import secrets
from collections.abc import Callable, Iterable, Mapping
from datetime import datetime
from functools import partial
from typing import Any

from django.db import IntegrityError, transaction

from audit import services as audit
from audit.clock import db_now
from games.bots import BOTS
from games.engine import (
    RULESETS,
    STORED_BONUSES,
    State,
    mover_of,
    new_game,
    rules_from_name,
    rules_name,
    timeout_move,
)
from games.engine import Move as EngineMove
from ranked import ratings

from . import broadcast, dice
from .change import CLOCKED_MODES as CLOCKED_MODES
from .change import ActionResult as ActionResult
from .change import _begin, _Change, _lock, _lock_code, _result, _save, _save_seats, _seats
from .change import bot_delay as bot_delay
from .change import normalise_code as normalise_code
from .change import turn_seconds as turn_seconds
from .devices import clean_agent, device_hint
from .errors import ServiceError
from .models import CODE_ALPHABET, CODE_LENGTH, ENDED, Match, MatchEvent, Mode, Seat, Status, Turn
from .models import Move as MoveRow
from .models import Roll as RollRow

log = logging.getLogger(__name__)

HOUSE_RULES = ("compulsory_capture", "optional_bring_out", "no_jump_home_column")
PARTY_OPTIONS = ("pairs", "power")
BOT_LEVELS = tuple(BOTS)  # beginner, easy, medium, hard, expert
DEFAULT_BOT_LEVEL = "medium"
ACTION_ID_MAX = 64


# ---------------------------------------------------------------------------- bots


def choose_bot_move(state: State, level: str, rng: random.Random) -> EngineMove:
    """The move a bot of `level` plays (games.bots), without its reason (timeouts use it)."""
    chosen, _reason = BOTS[level].choose(state, rng)
    return chosen


# ---------------------------------------------------------------------------- creating


def _option_names(value: Mapping[str, Any] | Iterable[str] | None, known: tuple[str, ...]) -> list:
    if value is None:
        return []
    names = (
        [name for name, on in value.items() if on] if isinstance(value, Mapping) else list(value)
    )
    unknown = sorted(set(names) - set(known))
    if unknown:
        raise ServiceError("bad_request", f"Unknown option {unknown[0]!r}")
    return [name for name in known if name in names]


def _bots(value: Mapping[int, str] | Iterable[int] | None) -> dict[int, str]:
    if value is None:
        return {}
    if isinstance(value, Mapping):
        bots = {int(c): (level or DEFAULT_BOT_LEVEL) for c, level in value.items()}
    else:
        bots = {int(c): DEFAULT_BOT_LEVEL for c in value}
    for level in bots.values():
        if level not in BOT_LEVELS:
            raise ServiceError("bad_request", f"There is no bot level {level!r}")
    return bots


def _new_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def _bot_seat(match: Match, corner: int, level: str, now: datetime) -> Seat:
    return Seat(
        match=match,
        corner=corner,
        bot=level,
        # A bot is the server's own seat: a fixed client seed keeps a simulation with a chosen
        # server seed reproducible, and the secret server seed keeps the dice fair.
        client_seed=f"bot{corner}",
        joined_at=now,
        connected=True,
    )


def _seat_event(change: _Change, seat: Seat) -> None:
    change.event(
        "joined",
        {
            "corner": seat.corner,
            "user": seat.user_id,
            "bot": seat.bot,
        },
    )


def _check_client_seed(seed: str | None) -> str:
    if seed is None:
        return dice.new_client_seed()
    if not dice.CLIENT_SEED.fullmatch(seed):
        raise ServiceError(
            "bad_request", "A client seed is 1 to 64 letters, digits, '_' or '-' characters"
        )
    return seed


def match_create(
    *,
    ruleset: str,
    players: int,
    mode: str,
    house_rules: Mapping[str, Any] | Iterable[str] | None = None,
    options: Mapping[str, Any] | Iterable[str] | None = None,
    host: Any = None,
    bots: Mapping[int, str] | Iterable[int] | None = None,
    first: int | None = None,
    client_seed: str | None = None,
    server_seed: str | None = None,
    ip: str | None = None,
    user_agent: str = "",
) -> Match:
    """Open a match. The host takes the lowest free seat (in local play every seat that is not
    a bot); bots take the corners given. It starts at once when every seat is filled.

    ``first`` fixes the starting corner (else the preset's rule: red, or drawn with the dice).
    ``server_seed`` is for reproducible practice simulations only. ``ip`` (the host's address)
    goes into the audit log; ``user_agent`` (the host's browser) is stored on their seats.
    """
    if ruleset not in RULESETS:
        raise ServiceError("bad_request", f"There is no rule set {ruleset!r}")
    if mode not in Mode.values:
        raise ServiceError("bad_request", f"There is no mode {mode!r}")
    chosen = _option_names(house_rules, HOUSE_RULES) + _option_names(options, PARTY_OPTIONS)
    try:
        rules = rules_from_name("+".join([ruleset, *chosen]))  # cached: one Board per name
        corners = rules.seats_for(int(players))
    except (ValueError, TypeError) as exc:
        raise ServiceError("bad_request", str(exc)) from exc
    bot_levels = _bots(bots)
    if bot_levels and mode == Mode.RANKED:
        raise ServiceError("ranked_no_bots", "Ranked matches never seat a bot")
    if set(bot_levels) - set(corners):
        bad = sorted(set(bot_levels) - set(corners))[0]
        raise ServiceError("bad_request", f"Corner {bad} has no seat in this match")
    if first is not None and first not in corners:
        raise ServiceError("bad_request", f"Corner {first} has no seat in this match")
    if server_seed is not None and mode != Mode.PRACTICE:
        raise ServiceError("bad_request", "A chosen server seed is for practice simulations only")
    free = [c for c in corners if c not in bot_levels]
    if mode == Mode.LOCAL:
        if host is None:
            raise ServiceError("bad_request", "Local play needs the host whose device it is")
        if not free:
            raise ServiceError("bad_request", "At least one seat is a person")
        host_corners = free
    elif host is not None and free:
        host_corners = free[:1]
    elif host is not None and mode != Mode.PRACTICE:
        raise ServiceError("bad_request", "The host needs a seat, but bots fill every seat")
    else:
        host_corners = []
    seed = server_seed if server_seed is not None else dice.new_server_seed()
    host_seed = _check_client_seed(client_seed)

    with transaction.atomic():
        if mode == Mode.RANKED and host is not None:
            _ranked_may_sit(host)
        now = db_now()
        match = None
        for _ in range(20):
            try:
                with transaction.atomic():
                    match = Match.objects.create(
                        code=_new_code(),
                        ruleset=ruleset,
                        options={
                            "rules": rules_name(rules),
                            "house_rules": [n for n in chosen if n in HOUSE_RULES],
                            "pairs": rules.pairs,
                            "power": rules.power,
                            "first": first,
                        },
                        players=len(corners),
                        mode=mode,
                        host=host,
                        server_seed=seed,
                        commitment=dice.commitment(seed),
                    )
                break
            except IntegrityError:
                continue  # a room code taken already: draw another
        if match is None:
            raise RuntimeError("no free room code after 20 draws")
        change = _Change(match=match, now=now, seats=[])
        change.event(
            "created",
            {
                "rules": rules_name(rules),
                "mode": mode,
                "players": len(corners),
                "commitment": match.commitment,
            },
        )
        seats = [
            Seat(
                match=match,
                corner=c,
                user=host,
                client_seed=host_seed if i == 0 else dice.new_client_seed(),
                joined_at=now,
                ip=ip,
                **_agent(user_agent),
            )
            for i, c in enumerate(host_corners)
        ]
        seats += [_bot_seat(match, c, level, now) for c, level in sorted(bot_levels.items())]
        seats.sort(key=lambda s: s.corner)
        Seat.objects.bulk_create(seats)
        change.seats = _seats(match)
        for seat in change.seats:
            _seat_event(change, seat)
        audit.record(
            action="match.created",
            actor=host,
            ip=ip,
            obj=match,
            extra={
                "code": match.code,
                "rules": rules_name(rules),
                "mode": mode,
                "players": len(corners),
                "commitment": match.commitment,
                "bots": {str(c): level for c, level in sorted(bot_levels.items())},
            },
        )
        if host_corners:
            audit.record(
                action="match.joined",
                actor=host,
                ip=ip,
                obj=match,
                extra={"corners": host_corners},
            )
        if len(change.seats) == len(corners):
            _start(change)
        _save(change)
    return match


def _start(change: _Change) -> None:
    """Freeze the client seeds, choose the first player, deal the first turn."""
    match = change.match
    rules = match.rules
    corners = rules.seats_for(match.players)
    client_seed = dice.match_client_seed(s.client_seed for s in change.seats)
    fixed = match.options.get("first")
    if fixed is not None:
        first = int(fixed)
    elif rules.first_player == "red":
        first = corners[0]
    else:
        first = dice.draw_first(match.server_seed, client_seed, corners)
    match.status = Status.ACTIVE
    match.started_at = change.now
    match.first = first
    match.client_seed = client_seed
    change.match_fields.update({"started_at", "first", "client_seed"})
    change.state = new_game(rules, match.players, first=first)
    change.rolls, change.turn = 0, 1
    seq = change.event(
        "started", {"first": first, "client_seed": client_seed, "commitment": match.commitment}
    )
    change.rows.append(Turn(match=match, n=1, corner=first, seq=seq, started_at=change.now))
    change.audits.append(
        partial(
            audit.record,
            action="match.started",
            obj=match,
            extra={"code": match.code, "first": first, "client_seed": client_seed},
        )
    )


def match_join(
    *,
    code: str,
    user: Any,
    client_seed: str | None = None,
    ip: str | None = None,
    user_agent: str = "",
) -> Seat:
    """Take the lowest free seat of a waiting match; the match starts when it is full."""
    seed = _check_client_seed(client_seed)
    with transaction.atomic():
        match = _lock_code(code)
        if match.status in ENDED:
            raise ServiceError("over", "This match has ended")
        change = _begin(match)
        if any(s.user_id == user.pk for s in change.seats):
            raise ServiceError("already_seated", "You already have a seat in this match")
        corners = match.rules.seats_for(match.players)
        taken = {s.corner for s in change.seats}
        free = [c for c in corners if c not in taken]
        if match.status != Status.WAITING or not free:
            raise ServiceError("full", "Every seat in this match is taken")
        if match.mode == Mode.RANKED:
            _ranked_may_sit(user, match=match)
        seat = Seat.objects.create(
            match=match,
            corner=free[0],
            user=user,
            client_seed=seed,
            joined_at=change.now,
            ip=ip,
            **_agent(user_agent),
        )
        change.seats = _seats(match)
        _seat_event(change, seat)
        if match.mode == Mode.RANKED:
            _same_ip(match, seat, change.seats)
        audit.record(
            action="match.joined", actor=user, ip=ip, obj=match, extra={"corners": [seat.corner]}
        )
        if len(free) == 1:
            _start(change)
        _save(change)
    return seat


def match_set_client_seed(*, code: str, user: Any, seed: str) -> None:
    """Set the user's client seed for the dice; allowed until the match starts."""
    seed = _check_client_seed(seed)
    with transaction.atomic():
        match = _lock_code(code)
        if match.status in ENDED:
            raise ServiceError("over", "This match has ended")
        if match.status != Status.WAITING:
            raise ServiceError("bad_request", "The dice seeds are fixed once the match starts")
        change = _begin(match)
        mine = [s for s in change.seats if s.user_id == user.pk]
        if not mine:
            raise ServiceError("not_seated", "You have no seat in this match")
        change.seat_update(mine[0], client_seed=seed)
        change.event("client_seed", {"corner": mine[0].corner, "seed": seed})
        _save(change)


def match_start(*, match_id: int, bots_for_empty: str | None = None) -> ActionResult:
    """Start a waiting match; empty seats are refused, or filled with bots of the given level
    (never in ranked)."""
    with transaction.atomic():
        match = _lock(match_id)
        if match.status in ENDED:
            raise ServiceError("over", "This match has ended")
        if match.status != Status.WAITING:
            raise ServiceError("bad_request", "This match has already started")
        change = _begin(match)
        corners = match.rules.seats_for(match.players)
        empty = [c for c in corners if change.seat_at(c) is None]
        if empty:
            if bots_for_empty is None:
                raise ServiceError(
                    "bad_request", f"Seats {', '.join(map(str, empty))} are still empty"
                )
            if match.mode == Mode.RANKED:
                raise ServiceError("ranked_no_bots", "Ranked matches never seat a bot")
            level = _bots({c: bots_for_empty for c in empty})
            Seat.objects.bulk_create(
                [_bot_seat(match, c, lv, change.now) for c, lv in level.items()]
            )
            change.seats = _seats(match)
            for c in empty:
                seat = change.seat_at(c)
                assert seat is not None
                _seat_event(change, seat)
        _start(change)
        _save(change)
        return _result(change)


# ---------------------------------------------------------------------------- playing


def _active(match: Match) -> None:
    if match.status in ENDED:
        raise ServiceError("over", "This match has ended")
    if match.status != Status.ACTIVE:
        raise ServiceError("bad_request", "This match has not started")


def _actor(change: _Change, user: Any, corner: int | None) -> Seat:
    """The seat acting: the user's (the one to play, if they hold several) or `corner`'s."""
    if user is None and corner is None:
        raise ServiceError("bad_request", "Say who acts: a user or a corner")
    if user is None:
        seat = change.seat_at(int(corner)) if corner is not None else None
        if seat is None:
            raise ServiceError("not_seated", f"Corner {corner} has no seat in this match")
        return seat
    mine = [s for s in change.seats if s.user_id == user.pk]
    if corner is not None:
        mine = [s for s in mine if s.corner == corner]
    if not mine:
        raise ServiceError("not_seated", "You have no seat in this match")
    to_play = change.state.to_play if change.state is not None else None
    return next((s for s in mine if s.corner == to_play), mine[0])


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
    from .selectors import snapshot_for

    return ActionResult(
        match_id=match.pk,
        seq=match.seq,
        events=[e.as_wire() for e in events],
        snapshot=snapshot_for(match),
        repeated=True,
    )


def _player_action(
    match_id: int, user: Any, corner: int | None, seq: int, action_id: str
) -> tuple[_Change, Seat, ActionResult | None]:
    """Lock, find the seat, answer a repeated action id, refuse a stale or out-of-turn one."""
    action_id = _check_action_id(action_id)
    match = _lock(match_id)
    change = _begin(match)
    seat = _actor(change, user, corner)
    if seq != match.seq:
        # A retried action arrives with the seq it was made against: answer it as before.
        # (A repeated id with the current seq is caught by the unique constraint instead.)
        earlier = _earlier(match, seat.corner, action_id)
        if earlier is not None:
            return change, seat, earlier
    _active(match)
    if seq != match.seq:
        raise ServiceError(
            "stale", f"The match has moved on (v{match.seq}, not v{seq}): here is the new state"
        )
    assert change.state is not None
    if seat.corner != change.state.to_play:
        raise ServiceError("not_your_turn", "It is not your turn")
    if seat.missed_turns:
        change.seat_update(seat, missed_turns=0)
    if seat.away:
        _seat_back(change, seat)  # the player acts: the computer gives their seat back
    return change, seat, None


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
            match = _lock(match_id)
            seat = _actor(_begin(match), user, corner)
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

    def run() -> ActionResult:
        with transaction.atomic():
            change, seat, earlier = _player_action(match_id, user, corner, seq, action_id)
            if earlier is not None:
                return earlier
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
            _save(change)
            return _result(change)

    return _repeat_on_conflict(run, match_id, user, corner, action_id)


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

    def run() -> ActionResult:
        with transaction.atomic():
            change, seat, earlier = _player_action(match_id, user, corner, seq, action_id)
            if earlier is not None:
                return earlier
            state = change.state
            assert state is not None
            if state.phase != "move":
                raise ServiceError("illegal", "Roll the die first")
            owner = mover_of(state, seat.corner) if pawn_corner is None else int(pawn_corner)
            if owner not in range(4) or int(pawn) not in range(4):
                raise ServiceError("bad_request", "Pawns are 0 to 3 of corners 0 to 3")
            chosen = next(
                (m for m in state.legal if m.corner == owner and m.pawn == int(pawn)), None
            )
            if chosen is None:
                rows = state.pawns[owner]
                frm = rows[int(pawn)] if rows else -1
                chosen = EngineMove(owner, int(pawn), frm, frm + state.die)
            change.move(seat, chosen, shield=bool(shield), by="player", action_id=action_id)
            _save(change)
            return _result(change)

    return _repeat_on_conflict(run, match_id, user, corner, action_id)


def _bot_rng(match: Match) -> random.Random:
    # Derived from the secret seed so a bot's choices are reproducible in a replayed
    # simulation, yet no one can predict them; the label keeps it apart from the dice.
    digest = hmac.new(
        match.server_seed.encode("ascii"), f"bot:{match.seq}".encode(), hashlib.sha256
    ).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def _bot_step(change: _Change, seat: Seat) -> None:
    """One step of a bot's turn: a roll (in Power, with the bonus the bot picks), or a move.
    When the bot had a choice of moves, a "bot_said" event gives its reason in words."""
    state = change.state
    assert state is not None
    bot = BOTS[seat.bot or DEFAULT_BOT_LEVEL]
    rng = _bot_rng(change.match)
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
            change.event("bot_said", {"corner": seat.corner, "text": reason})
        change.move(seat, chosen, shield=False, by="bot", action_id="")


def bot_act(*, match_id: int, turn_seq: int, seq: int | None = None) -> ActionResult | None:
    """A bot seat takes one step of its turn (a roll or a move). Nothing happens (None) when
    the match is not active, `turn_seq` moved on, `seq` (if given) is stale, or the seat to
    play is not a bot."""
    with transaction.atomic():
        match = _lock(match_id)
        if match.status != Status.ACTIVE or match.turn_seq != turn_seq:
            return None
        if seq is not None and seq != match.seq:
            return None
        change = _begin(match)
        seat = change.seat_to_play()
        if not seat.bot:
            return None
        _bot_step(change, seat)
        _save(change)
        return _result(change)


def match_timeout(*, match_id: int, turn_seq: int) -> ActionResult | None:
    """A due deadline fired. Does nothing (None) unless the match is active, `turn_seq` is its
    current turn and the deadline has passed (by the database clock).

    A bot's turn: the bot takes its step. A lone legal move after a roll: it is played (not a
    missed turn). Otherwise the player missed the turn: the server plays the rest of it
    (rolling if needed, then the preset's timeout move, or the bot's move where the preset
    says a bot plays), counts the missed turn, and after ``rules.timeouts_to_forfeit`` in a
    row the player forfeits instead.
    """
    with transaction.atomic():
        match = _lock(match_id)
        if match.status != Status.ACTIVE or match.turn_seq != turn_seq:
            return None
        change = _begin(match)
        if match.turn_deadline is None or match.turn_deadline > change.now:
            return None
        state = change.state
        assert state is not None
        seat = change.seat_to_play()
        if seat.bot or seat.away:
            # A bot's seat, or a player's the computer plays while they are away.
            _bot_step(change, seat)
        elif state.phase == "move" and len(state.legal) == 1:
            change.move(seat, state.legal[0], shield=False, by="auto", action_id="")
        else:
            rules = match.rules
            missed = seat.missed_turns + 1
            change.event("timeout", {"corner": seat.corner, "missed": missed})
            change.seat_update(seat, missed_turns=missed)
            if rules.timeouts_to_forfeit and missed >= rules.timeouts_to_forfeit:
                _take_out(change, seat, reason="timeout", forfeit=True)
            else:
                if rules.on_timeout == "bot":
                    rng = _bot_rng(match)
                    level = DEFAULT_BOT_LEVEL

                    def policy(s: State) -> EngineMove:
                        return choose_bot_move(s, level, rng)
                else:
                    policy = timeout_move
                change.play_turn_for(seat, by="timeout", policy=policy)
        _save(change)
        return _result(change)


# ---------------------------------------------------------------------------- undo


def match_undo(*, match_id: int, user: Any, seq: int | None = None) -> ActionResult:
    """Local play only: take back the last roll or move a person made, with every computer
    step after it. The stream keeps what happened: an "undone" event withdraws the actions
    from that roll or move on, puts back the state before it and begins a new turn (see
    `games.replay`); later rolls draw fresh dice numbers.

    A move that was the only legal one is taken back with its roll (else it would play
    itself again). Refused (``no_undo``) in ranked, friendly and practice matches, and when
    nothing is left to take back (no person has acted, or someone left since). ``seq``, if
    given, is the match's seq the request was made against: a repeated request is refused
    as stale instead of taking back one more. Computer steps since ``seq`` (a bot's, or a
    lone move played by itself) do not make it stale: they are taken back too.
    """
    from .replay import load_actions, undo_point

    with transaction.atomic():
        match = _lock(match_id)
        if match.mode != Mode.LOCAL:
            raise ServiceError("no_undo", "Undo is for local games on one device only")
        _active(match)
        change = _begin(match)
        if user is None or not any(s.user_id == user.pk for s in change.seats):
            raise ServiceError("not_seated", "You have no seat in this match")
        actions = load_actions(match)
        if seq is not None and (
            seq > match.seq
            or any(a.seq > seq and getattr(a.row, "by", "") in ("", "player") for a in actions)
        ):
            raise ServiceError(
                "stale", f"The match has moved on (v{match.seq}, not v{seq}): here is the new state"
            )
        people = {s.corner for s in change.seats if not s.bot}
        point = undo_point(match, people, actions)
        if point is None:
            raise ServiceError("no_undo", "There is no roll or move of a person to take back")
        target, restored = point
        change.state = restored
        change.turn += 1
        data = {
            "from": target.seq,
            "to": match.seq,
            "corner": restored.to_play,
            "turn": change.turn,
        }
        at = change.event("undone", data)
        change.rows.append(
            Turn(match=match, n=change.turn, corner=restored.to_play, seq=at, started_at=change.now)
        )
        change.audits.append(
            partial(
                audit.record,
                action="match.undone",
                actor=user,
                obj=match,
                extra={"code": match.code, **data},
            )
        )
        _save(change)
        return _result(change)


# ---------------------------------------------------------------------------- leaving


def _take_out(
    change: _Change,
    seat: Seat,
    *,
    reason: str,
    forfeit: bool,
    actor: Any = None,
    ip: str | None = None,
) -> None:
    """`seat` leaves the match (the engine places it below everyone still playing), audited
    as a forfeit (the server's doing) or a resignation (the player's) once the change saves."""
    change.leave(seat, reason=reason, forfeit=forfeit)
    change.audits.append(
        partial(
            audit.record,
            action="match.forfeited" if forfeit else "match.resigned",
            actor=actor if actor is not None else seat.user,
            ip=ip,
            obj=change.match,
            extra={"corner": seat.corner, "reason": reason},
        )
    )


def _leave(
    match_id: int,
    seat_of: Callable[[_Change], Seat],
    reason: str,
    forfeit: bool,
    actor: Any,
    ip: str | None = None,
) -> ActionResult:
    with transaction.atomic():
        match = _lock(match_id)
        _active(match)
        change = _begin(match)
        seat = seat_of(change)
        _take_out(change, seat, reason=reason, forfeit=forfeit, actor=actor, ip=ip)
        _save(change)
        return _result(change)


def match_forfeit(*, match_id: int, corner: int, reason: str) -> ActionResult:
    """The server takes `corner` out of the match (disconnect grace expired, ...)."""

    def seat_of(change: _Change) -> Seat:
        seat = change.seat_at(int(corner))
        if seat is None:
            raise ServiceError("not_seated", f"Corner {corner} has no seat in this match")
        return seat

    return _leave(match_id, seat_of, str(reason), True, None)


def match_resign(
    *, match_id: int, user: Any = None, corner: int | None = None, ip: str | None = None
) -> ActionResult:
    """A player gives up: placed below everyone still playing. (In local play the host names
    the seat with `corner`.) In party rooms that may seat bots, a bot plays on in the seat
    instead (`_hand_to_bot`)."""
    with transaction.atomic():
        match = _lock(match_id)
        _active(match)
        if _bot_takes_over(match):
            change = _begin(match)
            seat = _actor(change, user, corner)
            if seat.left:
                raise ServiceError("over", "You are out of this match")
            if seat.away:
                raise ServiceError("bad_request", "A bot is already playing your seat")
            _hand_to_bot(change, seat, user, ip)
            _save(change)
            return _result(change)
    return _leave(
        match_id, lambda change: _actor(change, user, corner), "resigned", False, user, ip
    )


# ---------------------------------------------------------------------------- presence
#
# Who is connected, the disconnect grace and the computer playing for a player who is away
# (RULES.md "disconnect"). Kept on the seat: ``connected``, ``disconnected_at`` (when its
# last connection closed) and ``away`` (the computer plays the seat until the player is
# back). None of it is a change of the game: no event is appended and ``seq`` stays, so a
# player's action in flight is never made stale by someone's tab closing; the room is told
# with presence events (no ``seq``) that carry the seat's new flags and the match's
# deadline, so that a socket can mark its last snapshot without a read.


def _presence_event(kind: str, seat: Seat, change: _Change) -> dict[str, Any]:
    match = change.match
    return {
        "kind": kind,
        "corner": seat.corner,
        "at": change.now.isoformat(timespec="microseconds"),
        "connected": seat.connected,
        "away": seat.away,
        "deadline": match.turn_deadline.isoformat() if match.turn_deadline else None,
    }


def _presence_broadcast(match: Match, events: list[dict[str, Any]]) -> None:
    if events:
        transaction.on_commit(partial(broadcast.match_changed, match.pk, match.seq, events))


def _presence_save(change: _Change, who_plays: list[Seat]) -> None:
    """Save the seats' presence. When the seat to play in an active match changes hands
    (`who_plays`: the computer takes it or gives it back), the whole change is saved, which
    deals its deadline again (a bot's pause, or the player's own clock); otherwise the
    deadline of whoever is playing stays as it was."""
    state, match = change.state, change.match
    playing = match.status == Status.ACTIVE and state is not None and state.phase != "over"
    if playing and state is not None and any(s.corner == state.to_play for s in who_plays):
        _save(change)
        return
    _save_seats(change)


def _seat_back(change: _Change, seat: Seat) -> None:
    """The player is back in a seat the computer played for them: clear the mark (the
    caller saves the change, which deals the human's clock again)."""
    change.seat_update(seat, away=False)


def _agent(user_agent: str | bytes | None) -> dict[str, str]:
    """A seat's browser fields from a User-Agent header (dispute evidence, staff only)."""
    agent = clean_agent(user_agent)
    return {"user_agent": agent, "device": device_hint(agent)}


def seat_set_connected(
    *,
    match_id: int,
    user: Any,
    connected: bool,
    ip: str | None = None,
    user_agent: str | bytes | None = None,
) -> None:
    """Record whether the user's seats have a live connection. Connecting clears the grace
    and gives an away seat back to its player; the last connection closing starts the grace
    (`seat_grace_expired` decides, when the clock sweep finds it ran out). The caller counts
    the user's sockets: this is called for the first one opening and the last one closing.
    A seat's change is audited (``seat.connected``, ``seat.disconnected``, with ``ip``, the
    socket's address) for dispute timelines; a second tab opening changes nothing."""
    with transaction.atomic():
        match = _lock(match_id)
        change = _begin(match)
        seats = [s for s in change.seats if s.user_id == user.pk]
        if not seats:
            raise ServiceError("not_seated", "You have no seat in this match")
        back = False
        events = []
        agent = _agent(user_agent) if connected and user_agent else None
        for seat in seats:
            if agent and agent["user_agent"] != seat.user_agent:
                change.seat_update(seat, **agent)  # the latest browser the player sat at
            if connected:
                if seat.connected and not seat.away and seat.disconnected_at is None:
                    continue
                kind = "back" if seat.away else "connected"
                back = back or seat.away
                change.seat_update(seat, connected=True, disconnected_at=None, away=False)
            else:
                if not seat.connected:
                    continue
                kind = "disconnected"
                change.seat_update(seat, connected=False, disconnected_at=change.now)
            events.append((kind, seat))
        _presence_save(change, seats if back else [])
        for kind, seat in events:
            audit.record(
                action="seat.disconnected" if kind == "disconnected" else "seat.connected",
                actor=user,
                ip=ip,
                obj=match,
                extra={"corner": seat.corner},
            )
        _presence_broadcast(match, [_presence_event(kind, s, change) for kind, s in events])


def seat_grace_expired(*, match_id: int, corner: int) -> str | None:
    """A disconnected player's grace ran out (the clock sweep found it). Returns what
    followed: "forfeit" (classic, duel: the seat is out), "away" (mensch, party: the computer
    plays the seat from now on, until the player is back), or None (nothing changed: they
    are back, the grace has not run out by the database clock, or the match is over). The
    caller's timer is not trusted: everything is re-read under the match's lock."""
    from .clock import scaled

    with transaction.atomic():
        match = _lock(match_id)
        if match.status != Status.ACTIVE or match.mode == Mode.LOCAL:
            return None
        change = _begin(match)
        seat = change.seat_at(int(corner))
        if (
            seat is None
            or seat.bot
            or seat.connected
            or seat.away
            or seat.left
            or seat.disconnected_at is None
        ):
            return None
        rules = match.rules
        if rules.on_disconnect == "none" or rules.disconnect_seconds is None:
            return None
        grace = scaled(rules.disconnect_seconds)
        started = match.started_at or seat.disconnected_at
        # The grace runs from the later of the disconnect and the start of the match.
        if max(seat.disconnected_at, started) + grace > change.now:
            return None
        if rules.on_disconnect == "forfeit":
            _take_out(change, seat, reason="disconnected", forfeit=True)
            _save(change)
            return "forfeit"
        # "computer" (mensch) and "bot" (party): the computer plays the seat's turns at a
        # bot's pace (`match_timeout`) until the player connects again or acts.
        change.seat_update(seat, away=True)
        _presence_save(change, [seat])
        _presence_broadcast(match, [_presence_event("away", seat, change)])
        return "away"


def _hand_to_bot(change: _Change, seat: Seat, actor: Any, ip: str | None) -> None:
    """Party: a leaving player's seat is played on by a labelled bot (RULES.md "leaving = bot
    in the seat"); the match keeps its number of players. The seat stays the player's: as
    for any away seat, they take it back by opening the room again or by acting in it.
    RULES.md is silent on the result: the seat finishes where the bot brings it (the
    finishing order is the replayed one, checked against the dice), and the stream and the
    audit log say that the player left."""
    level = DEFAULT_BOT_LEVEL
    change.seat_update(seat, away=True, missed_turns=0)
    change.event("bot_took_seat", {"corner": seat.corner, "bot": level, "reason": "resigned"})
    change.audits.append(
        partial(
            audit.record,
            action="match.bot_took_seat",
            actor=actor if actor is not None else seat.user,
            ip=ip,
            obj=change.match,
            extra={"corner": seat.corner, "bot": level, "reason": "resigned"},
        )
    )


def _bot_takes_over(match: Match) -> bool:
    """Whether leaving hands the seat to a bot: party rules in a friendly room. Ranked rooms
    never seat a bot (leaving is a forfeit there); practice (a person against bots) and local
    play (one device) keep the plain resign, which ends the game for the one who asked."""
    return match.rules.on_disconnect == "bot" and match.mode == Mode.FRIENDLY


# ---------------------------------------------------------------------------- voiding


def match_void(*, match_id: int, reason: str, actor: Any, ip: str | None = None) -> Match:
    """Void a finished match (a moderator upheld a dispute): it no longer counts. Its results
    are cleared (places and rating changes; the event stream keeps what happened), and if it
    was rated, its queue is re-rated as if it had never been played, which re-rates the later
    matches of its players in order. Refused unless the match is finished."""
    reason = str(reason).strip()
    if not reason:
        raise ServiceError("bad_request", "Say why the match is voided")
    with transaction.atomic():
        match = _lock(match_id)
        if match.status == Status.VOID:
            raise ServiceError("already_void", "This match is void already")
        if match.status != Status.FINISHED:
            raise ServiceError("not_finished", "Only a finished match can be voided")
        change = _begin(match)
        queue = ratings.queue_of(match)
        match.status = Status.VOID
        match.voided_at = change.now
        match.void_reason = reason
        change.match_fields.update({"voided_at", "void_reason"})
        for seat in change.seats:
            change.seat_update(
                seat, place=None, rating_before=None, rating_after=None, rating_change=None
            )
        change.event("voided", {"status": "void", "reason": reason})
        audit.record(
            action="match.voided",
            actor=actor,
            ip=ip,
            obj=match,
            extra={"code": match.code, "reason": reason, "queue": queue},
        )
        _save(change)
        if queue is not None:
            _store_rerated(ratings.rerate(queue, reason=f"match {match.code} voided"))
    return match


def match_unvoid(*, match_id: int, reason: str, actor: Any, ip: str | None = None) -> Match:
    """Undo a void (a moderator found it wrong): the match counts again. Its places come back
    from the replay, and a rated match's queue is re-rated with it in its place. Audited with
    the reason (staff only); the stream says "unvoided"."""
    reason = str(reason).strip()
    if not reason:
        raise ServiceError("bad_request", "Say why the void is undone")
    with transaction.atomic():
        match = _lock(match_id)
        if match.status != Status.VOID:
            raise ServiceError("not_void", "This match is not void")
        change = _begin(match)
        state = change.state
        if state is None or state.phase != "over":
            raise ServiceError("not_finished", "Only a finished match can count again")
        queue = ratings.queue_of(match)
        match.status = Status.FINISHED
        match.voided_at = None
        match.void_reason = ""
        change.match_fields.update({"voided_at", "void_reason"})
        for place, corner in enumerate(state.placings, start=1):
            seat = change.seat_at(corner)
            if seat is not None:
                change.seat_update(seat, place=place)
        change.event("unvoided", {"status": "finished"})
        audit.record(
            action="match.unvoided",
            actor=actor,
            ip=ip,
            obj=match,
            extra={"code": match.code, "reason": reason, "queue": queue},
        )
        _save(change)
        if queue is not None:
            _store_rerated(ratings.rerate(queue, reason=f"match {match.code} counts again"))
    return match


def seat_protect_rating(
    *, match_id: int, user: Any, reason: str, actor: Any, ip: str | None = None
) -> list[int]:
    """A remedy short of a void: the finished ranked match no longer moves `user`'s rating
    (say, after the server dropped their connection); it still counts for the others. The
    queue is re-rated. Returns the corners protected."""
    reason = str(reason).strip()
    if not reason:
        raise ServiceError("bad_request", "Say why the rating is protected")
    with transaction.atomic():
        match = _lock(match_id)
        if match.status != Status.FINISHED:
            raise ServiceError("not_finished", "Only a finished match that counts can be changed")
        queue = ratings.queue_of(match)
        if queue is None:
            raise ServiceError("not_ranked", "This match moved no rating")
        seats = [s for s in _seats(match) if s.user_id == getattr(user, "pk", None)]
        if not seats:
            raise ServiceError("not_seated", "That player has no seat in this match")
        if all(s.rating_protected for s in seats):
            raise ServiceError("already_protected", "That player's rating is protected already")
        for seat in seats:
            seat.rating_protected = True
            seat.save(update_fields=["rating_protected"])
        corners = [s.corner for s in seats]
        audit.record(
            action="match.rating_protected",
            actor=actor,
            ip=ip,
            obj=match,
            extra={"code": match.code, "user": user.pk, "corners": corners, "reason": reason},
        )
        _store_rerated(ratings.rerate(queue, reason=f"match {match.code}: a rating protected"))
    return corners


def _store_rerated(results: Mapping[int, ratings.Result]) -> None:
    """Write re-rated results onto their seats (only the seats whose numbers changed)."""
    seats = Seat.objects.filter(pk__in=list(results)).only(
        "rating_before", "rating_after", "rating_change"
    )
    changed = []
    for seat in seats:
        result = results[seat.pk]
        if (seat.rating_before, seat.rating_after) != (result.before, result.after):
            seat.rating_before, seat.rating_after = result.before, result.after
            seat.rating_change = result.change
            changed.append(seat)
    Seat.objects.bulk_update(changed, ["rating_before", "rating_after", "rating_change"])


# ---------------------------------------------------------------------------- guests


def seats_hand_over(*, guest: Any, account: Any) -> int:
    """A guest who signs in to an existing account brings their games along: the guest's
    seats (and the rooms they host) become the account's, in every match where the account
    has no seat of its own (there the guest's seat stays the guest's: nobody plays
    themselves). Guests never sit in ranked matches. Returns how many seats moved."""
    with transaction.atomic():
        theirs = list(
            Seat.objects.select_for_update().filter(user=guest).exclude(match__mode=Mode.RANKED)
        )
        taken = set(Seat.objects.filter(user=account).values_list("match_id", flat=True))
        moved = [seat for seat in theirs if seat.match_id not in taken]
        for seat in moved:
            seat.user = account
        Seat.objects.bulk_update(moved, ["user"])
        matches = sorted({seat.match_id for seat in moved})
        Match.objects.filter(pk__in=matches, host=guest).update(host=account)
        if moved:
            audit.record(
                action="user.guest_merged",
                actor=account,
                obj=account,
                extra={"guest": guest.username, "seats": len(moved), "matches": matches},
            )
        return len(moved)


# ---------------------------------------------------------------------------- ranked
# One active ranked match per account, accounts only (no guests), and a note for the staff
# when two sides of a ranked match come from one address. `ranked.matchmaking` seats players
# through match_create and match_join, so these checks hold for the queues and the API alike.


def _ranked_may_sit(user: Any, match: Match | None = None) -> None:
    """Refuse a guest, or an account already seated in another ranked match that is waiting or
    being played (and that it has not left). Locks the user's row until the transaction ends,
    so two tabs taking two seats at once are one after the other."""
    from accounts.views import is_guest

    if is_guest(user) or not getattr(user, "is_authenticated", False):
        raise ServiceError("forbidden", "Ranked play is for accounts: sign up or sign in first")
    type(user).objects.select_for_update().filter(pk=user.pk).first()
    busy = Seat.objects.filter(
        user_id=user.pk,
        left=False,
        match__mode=Mode.RANKED,
        match__status__in=(Status.WAITING, Status.ACTIVE),
    )
    if match is not None:
        busy = busy.exclude(match=match)
    other = busy.select_related("match").first()
    if other is not None:
        raise ServiceError(
            "ranked_busy",
            f"You are already in a ranked match (room {other.match.code}): finish it first",
        )


def _same_ip(match: Match, seat: Seat, seats: list[Seat]) -> None:
    """Record (not block) a seat whose address another player's seat in the match shares."""
    if not seat.ip:
        return
    others = [s for s in seats if s.pk != seat.pk and s.user_id != seat.user_id]
    shared = [s for s in others if s.ip and str(s.ip) == str(seat.ip)]
    if shared:
        audit.record(
            action="match.same_ip",
            actor=seat.user,
            ip=seat.ip,
            obj=match,
            extra={
                "code": match.code,
                "corners": sorted([seat.corner, *(s.corner for s in shared)]),
                "users": sorted([seat.user_id, *(s.user_id for s in shared)]),
            },
        )
