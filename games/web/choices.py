"""The choices the pages' forms offer and read back: the presets, the computer levels, the
house rules and party options, and the helpers that turn a posted form into a service's
arguments (anything unknown falls back to a default)."""

from __future__ import annotations

from django.http import HttpRequest
from django.utils.translation import gettext_lazy as _

from games import services
from games.match import names
from games.web import ladder

# The presets in the order the site shows them, with what sets each apart.
PRESETS = [
    (
        "classic",
        names.PRESETS["classic"],
        _("Land on an opponent and every pawn of theirs there goes home."),
    ),
    (
        "family",
        names.PRESETS["family"],
        _("Only a lone pawn can be captured; two or more share the square."),
    ),
    ("duel", names.PRESETS["duel"], _("Two players head to head; even a pair can be captured.")),
    (
        "mensch",
        names.PRESETS["mensch"],
        _("Mensch ärgere dich nicht on 40 squares: no safe squares."),
    ),
    (
        "quick",
        names.PRESETS["quick"],
        _("Two pawns start out, a 1 or a 6 brings one more: the first pawn home wins."),
    ),
    (
        "party",
        names.PRESETS["party"],
        _("Plays on until one is left; Pairs and Power squares on request."),
    ),
]


def levels() -> list[tuple[str, str]]:
    """The bot levels the services seat, as (key, text): weakest first, each with how it
    plays and its measured strength (games.web.ladder)."""
    return ladder.levels()


def default_level() -> str:
    """The level the home page and a room's start form pick unless told otherwise."""
    return str(services.DEFAULT_BOT_LEVEL)


# On one device, the computer seats are "a beginner computer" unless chosen otherwise.
LOCAL_BOT_LEVEL = "beginner"


HOUSE_RULES = [
    ("compulsory_capture", _("Capturing is compulsory")),
    ("optional_bring_out", _("Bringing out is optional")),
    ("no_jump_home_column", _("No jumping in the home column")),
    ("play_on", _("Play on for 2nd and 3rd place (3 or 4 players)")),
]


PARTY_OPTIONS = [
    ("pairs", _("Pairs: partners across the board (4 players)")),
    ("power", _("Power squares: bonuses to collect and use")),
]


# The bots' pace (`games.services.deadlines.PACES`): the player's choice is kept in their
# session and offered again.
PACES = [
    ("relaxed", _("Relaxed")),
    ("normal", _("Normal")),
    ("fast", _("Fast")),
]
PACE_KEY = "ludo_pace"


def pace_of(request: HttpRequest) -> str:
    """The pace a form chose (remembered for the next game), else the remembered one."""
    chosen = request.POST.get("pace")
    if chosen in {k for k, _ in PACES}:
        request.session[PACE_KEY] = chosen
        return str(chosen)
    return remembered_pace(request)


def remembered_pace(request: HttpRequest) -> str:
    kept = request.session.get(PACE_KEY) if hasattr(request, "session") else None
    return kept if kept in {k for k, _ in PACES} else "normal"


def variant(request: HttpRequest, ruleset: str) -> dict[str, list[str]]:
    """The house rules and (party only) options ticked on a create form."""
    chosen = {
        "house_rules": [k for k, _ in HOUSE_RULES if request.POST.get(k)],
        "options": [k for k, _ in PARTY_OPTIONS if request.POST.get(k)],
    }
    if ruleset != "party":
        chosen["options"] = []  # the form says party only; other presets have none
    return chosen


def choice(value: str | None, allowed: list[tuple[str, str]], default: str) -> str:
    """`value` if it is one of the `allowed` keys, else `default`."""
    return value if value in {k for k, _ in allowed} else default


def players_of(value: str | None, low: int = 2) -> int:
    """The number of players a form asked for: `low` to 4, else 4."""
    try:
        n = int(value or 0)
    except ValueError:
        return 4
    return n if low <= n <= 4 else 4
