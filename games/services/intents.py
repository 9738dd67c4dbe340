"""One client intent, one action: the socket (`games.live.consumers`) and the JSON API
(`games.web.api`) both hand a parsed intent (`games.live.wire.Intent`) here, so the two
speak the same actions with the same arguments. Resync is the caller's business (it reads,
it changes nothing)."""

from __future__ import annotations

from typing import Any, Protocol

from games.match.errors import ServiceError
from games.services.kernel import ActionResult
from games.services.leave import match_resign
from games.services.play import match_move, match_roll
from games.services.reactions import match_react
from games.services.undo import match_undo
from ops import metrics


class Intent(Protocol):
    """What the dispatcher reads of an intent (the wire's `Intent` has these fields)."""

    @property
    def t(self) -> str: ...
    @property
    def v(self) -> int | None: ...
    @property
    def id(self) -> str: ...
    @property
    def pawn(self) -> int | None: ...
    @property
    def corner(self) -> int | None: ...
    @property
    def shield(self) -> bool: ...
    @property
    def bonus(self) -> str: ...
    @property
    def face(self) -> int | None: ...
    @property
    def reaction(self) -> str: ...


def match_act(*, match_id: int, user: Any, intent: Intent) -> ActionResult | None:
    """Play the user's intent in the match: roll, move, undo, resign, or a reaction (which
    changes nothing of the game: None)."""
    metrics.action(intent.t)  # ops: actions a second by kind (issue 28)
    if intent.t == "roll":
        return match_roll(
            match_id=match_id,
            user=user,
            seq=intent.v,
            action_id=intent.id,
            bonus=intent.bonus,
            face=intent.face,
        )
    if intent.t == "move":
        return match_move(
            match_id=match_id,
            user=user,
            seq=intent.v,
            action_id=intent.id,
            pawn=intent.pawn,
            pawn_corner=intent.corner,
            shield=intent.shield,
        )
    if intent.t == "undo":
        return match_undo(match_id=match_id, user=user, seq=intent.v)
    if intent.t == "react":
        match_react(match_id=match_id, user=user, reaction=intent.reaction)
        return None
    if intent.t == "resign":
        return match_resign(match_id=match_id, user=user)
    raise ServiceError("bad_request", f"There is no action {intent.t!r}")
