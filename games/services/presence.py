"""Who is connected, the disconnect grace and the computer playing for a player who is away
(docs/rules.md, "Clocks and absent players").

Kept on the seat: ``connected``, ``disconnected_at`` (when its last connection closed) and
``away`` (the computer plays the seat until the player is back). None of it is a change of
the game: no event is appended and ``seq`` stays, so a player's action in flight is never
made stale by someone's tab closing; the room is told with presence events (no ``seq``)
that carry the seat's new flags and the match's deadline, so that a socket can mark its
last snapshot without a read."""

from __future__ import annotations

from functools import partial
from typing import Any

from django.db import transaction

from audit import actions
from audit import services as audit
from games.clocks.timing import scaled
from games.match.devices import seat_agent
from games.match.errors import ServiceError
from games.models import (
    Match,
    Mode,
    Seat,
    Status,
)
from games.services import broadcast
from games.services.change import Change
from games.services.kernel import begin, lock_match, save, save_seats
from games.services.leave import take_out


def _presence_event(kind: str, seat: Seat, change: Change) -> dict[str, Any]:
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


def _presence_save(change: Change, who_plays: list[Seat]) -> None:
    """Save the seats' presence. When the seat to play in an active match changes hands
    (`who_plays`: the computer takes it or gives it back), the whole change is saved, which
    deals its deadline again (a bot's pause, or the player's own clock); otherwise the
    deadline of whoever is playing stays as it was."""
    if any(_plays_now(change, s) for s in who_plays):
        save(change)
        return
    save_seats(change)


def _plays_now(change: Change, seat: Seat) -> bool:
    """Whether `seat` is the one to play in an active match."""
    state, match = change.state, change.match
    playing = match.status == Status.ACTIVE and state is not None and state.phase != "over"
    return playing and state is not None and seat.corner == state.to_play


def seat_back(change: Change, seat: Seat) -> None:
    """The player is back in a seat the computer played for them: clear the mark (the
    caller saves the change, which deals the human's clock again)."""
    change.seat_update(seat, away=False, gone=False)


def _already_connected(match_id: int, user: Any, user_agent: str | bytes | None) -> bool:
    agent = seat_agent(user_agent) if user_agent else None
    seats = list(
        Seat.objects.filter(match_id=match_id, user_id=user.pk).values_list(
            "connected", "away", "disconnected_at", "user_agent"
        )
    )
    return bool(seats) and all(
        connected
        and not away
        and gone_at is None
        and (agent is None or agent["user_agent"] == seen)
        for connected, away, gone_at, seen in seats
    )


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
    socket's address) for dispute timelines; a second tab opening changes nothing.

    A connection to seats already marked connected, from the browser they last saw, is one
    read without a lock or a transaction (a second tab, a socket reopened before its close
    was marked): the caller counts the socket first, so a close marked after this read sees
    the count and marks the seat connected again (`games.live.presence`)."""
    if connected and _already_connected(match_id, user, user_agent):
        return
    with transaction.atomic():
        match = lock_match(match_id)
        change = begin(match)
        seats = [s for s in change.seats if s.user_id == user.pk]
        if not seats:
            raise ServiceError("not_seated", "You have no seat in this match")
        back = False
        events = []
        # Where the turn waits for a disconnected player (mensch), a connection lost or
        # regained deals the deadline of the seat to play again: the turn waits, then the
        # player has the rest of their time back (not a fresh clock to stall with).
        waits = match.rules.on_disconnect == "computer" and match.mode != Mode.LOCAL
        state = change.state
        agent = seat_agent(user_agent) if connected and user_agent else None
        for seat in seats:
            if agent and agent["user_agent"] != seat.user_agent:
                change.seat_update(seat, **agent)  # the latest browser the player sat at
            to_play = (
                match.status == Status.ACTIVE
                and state is not None
                and state.phase != "over"
                and state.to_play == seat.corner
            )
            if connected:
                if seat.connected and not seat.away and seat.disconnected_at is None:
                    continue
                kind = "back" if seat.away else "connected"
                back = back or seat.away
                if waits and to_play and seat.clock_left is not None and not seat.away:
                    change.resume_clock = seat.clock_left
                change.seat_update(
                    seat,
                    connected=True,
                    disconnected_at=None,
                    away=False,
                    gone=False,
                    clock_left=None,
                )
            else:
                if not seat.connected:
                    continue
                kind = "disconnected"
                change.seat_update(seat, connected=False, disconnected_at=change.now)
                deadline = match.turn_deadline
                if waits and to_play and deadline is not None and not seat.away:
                    left = max((deadline - change.now).total_seconds(), 0.0)
                    change.seat_update(seat, clock_left=left)
            events.append((kind, seat))
        _presence_save(change, seats if back or (waits and events) else [])
        for kind, seat in events:
            audit.record(
                action=actions.SEAT_DISCONNECTED
                if kind == "disconnected"
                else actions.SEAT_CONNECTED,
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
    with transaction.atomic():
        match = lock_match(match_id)
        if match.status != Status.ACTIVE or match.mode == Mode.LOCAL:
            return None
        change = begin(match)
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
            take_out(change, seat, reason="disconnected", forfeit=True)
            save(change)
            return "forfeit"
        # "computer" (mensch) and "bot" (party): the computer plays the seat's turns at a
        # bot's pace (`match_timeout`) until the player connects again or acts. Who plays the
        # seat changes, so it is a change of the game: a numbered event (the room and a
        # moderator's timeline see it) and an audit entry, like a bot taking a leaver's seat.
        change.seat_update(seat, away=True, clock_left=None)
        change.event("away", {"corner": seat.corner, "reason": "disconnected"})
        change.audits.append(
            partial(
                audit.record,
                action=actions.SEAT_AWAY,
                actor=seat.user,
                obj=match,
                extra={"corner": seat.corner, "reason": "disconnected"},
            )
        )
        # The clock is dealt again only when it is this seat's turn (a bot's pause now).
        save(change, keep_deadline=not _plays_now(change, seat))
        return "away"
