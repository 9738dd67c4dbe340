"""Practice: the Hint (issue 31): the best move for the roll in hand, by the winning-chances
evaluator, and why in words. GET /api/matches/<code>/hint.

The answer's ``why`` is English (outside clients read it), ``said`` its code and data
(`games.bots.analysis.hint`) and ``text`` the same words in the reader's language (the
request's: ``?lang=``, the player's setting, the cookie, Accept-Language)."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.utils.translation import gettext as _

from games.bots.analysis import hint
from games.match.saying import hint_reason
from games.models import Mode, Status
from games.web.api import api, error, match_for_code, my_corners


@api("GET")
def match_hint(request: HttpRequest, code: str) -> HttpResponse:
    match = match_for_code(code)
    if match.mode != Mode.PRACTICE:
        return error("forbidden", _("Hints are for practice games only"))
    if match.status != Status.ACTIVE:
        return error("over", _("This game is over"))
    state = match.state()
    if state is None or state.to_play not in my_corners(request, match):
        return error("not_your_turn", _("A hint is for your own turn"))
    if state.phase != "move" or not state.legal:
        return JsonResponse(
            {"move": None, "text": _("Roll the die first: a hint is for the roll in hand.")}
        )
    best, why, chance = hint(state)
    said = why.wire()
    return JsonResponse(
        {
            "move": {"corner": best.corner, "pawn": best.pawn, "from": best.frm, "to": best.to},
            "best": best.pawn + 1,
            "why": why,  # English, for outside clients
            "said": said,  # its code and data (issue 29)
            "text": hint_reason(state.rules, said),  # in the reader's language
            "chance": round(chance, 4),
            "choices": len(state.legal),
        }
    )
