"""The pages people see: home, the rules, a room, a local game, a replay. Thin: they read
through `games.match.selectors` and write only by calling `games.services`.
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.safestring import mark_safe
from django.views.decorators.http import require_GET, require_POST

from accounts.addresses import client_ip
from accounts.forms import TERMS_VERSION
from accounts.models import is_guest
from accounts.views import player_for
from disputes.services import window_days
from games import services
from games.engine import RULESETS, Ruleset
from games.live import watchers
from games.match import rooms, selectors
from games.match.errors import ServiceError
from games.match.replay import initial_state, load_actions, steps, undo_point, withdrawn
from games.match.selectors import latest_events, match_by_code, snapshot_for
from games.models import Match, MatchEvent
from games.services import reactions
from games.services.deadlines import room_clocks
from games.services.rematch import REMATCH_MODES
from games.web import ladder
from games.web.guides import guides, page_data
from games.web.rules_page import board_config, examples, narrate, position
from ranked.models import Entry, Queue
from ranked.ratings import queue_of

# The presets in the order the site shows them, with what sets each apart.
PRESETS = [
    ("classic", "Classic", "Land on an opponent and every pawn of theirs there goes home."),
    ("family", "Family", "Only a lone pawn can be captured; two or more share the square."),
    ("duel", "Duel", "Two players head to head; even a pair can be captured."),
    ("mensch", "Mensch", "Mensch ärgere dich nicht on 40 squares: no safe squares."),
    ("party", "Party", "Plays on until one is left; Pairs and Power squares on request."),
]


def _levels() -> list[tuple[str, str]]:
    """The bot levels the services seat, as (key, text): weakest first, each with how it
    plays and its measured strength (games.web.ladder)."""
    return ladder.levels()


def _default_level() -> str:
    return str(services.DEFAULT_BOT_LEVEL)


# Seed 003: on one device, the computer seats are "a beginner computer" unless chosen otherwise.
LOCAL_BOT_LEVEL = "beginner"


HOUSE_RULES = [
    ("compulsory_capture", "Capturing is compulsory"),
    ("optional_bring_out", "Bringing out is optional"),
    ("no_jump_home_column", "No jumping in the home column"),
]


PARTY_OPTIONS = [
    ("pairs", "Pairs: partners across the board (4 players)"),
    ("power", "Power squares: bonuses to collect and use"),
]


def _variant(request: HttpRequest, ruleset: str) -> dict[str, list[str]]:
    """The house rules and (party only) options ticked on a create form."""
    chosen = {
        "house_rules": [k for k, _ in HOUSE_RULES if request.POST.get(k)],
        "options": [k for k, _ in PARTY_OPTIONS if request.POST.get(k)],
    }
    if ruleset != "party":
        chosen["options"] = []  # the form says party only; other presets have none
    return chosen


def _choice(value: str | None, allowed: list[tuple[str, str]], default: str) -> str:
    return value if value in {k for k, _ in allowed} else default


def _players(value: str | None, low: int = 2) -> int:
    try:
        n = int(value or 0)
    except ValueError:
        return 4
    return n if low <= n <= 4 else 4


# ---------------------------------------------------------------------------- static pages


@require_GET
def home(request: HttpRequest) -> HttpResponse:
    return _home(request)


def _home(request: HttpRequest, **extra: Any) -> HttpResponse:
    return render(
        request,
        "home.html",
        {
            **extra,
            "presets": PRESETS,
            "levels": ladder.choices(),
            "default_level": _default_level(),
            "default_level_about": ladder.level_text(_default_level()),
            "house_rules": HOUSE_RULES,
            "party_options": PARTY_OPTIONS,
            "guest": is_guest(request.user),
            "preview": board_config(RULESETS["classic"]),
            "your_games": selectors.unfinished_games(request.user),
        },
    )


def _facts(rules: Ruleset) -> list[tuple[str, str]]:
    """A preset's rules as short lines, read from its Ruleset (what the engine plays)."""
    safe = (
        "the four start squares and the four stars"
        if rules.safe
        else "none: a pawn can be captured anywhere on the track"
    )
    capture = {
        "all": "every opponent pawn on the square goes back to its yard",
        "lone": "only a lone opponent pawn goes back; two or more stay, and do not block",
        "count": "every opponent with no more pawns there than you goes back; "
        "with fewer you share the square",
    }[rules.capture]
    extra = ["a six"]
    if rules.extra_roll_on_capture:
        extra.append("a capture")
    if rules.extra_roll_on_home:
        extra.append("a pawn reaching home")
    third = (
        f"six number {rules.max_sixes} in a row is forfeited and the turn passes"
        if rules.max_sixes
        else "no limit"
    )
    column = rules.goal - rules.last_track - (1 if rules.track_len == 52 else 0)
    facts = [
        (
            "Players",
            f"{rules.min_players}" + (f" to {rules.max_players}" if rules.max_players > 2 else ""),
        ),
        (
            "Board",
            f"{rules.track_len} track squares, a home column of {column}"
            + (", then home" if rules.track_len == 52 else ""),
        ),
        ("Safe squares", safe),
        ("Landing on a rival", capture),
        ("Own pawns", "may share a square" if rules.land_on_own else "never share a square"),
        (
            "Roll again for",
            ", ".join(extra) + (" (several reasons: one extra roll)" if len(extra) > 1 else ""),
        ),
        ("Sixes in a row", third),
        (
            "No pawn out",
            f"{rules.tries_without_pawn_out} tries for a six"
            if rules.tries_without_pawn_out > 1
            else "one roll",
        ),
        (
            "A six no pawn can use",
            "you roll again" if rules.unusable_six_rolls_again else "is lost, with no roll again",
        ),
        (
            "Bringing out",
            "compulsory when a pawn waits (clear the start square first)"
            if rules.must_bring_out
            else "optional",
        ),
        (
            "The end",
            "the first with every pawn home wins"
            if rules.ending == "first"
            else "play goes on until one is left, who loses",
        ),
        (
            "Who starts",
            # Seed 001: in code rooms "who goes first is drawn at random" (Match.draws_first).
            (
                "Red on one device and against the computer; drawn with the dice in online rooms"
                if rules.name == "mensch"
                else "red"
            )
            if rules.first_player == "red"
            else "drawn at random with the dice",
        ),
        (
            "Turn clock",
            f"{rules.turn_seconds} seconds" if rules.turn_seconds else "none (one device)",
        ),
    ]
    return facts


@require_GET
def terms(request: HttpRequest) -> HttpResponse:
    """The Terms of Service and fair play rules (seed 002), accepted at sign-up."""
    return render(request, "terms.html", {"version": TERMS_VERSION, "dispute_days": window_days()})


@require_GET
def guide(request: HttpRequest, slug: str) -> HttpResponse:
    """One of the duel guides (seed 004), its boards played through the engine."""
    found = guides().get(slug)
    if found is None:
        raise Http404("There is no such guide")
    others = [g for g in guides().values() if g.slug != slug]
    return render(
        request,
        "games/guide.html",
        {"guide": found, "data": page_data(found), "others": others},
    )


@require_GET
def rules(request: HttpRequest) -> HttpResponse:
    presets = []
    for name, title, lead in PRESETS:
        r = RULESETS[name]
        presets.append(
            {
                "name": name,
                "title": title,
                "lead": lead,
                "facts": _facts(r),
                "examples": [
                    {
                        "title": ex.title,
                        "board": board_config(ex.rules or r),
                        "frames": [
                            {"title": f.title, "words": f.words, "snapshot": f.snapshot}
                            for f in ex.frames
                        ],
                    }
                    for ex in examples(name)
                ],
            }
        )
    data = {
        p["name"]: [
            {"board": ex["board"], "frames": [f["snapshot"] for f in ex["frames"]]}
            for ex in p["examples"]
        ]
        for p in presets
    }
    return render(request, "games/rules.html", {"presets": presets, "data": data})


# ---------------------------------------------------------------------------- starting games


def _create(request: HttpRequest, **kwargs: Any) -> HttpResponse:
    try:
        host = player_for(request)
        match = services.match_create(
            host=host,
            ip=client_ip(request),
            user_agent=request.META.get("HTTP_USER_AGENT", ""),
            **kwargs,
        )
    except ServiceError as e:
        messages.error(request, e.message)
        return redirect("home")
    return redirect("room", code=match.code)


@require_POST
def play_computer(request: HttpRequest) -> HttpResponse:
    """Practice against bots, now: the person takes Red, bots take the other seats."""
    ruleset = _choice(request.POST.get("ruleset"), [(k, k) for k, _, _ in PRESETS], "classic")
    players = 2 if ruleset == "duel" else _players(request.POST.get("players"))
    level = _choice(request.POST.get("level"), _levels(), _default_level())
    corners = RULESETS[ruleset].seats_for(players)
    return _create(
        request,
        ruleset=ruleset,
        players=players,
        mode="practice",
        bots={c: level for c in corners[1:]},
        **_variant(request, ruleset),
    )


@require_POST
def play_friends(request: HttpRequest) -> HttpResponse:
    """A friend room: the host takes the first seat, friends join with the code."""
    ruleset = _choice(request.POST.get("ruleset"), [(k, k) for k, _, _ in PRESETS], "classic")
    players = 2 if ruleset == "duel" else _players(request.POST.get("players"))
    return _create(
        request, ruleset=ruleset, players=players, mode="friendly", **_variant(request, ruleset)
    )


def play_local(request: HttpRequest) -> HttpResponse:
    """One device, 2-4 seats, each a person or a computer; at least one person."""
    if request.method != "POST":
        return render(
            request,
            "games/local.html",
            {
                "presets": PRESETS,
                "levels": _levels(),
                "default_level": LOCAL_BOT_LEVEL,
                "corners": _local_corners(),
                "house_rules": HOUSE_RULES,
                "party_options": PARTY_OPTIONS,
            },
        )
    ruleset = _choice(request.POST.get("ruleset"), [(k, k) for k, _, _ in PRESETS], "family")
    players = 2 if ruleset == "duel" else _players(request.POST.get("players"))
    corners = RULESETS[ruleset].seats_for(players)
    bots = {}
    for c in corners:
        who = request.POST.get(f"seat{c}", "person")
        if who != "person":
            bots[c] = _choice(who, _levels(), LOCAL_BOT_LEVEL)
    return _create(
        request,
        ruleset=ruleset,
        players=players,
        mode="local",
        bots=bots,
        **_variant(request, ruleset),
    )


def _local_corners() -> list[dict[str, Any]]:
    return [{"corner": c, "colour": RULESETS["family"].colours[c]} for c in range(4)]


@require_GET
def join(request: HttpRequest) -> HttpResponse:
    """Join by code: the room page for the code typed, or back home saying what is wrong."""
    typed = request.GET.get("code", "")
    code = rooms.normalise(typed)
    if code is None:
        error = "A room code is six letters and digits, like KMN-479."
    elif not Match.objects.filter(code=code).exists():
        error = f"There is no room with the code {typed.strip()[:12]}: check it with your friend."
    else:
        return redirect("room", code=code)
    # Answered on the form itself, beside the field.
    return _home(request, join_error=error, join_code=typed[:12])


# ---------------------------------------------------------------------------- a room


def _match(code: str) -> Any:
    try:
        return match_by_code(code)
    except ServiceError as e:
        raise Http404(e.message) from None


def room(request: HttpRequest, code: str) -> HttpResponse:
    """The room: the board, the seats and the controls; the socket does the rest."""
    match = _match(code)
    if match.code != code:
        return redirect("room", code=match.code)
    user = request.user if request.user.is_authenticated else None
    seats = list(match.seats.select_related("user").order_by("corner"))  # read once
    snapshot = snapshot_for(match, viewer_user=user, seats=seats)
    snapshot.update(room_clocks(match))  # as the socket's snapshots carry them
    mine = [s.corner for s in seats if user is not None and s.user_id == user.pk]
    join_url = request.build_absolute_uri(rooms.join_path(match.code))
    config = {
        "code": match.code,
        "ws": f"/ws/match/{match.code}/",
        "api": f"/api/matches/{match.code}",
        "replay": reverse("replay", args=[match.code]),
        "mode": match.mode,
        "mine": mine,
        "board": board_config(match.rules),
        "snapshot": snapshot,
    }
    # The room's history survives a reload: the latest events, oldest first.
    config["history"] = latest_events(match, mine=mine)
    config.update(_room_extras(match, seats, user, snapshot))
    if match.mode == "local" and snapshot["status"] == "active":
        # A reloaded page knows at once whether there is anything to take back.
        people = {s.corner for s in seats if not s.bot}
        config["undo_empty"] = undo_point(match, people) is None
    return render(
        request,
        "games/room.html",
        {
            "match": match,
            "config": config,
            "snapshot": snapshot,
            "mine": mine,
            "spoken": rooms.spoken(match.code),
            "join_url": join_url,
            # Inline: segno's SVG has no xmlns, so it cannot be an <img> source.
            "qr": mark_safe(rooms.qr_svg(join_url)) if snapshot["status"] == "waiting" else "",
            # A ranked room seats only the players quick match paired (no dead Join button).
            "can_join": snapshot["status"] == "waiting"
            and not mine
            and (
                match.mode != "ranked"
                or (user is not None and user.pk in match.options.get("paired", ()))
            ),
            # A visitor with no seat in a friends' room with a free seat sits down at once.
            "auto_join": snapshot["status"] == "waiting"
            and not mine
            and match.mode == "friendly"
            and len(seats) < match.players,
            "can_start": snapshot["status"] == "waiting"
            and user is not None
            and match.host_id == user.pk
            and match.mode != "ranked",
            "levels": _levels(),
            "default_level": _default_level(),
            "local_seats": _local_seats(match, seats, snapshot) if match.mode == "local" else [],
            "local_level": LOCAL_BOT_LEVEL,
        },
    )


def _room_extras(
    match: Any, seats: list[Any], user: Any, snapshot: dict[str, Any]
) -> dict[str, Any]:
    """What the room's page needs beyond the snapshot: the reactions on offer, the spectator
    count, where "again" leads, and whether another person played (a dispute makes sense)."""
    others = any(
        s.user_id is not None and not s.bot and (user is None or s.user_id != user.pk)
        for s in seats
    )
    quick = match.mode == "friendly" and Entry.objects.filter(match=match).exists()
    again = None
    if match.mode == "ranked":
        again = reverse("play-ranked")
    elif quick:
        again = reverse("play-quick")
    return {
        "reactions": reactions.CHOICES if match.mode in reactions.ONLINE else {},
        "watchers": watchers.count(match.pk),
        "others_played": others and match.mode != "local",
        "queue": queue_of(match),
        "queue_label": str(Queue(queue_of(match)).label) if queue_of(match) else None,
        "again": again,
        "rematch": reverse("room-rematch", args=[match.code])
        if match.mode in REMATCH_MODES and not quick
        else None,
        "rematch_code": services.rematch_code(match) if snapshot["status"] == "finished" else None,
        "home": reverse("home"),
        "replay_url": reverse("replay", args=[match.code]),
        "report": reverse("disputes:open", args=[match.code]),
    }


def _local_seats(match: Any, seats: list[Any], snapshot: dict[str, Any]) -> list[dict[str, Any]]:
    """One device: each seat still playing, as the switch under the board shows it."""
    if snapshot["status"] not in ("waiting", "active"):
        return []
    colours = match.rules.colours
    return [
        {"corner": s.corner, "colour": colours[s.corner].capitalize(), "bot": s.bot or ""}
        for s in seats
        if not s.left
    ]


@require_POST
def room_join(request: HttpRequest, code: str) -> HttpResponse:
    match = _match(code)
    try:
        services.match_join(
            code=match.code,
            user=player_for(request),
            ip=client_ip(request),
            user_agent=request.META.get("HTTP_USER_AGENT", ""),
        )
    except ServiceError as e:
        messages.error(request, e.message)
    return redirect("room", code=match.code)


@require_POST
def room_seat(request: HttpRequest, code: str) -> HttpResponse:
    """One device: switch a seat between a person and a computer during the game."""
    match = _match(code)
    who = request.POST.get("who", "person")
    bot = None if who == "person" else _choice(who, _levels(), LOCAL_BOT_LEVEL)
    try:
        corner = int(request.POST.get("corner", ""))
        services.match_set_seat(
            match_id=match.pk,
            user=request.user if request.user.is_authenticated else None,
            corner=corner,
            bot=bot,
        )
    except ValueError:
        messages.error(request, "Say which seat to switch.")
    except ServiceError as e:
        messages.error(request, e.message)
    return redirect("room", code=match.code)


@require_POST
def room_start_over(request: HttpRequest, code: str) -> HttpResponse:
    """One device: the same seats in a fresh game."""
    match = _match(code)
    try:
        fresh = services.match_start_over(
            match_id=match.pk,
            user=request.user if request.user.is_authenticated else None,
            ip=client_ip(request),
        )
    except ServiceError as e:
        messages.error(request, e.message)
        return redirect("room", code=match.code)
    return redirect("room", code=fresh.code)


@require_POST
def room_start(request: HttpRequest, code: str) -> HttpResponse:
    """The host starts a waiting friend room, bots taking the empty seats."""
    match = _match(code)
    if not request.user.is_authenticated or match.host_id != request.user.pk:
        messages.error(request, "Only the host can start the match.")
        return redirect("room", code=match.code)
    level = _choice(request.POST.get("level"), _levels(), _default_level())
    try:
        services.match_start(match_id=match.pk, bots_for_empty=level)
    except ServiceError as e:
        messages.error(request, e.message)
    return redirect("room", code=match.code)


@require_POST
def room_rematch(request: HttpRequest, code: str) -> HttpResponse:
    """Rematch: the same players and bots in a new room (the first to ask opens it)."""
    match = _match(code)
    if not request.user.is_authenticated:
        messages.error(request, "Only the match's players ask for a rematch.")
        return redirect("room", code=match.code)
    try:
        new = services.match_rematch(match_id=match.pk, user=request.user, ip=client_ip(request))
    except ServiceError as e:
        messages.error(request, e.message)
        return redirect("room", code=match.code)
    return redirect("room", code=new.code)


@require_GET
def replay(request: HttpRequest, code: str) -> HttpResponse:
    """A finished match turn by turn, with its events and the dice proof."""
    match = _match(code)
    rules = match.rules
    context: dict[str, Any] = {"match": match, "ended": match.ended}
    start = initial_state(match) if match.ended else None
    if start is None:
        return render(request, "games/replay.html", context)
    frames = [{"turn": 1, "title": "The start", "words": [], "position": position(start)}]
    rolls = []
    actions = load_actions(match)
    gone = withdrawn(actions)  # local games: what an undo took back
    for step in steps(match, actions, start=start):
        row = step.action.row
        said = [narrate(rules, e) for e in step.events]
        if step.action.kind == "undo":
            said = [f"Undo: back to {rules.colours[step.state.to_play].capitalize()}'s turn"]
        if said and step.action.seq in gone:
            said[0] += " (taken back)"
        frames.append(
            {
                "turn": step.turn,
                # The turn the action was played in (a passing move's `turn` is the next).
                "in": getattr(row, "turn", None) or frames[-1]["turn"],
                "seq": step.action.seq,
                "title": said[0] if said else step.action.kind,
                "words": said,
                "by": getattr(row, "by", ""),
                "position": position(step.state),
            }
        )
        if step.action.kind == "roll":
            rolls.append(
                {
                    "n": row.n,
                    # The dice number its face comes from: n, or the withdrawn roll's that it
                    # replays after an undo (local play).
                    "die": row.dice_number,
                    "face": row.face,
                    "corner": row.corner,
                    "chosen": row.bonus == "control",
                    "frame": len(frames) - 1,
                }
            )
    _reactions_into(match, frames)
    seats = {s.corner: s for s in match.seats.select_related("user")}
    context["config"] = {
        "board": board_config(rules),
        "frames": frames,
        "seats": [
            {
                "corner": c,
                "colour": rules.colours[c],
                "name": _seat_label(seats.get(c), rules.colours[c]),
            }
            for c in rules.seats_for(match.players)
        ],
        "proof": {
            "commitment": match.commitment,
            "server_seed": match.server_seed,
            "client_seed": match.client_seed,
            "rolls": rolls,
        },
    }
    return render(request, "games/replay.html", context)


def _reactions_into(match: Any, frames: list[dict[str, Any]]) -> None:
    """The room's reactions, each in the words of the replay step it followed."""
    said = MatchEvent.objects.filter(match=match, kind=reactions.KIND).order_by("seq")
    for e in said:
        at = 0
        for i, f in enumerate(frames):
            if f.get("seq", 0) < e.seq:
                at = i
        colour = match.rules.colours[int(e.data["corner"])].capitalize()
        frames[at]["words"].append(
            f"{colour} reacts: {reactions.CHOICES.get(e.data['r'], e.data['r'])}"
        )


def _seat_label(seat: Any, colour: str) -> str:
    if seat is None:
        return colour.capitalize()
    if seat.bot:
        return f"{colour.capitalize()}: {seat.bot} computer (BOT)"
    if seat.user is not None and seat.match.mode != "local":
        return f"{colour.capitalize()}: {seat.user.shown_name}"
    return colour.capitalize()
