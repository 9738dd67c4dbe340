"""When a match next needs the server (the one ``turn_deadline`` a change deals): a bot's
step, an auto-move, a human's clock, the pause after a roll no pawn can use, the window to
take a seat back. Durations are the rules' times the settings' scale (`ludo_site.settings`).
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from django.conf import settings

from games.engine import legal_moves
from games.match import selectors
from games.models import Match, Status

if TYPE_CHECKING:
    from games.services.change import Change

# The bots' paces a match may be given (`games.services.options.check_pace` checks the choice).
PACES = {"relaxed": 2.0, "normal": 1.0, "fast": 0.35}

# The clocks a room draws are read with its snapshot (`games.match.selectors`, which composes
# it in one place); the services deal deadlines from the same figures.
CLOCKED_MODES = selectors.CLOCKED_MODES
room_clocks = selectors.room_clocks
turn_seconds = selectors.turn_seconds


def bot_delay(match: Match | None = None) -> float:
    """The pause before a bot's step or an auto-move, so people can follow it: the site's,
    times the pace the match's player chose (practice: relaxed, normal or fast)."""
    pace = (match.options or {}).get("pace") if match is not None else None
    return float(settings.LUDO_BOT_DELAY) * PACES.get(pace or "normal", 1.0)


def pass_pause() -> float:
    """The pause after a roll no pawn can use, before the die passes (the game says so,
    pauses, then passes the die)."""
    return float(settings.LUDO_PASS_PAUSE)


def reclaim_window() -> float:
    """Party: after two missed turns the bot plays on "until you tap the die at the start of
    your turn": the seconds the player has at the start of each turn to take the seat back."""
    return float(settings.LUDO_RECLAIM_SECONDS)


def deadline_of(change: Change) -> datetime | None:
    """When the match next needs the server: a bot's step, an auto-move, or a human's clock."""
    match, state = change.match, change.state
    if match.status != Status.ACTIVE or state is None or state.phase == "over":
        return None
    # After a roll no pawn could use, the next player's time starts when the die passes.
    start = max(change.now, match.pause_until or change.now)
    seat = change.seat_to_play()
    if seat.bot or seat.away:
        # A bot's seat, or a player's the computer plays while they are away (presence).
        return start + timedelta(seconds=bot_delay(match))
    rules = match.rules
    if (
        rules.on_disconnect == "computer"
        and match.mode != "local"
        and not seat.connected
        and seat.disconnected_at is not None
    ):
        # Mensch: "the game waits 45 seconds for them": their turn waits for the grace
        # (`seat_grace_expired` hands the seat to the computer and deals a deadline again).
        return None
    if state.phase == "move" and len(legal_moves(state)) == 1:
        return change.now + timedelta(seconds=bot_delay(match))
    seconds = turn_seconds(match)
    if seconds is None:
        return None
    grace = (match.options or {}).get("grace")
    if grace and not seat.connected and seat.disconnected_at is None:
        # Paired while away (a tournament's next game): the clock of a player who has not
        # opened the room yet starts when the grace is over.
        start = max(start, match.created_at + timedelta(seconds=float(grace)))
    if rules.on_timeout == "bot" and seat.missed_turns >= 2:
        # After two missed turns the bot keeps playing until the player taps the die at the
        # start of their turn: a short window to do so, then the bot plays the turn.
        return start + timedelta(seconds=reclaim_window())
    if change.resume_clock is not None:
        return start + timedelta(seconds=change.resume_clock)
    if change.clock_runs_on and match.turn_deadline is not None and match.turn_deadline > start:
        return match.turn_deadline  # one deadline covers the roll and the move
    return start + timedelta(seconds=seconds)
