"""Reading matches: find one by room code, and the wire snapshot one viewer may see.

The snapshot (docs/wire.md, "The snapshot") is what a client draws: seats, pawns, whose turn, the
die, the dice commitment, the deadline, ``v`` (the match's event seq) and, only for the viewer
whose turn it is, the legal moves. Power stock is shown to its owner only. The server seed is
never in it (it is revealed in the "ended" event and the replay once the match is over).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from typing import Any

from django.conf import settings
from django.utils import translation
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from games.engine import MARKS, Move, Ruleset, State, new_game, rules_name
from games.match import names, rooms
from games.match.errors import ServiceError, said
from games.models import Match, MatchEvent, Mode, Seat, Status

STATUS_NAMES = {
    Status.WAITING: "waiting",
    Status.ACTIVE: "active",
    Status.FINISHED: "finished",
    Status.ABORTED: "aborted",
    Status.VOID: "void",
}
BOT_LABEL = "BOT"


def match_by_code(code: str) -> Match:
    """The match with room code `code`, as someone typed it (`rooms.normalise`)."""
    cleaned = rooms.normalise(str(code))
    match = None if cleaned is None else Match.objects.filter(code=cleaned).first()
    if match is None:
        raise ServiceError(
            "not_found",
            said(gettext_lazy("There is no match with room code %(code)s"), code=repr(code)),
        )
    return match


def ranked_seat_in_play(user: Any, *, besides: Match | None = None) -> Seat | None:
    """The user's seat (with its match) in a ranked match that is waiting or being played and
    that they have not left, other than `besides`: an account plays one at a time."""
    seats = Seat.objects.filter(
        user_id=user.pk,
        left=False,
        match__mode=Mode.RANKED,
        match__status__in=(Status.WAITING, Status.ACTIVE),
    )
    if besides is not None:
        seats = seats.exclude(match=besides)
    return seats.select_related("match").first()


def match_with_seats(match_id: int) -> tuple[Match, list[Seat]] | None:
    """The match and its seats (with their users, by corner) in one query, so both come from
    one snapshot of the database; None when there is no such match."""
    seats = list(
        Seat.objects.filter(match_id=match_id).select_related("match", "user").order_by("corner")
    )
    if not seats:
        match = Match.objects.filter(pk=match_id).first()
        return None if match is None else (match, [])
    match = seats[0].match
    for seat in seats:
        seat.match = match  # one Match object, not one per seat
    return match, seats


# Events only their own player may see while the match is played: what a player picks up is
# their Power stock, hidden from the others and from spectators (docs/rules.md, "Power").
PRIVATE_KINDS = frozenset({"bonus_picked"})


def visible_events(
    events: Iterable[dict[str, Any]], *, mine: Collection[int], ended: bool = False
) -> list[dict[str, Any]]:
    """`events` (wire dicts) as a viewer seated in corners `mine` may see them: another
    seat's private events are left out until the match has `ended`."""
    if ended:
        return list(events)
    return [e for e in events if e.get("kind") not in PRIVATE_KINDS or e.get("corner") in mine]


def latest_events(match: Match, n: int = 80, *, mine: Collection[int] = ()) -> list[dict[str, Any]]:
    """The match's last `n` events as the viewer seated in corners `mine` gets them (the
    room's history after a reload), oldest first."""
    latest = MatchEvent.objects.filter(match=match).order_by("-seq")[:n]
    return visible_events((e.as_wire() for e in reversed(latest)), mine=mine, ended=match.ended)


# Bots have names of their own, one per corner, so that three bots in a room are three
# players; each is still labelled BOT with its level.
BOT_NAMES = ("Robin", "Sasha", "Kai", "Noor")


def seat_name(seat: Seat, match: Match) -> str:
    if seat.bot:
        return f"{BOT_NAMES[seat.corner % 4]}, {seat.bot} bot"
    colour = match.rules.colours[seat.corner].capitalize()
    if match.mode == "local" or seat.user is None:
        return local_name(seat, match) or colour
    return str(seat.user.name_as_given)  # the wire's, the same for every reader


def seat_label(seat: Seat, match: Match) -> str:
    """`seat_name` in the reader's language, for the pages (the wire keeps `seat_name`,
    which is also what English reads: "Kai, medium bot")."""
    if seat.bot and (translation.get_language() or "en") != "en":
        return _("%(name)s, %(level)s bot") % {
            "name": BOT_NAMES[seat.corner % 4],
            "level": names.level(seat.bot),
        }
    if seat.bot:
        return seat_name(seat, match)
    if match.mode == "local" or seat.user is None:
        return local_name(seat, match) or names.colour(match.rules.colours[seat.corner])
    return str(seat.user.shown_name)


def local_name(seat: Seat, match: Match) -> str:
    """The name a one-device game's setup gave this seat's person ("" when none was)."""
    if match.mode != "local":
        return ""
    return str(((match.options or {}).get("names") or {}).get(str(seat.corner), ""))


def _legal(move: Move) -> dict[str, Any]:
    return {
        "pawn": move.pawn,
        "corner": move.corner,
        "from": move.frm,
        "to": move.to,
        "square": move.square,
        "captures": [list(c) for c in move.captures],
        "safe": move.safe,
        "home": move.home,
        "bonus": move.bonus,
    }


def snapshot_for(
    match: Match,
    viewer_user: Any = None,
    viewer_corner: int | None = None,
    *,
    seats: Iterable[Seat] | None = None,
    state: State | None = None,
) -> dict[str, Any]:
    """What `viewer_user` (or the seat at `viewer_corner`; nobody: a spectator) may see."""
    seat_list = (
        list(seats)
        if seats is not None
        else list(Seat.objects.filter(match=match).select_related("user").order_by("corner"))
    )
    if state is None:
        state = match.state()
    public, private = snapshot_parts(match, seats=seat_list, state=state)
    if viewer_corner is None and viewer_user is not None and getattr(viewer_user, "pk", None):
        viewer_corner = viewer_of(
            public, [s.corner for s in seat_list if s.user_id == viewer_user.pk]
        )
    return view_of(public, private, viewer_corner)


# Modes where a human's turn runs against the clock (practice and local play wait).
CLOCKED_MODES = frozenset({"ranked", "friendly"})


def room_clocks(match: Match) -> dict[str, float | None]:
    """The clocks a room draws, on this site's clock (``LUDO_TIME_SCALE``): a person's time
    per step (``turn_seconds``) and a disconnected player's time to come back
    (``grace_seconds``); None where there is none (practice and local play)."""
    rules = match.rules
    grace = None
    if match.mode != "local" and rules.on_disconnect != "none" and rules.disconnect_seconds:
        grace = float(rules.disconnect_seconds) * float(settings.LUDO_TIME_SCALE)
    return {"turn_seconds": turn_seconds(match), "grace_seconds": grace}


def turn_seconds(match: Match) -> float | None:
    """A human's time per step in this match, or None when the match has no clock."""
    rules = match.rules
    if match.mode not in CLOCKED_MODES or not rules.turn_seconds or rules.on_timeout == "none":
        return None
    return rules.turn_seconds * float(settings.LUDO_TIME_SCALE)


def room_snapshot(
    match: Match,
    *,
    seats: Iterable[Seat] | None = None,
    viewer_user: Any = None,
    viewer_corner: int | None = None,
    watchers: int = 0,
) -> dict[str, Any]:
    """The snapshot a room's viewer is sent, composed here only: the match as `snapshot_for`
    gives it (its clocks included) and how many watch the room (`watchers`, counted by the
    live edge). The socket's ``state`` frames and the API's ``GET /api/matches/<code>`` are
    this."""
    snap = snapshot_for(match, viewer_user, viewer_corner, seats=seats)
    snap["watchers"] = watchers
    return snap


def snapshot_parts(
    match: Match, *, seats: list[Seat], state: State | None
) -> tuple[dict[str, Any], dict[str, Any]]:
    """A match's snapshot in two parts, built once for every viewer of one change: the public
    part (a spectator's snapshot) and the private part (the legal moves, for the seat to play;
    each Power seat's stock), which `view_of` hands out viewer by viewer. The private part
    never leaves the server whole."""
    rules = match.rules
    shown = state if state is not None else new_game(rules, match.players, first=0)
    by_corner = {s.corner: s for s in seats}
    playing = state is not None and state.phase != "over"
    public: dict[str, Any] = {
        "code": match.code,
        "ruleset": match.ruleset,
        "rules": rules_name(rules),
        "mode": match.mode,
        "status": STATUS_NAMES.get(Status(match.status), str(match.status)),
        "v": match.seq,
        "turn": match.turn_seq,
        "seats": [
            _seat_row(match, corner, by_corner.get(corner))
            for corner in rules.seats_for(match.players)
        ],
        "pawns": [list(row) for row in shown.pawns],
        "to_play": state.to_play if playing and state is not None else None,
        "phase": shown.phase if state is not None else "waiting",
        "die": shown.die,
        "face": shown.face,
        "sixes": shown.sixes,
        "tries": shown.tries,
        "placings": list(shown.placings),
        "out": list(shown.out),
        "winner": shown.winner,
        "deadline": match.turn_deadline.isoformat() if match.turn_deadline else None,
        # Party: the player to play missed two turns: the bot plays their turn unless they
        # tap the die in the window at its start (the deadline).
        "reclaim": bool(
            playing
            and state is not None
            and state.phase == "roll"
            and rules.on_timeout == "bot"
            and match.mode in ("friendly", "ranked")
            and (seat_to_play := by_corner.get(state.to_play)) is not None
            and not seat_to_play.bot
            and not seat_to_play.away
            and seat_to_play.missed_turns >= 2
        ),
        # After a roll no pawn could use, the die passes on at this time.
        "pause_until": match.pause_until.isoformat() if match.pause_until else None,
        "commitment": match.commitment,
        "legal": [],
        "board": _board(rules),
        # The room's clocks (a person's time per step, a disconnected player's grace).
        **room_clocks(match),
    }
    private: dict[str, Any] = {}
    if playing and state is not None and state.phase == "move":
        private["legal"] = [_legal(m) for m in state.legal]
    if rules.power:
        public["stock"] = None
        public["picked"] = sorted(shown.picked)
        public["shields"] = [list(s) for s in sorted(shown.shields)]
        public["bonus"] = shown.bonus
        private["stock"] = [list(stock) for stock in shown.stock]
    return public, private


def view_of(public: dict[str, Any], private: dict[str, Any], viewer: int | None) -> dict[str, Any]:
    """The snapshot the seat at corner `viewer` (None: a spectator) may see, from one change's
    `snapshot_parts`: its own seat marked, the legal moves when it is to play, its own stock."""
    if viewer is None:
        return {**public, "seats": [dict(seat) for seat in public["seats"]]}
    snap = {
        **public,
        "seats": [{**seat, "you": seat["corner"] == viewer} for seat in public["seats"]],
    }
    if viewer == public["to_play"] and "legal" in private:
        snap["legal"] = private["legal"]
    if "stock" in private:
        stock = private["stock"]
        snap["stock"] = list(stock[viewer]) if 0 <= viewer < len(stock) else []
    return snap


def viewer_of(public: dict[str, Any], corners: Collection[int]) -> int | None:
    """Whose view a viewer seated in `corners` gets: the seat to play if it is one of them
    (local play: one device holds several seats), else their first; None for a spectator."""
    if not corners:
        return None
    if public.get("to_play") in corners:
        return int(public["to_play"])
    return min(corners)


def _seat_row(match: Match, corner: int, seat: Seat | None) -> dict[str, Any]:
    colour = match.rules.colours[corner]
    return {
        "corner": corner,
        "colour": colour,
        "mark": MARKS[colour],
        "taken": seat is not None,
        "name": seat_name(seat, match) if seat is not None else None,
        "bot": bool(seat and seat.bot),
        "label": BOT_LABEL if seat is not None and seat.bot else None,
        "you": False,  # the viewer's own seat: `view_of`
        "connected": bool(seat and seat.connected),
        # The computer plays this player's seat until they are back (mensch, party).
        "away": bool(seat and seat.away),
        "missed_turns": seat.missed_turns if seat is not None else 0,
        "place": seat.place if seat is not None else None,
        "left": bool(seat and seat.left),
        "level": seat.bot if seat is not None and seat.bot else None,
        # A bot's own name ("Kai"): with `level`, a page says "Kai, medium bot" in its language.
        "bot_name": BOT_NAMES[seat.corner % 4] if seat is not None and seat.bot else None,
        # A guest's tag ("1A2B") while they keep the name given them: "Guest 1A2B" in the
        # page's language.
        "guest_tag": seat.user.guest_tag
        if seat is not None and seat.user is not None and match.mode != "local"
        else None,
        # When the seat's last connection closed: the room counts the grace down.
        "disconnected_at": seat.disconnected_at.isoformat()
        if seat is not None and seat.disconnected_at
        else None,
        # Ranked: the seat's rating change once the match is rated.
        "rating_change": seat.rating_change if seat is not None else None,
    }


def _board(rules: Ruleset) -> dict[str, Any]:
    """The board's geometry, for the browser to draw (the same for every viewer)."""
    return {
        "track_len": rules.track_len,
        "quarter": rules.quarter,
        "last_track": rules.last_track,
        "goal": rules.goal,
        "safe": sorted(rules.safe),
        "bonus": {str(s): kind for s, kind in sorted(rules.board.bonus.items())},
    }


# ---------------------------------------------------------------------------- your games

MODE_WORDS = {
    "ranked": gettext_lazy("Ranked"),
    "friendly": gettext_lazy("Room with friends"),
    "practice": gettext_lazy("Against the computer"),
    "local": gettext_lazy("One device"),
}
YOUR_GAMES_SHOWN = 20


def unfinished_games(user: Any) -> list[dict[str, Any]]:
    """The matches waiting or being played in which `user` (an account, or this browser's
    guest) holds a seat they have not left, newest first: what "Your games" lists so that a
    player who closed the tab can continue (seeds 001, 002, 003)."""
    if user is None or not getattr(user, "is_authenticated", False):
        return []
    matches = list(
        Match.objects.filter(
            seats__user=user,
            seats__left=False,
            status__in=(Status.WAITING, Status.ACTIVE),
        )
        .distinct()
        .order_by("-created_at", "-pk")[:YOUR_GAMES_SHOWN]
    )
    seats = Seat.objects.filter(match__in=matches).select_related("user").order_by("corner")
    by_match: dict[int, list[Seat]] = {}
    for seat in seats:
        by_match.setdefault(seat.match_id, []).append(seat)
    games = []
    for match in matches:
        rules = match.rules
        mine = [s for s in by_match.get(match.pk, []) if s.user_id == user.pk]
        others = [
            seat_label(s, match)
            for s in by_match.get(match.pk, [])
            if s.user_id != user.pk and match.mode != "local"
        ]
        state = match.state()
        your_turn = (
            match.status == Status.ACTIVE
            and state is not None
            and state.phase != "over"
            and any(s.corner == state.to_play for s in mine)
        )
        games.append(
            {
                "code": match.code,
                "rules": names.preset(rules.name),
                "mode": str(MODE_WORDS.get(match.mode, match.mode)),
                "colours": [names.colour(rules.colours[s.corner]) for s in mine],
                "against": others,
                "waiting": match.status == Status.WAITING,
                "your_turn": your_turn,
            }
        )
    return games
