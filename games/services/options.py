"""The options of a new match checked: its rule set and house rules, the party options, the
bots' levels and pace, the names of a one-device game's seats, a client seed, and which
corners may hold a bot or play first. A bad choice is refused with a `ServiceError`."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from games.engine import RULESETS, Ruleset, rules_from_name
from games.match import dice
from games.match.errors import ServiceError
from games.models import Mode
from games.services.bots import BOT_LEVELS, DEFAULT_BOT_LEVEL
from games.services.deadlines import PACES

HOUSE_RULES = ("compulsory_capture", "optional_bring_out", "no_jump_home_column", "play_on")
PARTY_OPTIONS = ("pairs", "power")
# A seat's name in a one-device game.
SEAT_NAME_LENGTH = 20


def check_pace(pace: str | None) -> str | None:
    if pace in (None, "", "normal"):
        return None
    if pace not in PACES:
        raise ServiceError(
            "bad_request", f"There is no pace {pace!r}; there are {', '.join(PACES)}"
        )
    return pace


def check_seat_names(names: Mapping[Any, Any] | None, corners: Sequence[int]) -> dict[str, str]:
    """Names for the people of a one-device game, by corner: printable, trimmed, short."""
    out: dict[str, str] = {}
    for key, value in (names or {}).items():
        try:
            corner = int(key)
        except (TypeError, ValueError) as exc:
            raise ServiceError("bad_request", f"No corner {key!r}") from exc
        if corner not in corners:
            raise ServiceError("bad_request", f"Corner {corner} has no seat in this match")
        text = " ".join("".join(ch for ch in str(value) if ch.isprintable()).split())
        if len(text) > SEAT_NAME_LENGTH:
            raise ServiceError(
                "bad_request", f"A seat's name is at most {SEAT_NAME_LENGTH} characters"
            )
        if text:
            out[str(corner)] = text
    return out


def option_names(value: Mapping[str, Any] | Iterable[str] | None, known: tuple[str, ...]) -> list:
    if value is None:
        return []
    names = (
        [name for name, on in value.items() if on] if isinstance(value, Mapping) else list(value)
    )
    unknown = sorted(set(names) - set(known))
    if unknown:
        raise ServiceError("bad_request", f"Unknown option {unknown[0]!r}")
    return [name for name in known if name in names]


def check_bot_levels(value: Mapping[int, str] | Iterable[int] | None) -> dict[int, str]:
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


def check_client_seed(seed: str | None) -> str:
    if seed is None:
        return dice.new_client_seed()
    if not dice.CLIENT_SEED.fullmatch(seed):
        raise ServiceError(
            "bad_request", "A client seed is 1 to 64 letters, digits, '_' or '-' characters"
        )
    return seed


def rules_of(
    ruleset: str,
    mode: str,
    house_rules: Mapping[str, Any] | Iterable[str] | None,
    options: Mapping[str, Any] | Iterable[str] | None,
) -> tuple[Ruleset, list[str]]:
    """The Ruleset a new match plays, and the option names chosen for it."""
    if ruleset not in RULESETS:
        raise ServiceError("bad_request", f"There is no rule set {ruleset!r}")
    if mode not in Mode.values:
        raise ServiceError("bad_request", f"There is no mode {mode!r}")
    chosen = option_names(house_rules, HOUSE_RULES) + option_names(options, PARTY_OPTIONS)
    try:
        return rules_from_name("+".join([ruleset, *chosen])), chosen  # cached: one Board a name
    except (ValueError, TypeError) as exc:
        raise ServiceError("bad_request", str(exc)) from exc


def check_corners(
    mode: str,
    corners: tuple[int, ...],
    bot_levels: dict[int, str],
    first: int | None,
    server_seed: str | None,
    host: Any,
    paired_ids: list[int],
) -> None:
    """Refuse bots in ranked, a ranked match not made by matchmaking, a bot or a first player
    on a corner with no seat, and a chosen server seed outside practice."""
    if bot_levels and mode == Mode.RANKED:
        raise ServiceError("ranked_no_bots", "Ranked matches never seat a bot")
    if mode == Mode.RANKED and (host is None or host.pk not in paired_ids):
        raise ServiceError(
            "ranked_by_matchmaking", "Ranked matches are made by quick match: join a ranked queue"
        )
    if set(bot_levels) - set(corners):
        bad = sorted(set(bot_levels) - set(corners))[0]
        raise ServiceError("bad_request", f"Corner {bad} has no seat in this match")
    if first is not None and first not in corners:
        raise ServiceError("bad_request", f"Corner {first} has no seat in this match")
    if server_seed is not None and mode != Mode.PRACTICE:
        raise ServiceError("bad_request", "A chosen server seed is for practice simulations only")
