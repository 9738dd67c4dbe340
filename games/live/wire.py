"""The WebSocket wire format (docs/wire.md): every frame is ``{"t", "v", "d"}``.

Client frames::

    {"t": "roll", "v": 12, "id": "a1", "d": {"bonus": "control", "face": 6}}
    {"t": "move", "v": 13, "id": "a2", "d": {"pawn": 2, "corner": 0, "shield": false}}
    {"t": "resign"}
    {"t": "resync"}
    {"t": "undo", "v": 14}       (local games: take back the last person's roll or move)
    {"t": "react", "d": {"r": "gg"}}  (online rooms: one of `games.reactions.CHOICES`)

Server frames: ``state`` (the full snapshot), ``update`` (the events of one change and the new
snapshot), ``error`` (to the sender only: ``{"code", "message"}``).

Parsing is pure: a frame becomes an `Intent` or raises `WireError`; nothing here touches a
match.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any

import orjson
from django.utils import translation
from django.utils.functional import Promise
from django.utils.translation import gettext_lazy

from games.match.errors import TEXTS

MAX_FRAME_BYTES = 2048
MAX_ID_CHARS = 64
BONUSES = ("", "double", "control", "shield")
ACTIONS = ("roll", "move", "resign", "resync", "undo", "react")

# The codes an error frame may carry: the wire's own, then the services' (games.match.errors.CODES).
WIRE_CODES = ("bad_message", "rate_limited", "too_large")


class WireError(Exception):
    """A frame refused before it reaches a service; nothing changes."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass(frozen=True, slots=True)
class Intent:
    """What a client asks for, validated for shape (the rules are the services' business)."""

    t: str
    v: int | None = None
    id: str = ""
    pawn: int | None = None
    corner: int | None = None
    shield: bool = False
    bonus: str = ""
    face: int | None = None
    reaction: str = ""


def frame(t: str, v: int | None, d: Any) -> str:
    """A server frame as text (compact JSON; orjson: every socket of a room serialises its own
    snapshot on every update, and the standard library's encoder was a tenth of the server's
    time there)."""
    return orjson.dumps({"t": t, "v": v, "d": d}).decode()


# What the wire's own codes mean for a person, in the reader's language (issue 29; the
# services' codes are told by `games.match.errors.TEXTS`). A malformed frame is a client's
# fault, never the player's: the page says to reload.
WIRE_TEXTS: dict[str, Promise] = {
    "bad_message": gettext_lazy("The room could not read that message: reload the page"),
    "too_large": gettext_lazy("The room could not read that message: reload the page"),
    "not_found": gettext_lazy("There is no room with that code"),
    "too_many_sockets": gettext_lazy("Too many open rooms in this browser: close some"),
    "unavailable": gettext_lazy("The server cannot reach its database just now: trying again"),
    "bad_ticket": gettext_lazy("This room link is not valid: reload"),
}


def told(code: str, message: str, language: str) -> str:
    """The error `code` (English `message`) in `language`: the wire's sentence for its own
    codes, else the services' (`TEXTS`), else the English."""
    meant = WIRE_TEXTS.get(code) or TEXTS.get(code)
    if meant is None:
        return message
    with translation.override(language):
        return message if translation.get_language() in (None, "en") else str(meant)


def told_frame(code: str, message: str, language: str, v: int | None = None) -> str:
    """`error_frame` with its text `told` in `language`: how the room and the socket refuse."""
    return error_frame(code, message, v, text=told(code, message, language))


def error_frame(code: str, message: str, v: int | None = None, text: str | None = None) -> str:
    """An error: its code, the English `message` (outside clients read it) and, when known,
    `text`, the same in the reader's language (issue 29)."""
    data = {"code": code, "message": message}
    if text is not None:
        data["text"] = text
    return frame("error", v, data)


def _int(value: Any, name: str, low: int, high: int) -> int:
    # bool is an int in Python; true is not a pawn number.
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise WireError("bad_message", f'"{name}" must be a whole number from {low} to {high}')
    return value


# How deep a frame or request body may nest: a frame is two levels deep, and Python's JSON
# parser raises RecursionError (not ValueError) past ~1,000 levels, which a 2 KB frame reaches.
MAX_DEPTH = 8


def loads(text: str | bytes, *, what: str = "frame") -> Any:
    """JSON from a client, refused with a `WireError` (``bad_message``) when it is not JSON,
    nests deeper than `MAX_DEPTH`, or holds a string (or key) the database cannot store: a NUL
    character, or a lone surrogate (valid in JSON's ``\\ud800`` escapes, not in UTF-8)."""
    try:
        raw = json.loads(text)
    except RecursionError:
        raise WireError("bad_message", f"The {what} nests too deeply") from None
    except ValueError:  # UnicodeDecodeError included
        raise WireError("bad_message", f"The {what} is not JSON") from None
    stack: list[tuple[Any, int]] = [(raw, 0)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, str):
            _check_text(value, what)
        elif isinstance(value, dict | list):
            if depth >= MAX_DEPTH:
                raise WireError("bad_message", f"The {what} nests too deeply")
            items = value.items() if isinstance(value, dict) else enumerate(value)
            for key, item in items:
                if isinstance(key, str):
                    _check_text(key, what)
                stack.append((item, depth + 1))
    return raw


def _check_text(text: str, what: str) -> None:
    if "\x00" in text:
        raise WireError("bad_message", f"The {what} holds a NUL character")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise WireError("bad_message", f"The {what} holds a lone surrogate") from None


def parse(text: str | None, data: bytes | None = None) -> Intent:
    """A client frame as an `Intent`; `WireError` says why it is refused."""
    if data is not None:
        if len(data) > MAX_FRAME_BYTES:
            raise WireError("too_large", f"Frames are at most {MAX_FRAME_BYTES} bytes")
        raise WireError("bad_message", "Send text frames of JSON, not binary")
    if text is None:
        raise WireError("bad_message", "Empty frame")
    if len(text) > MAX_FRAME_BYTES or len(text.encode("utf-8", "replace")) > MAX_FRAME_BYTES:
        raise WireError("too_large", f"Frames are at most {MAX_FRAME_BYTES} bytes")
    raw = loads(text)
    if not isinstance(raw, dict):
        raise WireError("bad_message", 'A frame is a JSON object with a "t" field')
    t = raw.get("t")
    if t not in ACTIONS:
        raise WireError("bad_message", f"Unknown frame type {t!r}; expected one of {ACTIONS}")
    if t in ("resign", "resync"):
        return Intent(t)
    if t == "react":
        d = raw.get("d")
        r = d.get("r") if isinstance(d, dict) else None
        if not isinstance(r, str) or not 0 < len(r) <= 16:
            raise WireError("bad_message", '"d" must be {"r": a reaction}')
        return Intent(t, reaction=r)
    if t == "undo":
        # The seq it was made against: a repeated undo is stale, it never takes back two.
        return Intent(t, _int(raw.get("v"), "v", 0, 2**62))
    d = raw.get("d", {})
    if d is None:
        d = {}
    if not isinstance(d, dict):
        raise WireError("bad_message", '"d" must be a JSON object')
    v = _int(raw.get("v"), "v", 0, 2**62)
    action_id = raw.get("id")
    if not isinstance(action_id, str) or not 0 < len(action_id) <= MAX_ID_CHARS:
        raise WireError("bad_message", f'"id" must be a string of 1 to {MAX_ID_CHARS} characters')
    if t == "roll":
        bonus = d.get("bonus", "") or ""
        if bonus not in BONUSES:
            raise WireError("bad_message", f'"bonus" must be one of {BONUSES[1:]}')
        face = d.get("face")
        if face is not None:
            face = _int(face, "face", 1, 6)
        return Intent(t, v, action_id, bonus=bonus, face=face)
    pawn = _int(d.get("pawn"), "pawn", 0, 3)
    corner = d.get("corner")
    if corner is not None:
        corner = _int(corner, "corner", 0, 3)
    shield = d.get("shield", False)
    if not isinstance(shield, bool):
        raise WireError("bad_message", '"shield" must be true or false')
    return Intent(t, v, action_id, pawn=pawn, corner=corner, shield=shield)


class RateLimit:
    """A token bucket per connection: `rate` frames a second, bursts up to `burst`."""

    def __init__(self, rate: float, burst: int, clock: Any = time.monotonic) -> None:
        self.rate = rate
        self.burst = burst
        self.tokens = float(burst)
        self.clock = clock
        self.last = clock()

    def allow(self) -> bool:
        now = self.clock()
        self.tokens = min(self.burst, self.tokens + (now - self.last) * self.rate)
        self.last = now
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        return False
