"""A bot's reason in the reader's language (issue 29), from the code and data the bot gave
(`games.bots.words.Reason.wire`: a bot_said event's ``why``). static/js/room.js says the
same in the room, from the same data."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from games.engine import Ruleset
from games.match import names

BONUSES = {
    "double": gettext_lazy("Double roll"),
    "control": gettext_lazy("Dice control"),
    "shield": gettext_lazy("Shield"),
    "plus": gettext_lazy("+1"),
}


def _colour(rules: Ruleset, corner: int) -> str:
    return names.colour(rules.colours[int(corner)])


def _pawn(rules: Ruleset, why: dict[str, Any]) -> str:
    if why.get("of") is None:
        return _("pawn %(n)s") % {"n": why.get("pawn", 0)}
    return _("%(colour)s's pawn %(n)s") % {
        "colour": _colour(rules, why["of"]),
        "n": why.get("pawn", 0),
    }


def _captured(rules: Ruleset, rows: list[list[int]]) -> str:
    total = sum(n for _c, n in rows)
    owners = [_colour(rules, c) for c, _n in rows]
    if len(owners) == 1:
        return ngettext("%(owner)s's pawn", "%(owner)s's %(n)s pawns", total) % {
            "owner": owners[0],
            "n": total,
        }
    return _("the pawns of %(owners)s") % {
        "owners": _(", ").join(owners[:-1]) + _(" and ") + owners[-1]
    }


def bot_reason(rules: Ruleset, why: dict[str, Any]) -> str:
    """The sentence of reason `why` (``{"code": ..., **data}``); empty for an unknown code."""
    code = why.get("code", "")
    if code in ("hunch", "missed"):
        base = bot_reason(rules, why.get("base") or {})
        if code == "hunch":
            return _("%(reason)s on a hunch") % {"reason": base}
        if why.get("missed") == "capture":
            return _("%(reason)s (it missed a capture)") % {"reason": base}
        return _("%(reason)s (it missed a safe square)") % {"reason": base}
    pawn = _pawn(rules, why)
    if code in ("capture", "capture_with"):
        caught = _captured(rules, why.get("captured") or [])
        if code == "capture":
            return _("captures %(captured)s") % {"captured": caught}
        return _("captures %(captured)s with %(pawn)s") % {"captured": caught, "pawn": pawn}
    if code == "bonus":
        bonus = str(why.get("bonus", ""))
        return _("moves %(pawn)s onto the %(bonus)s square") % {
            "pawn": pawn,
            "bonus": str(BONUSES.get(bonus, bonus)),
        }
    if code == "steps":
        n = int(why.get("n", 0))
        return ngettext("moves %(pawn)s %(n)s square", "moves %(pawn)s %(n)s squares", n) % {
            "pawn": pawn,
            "n": n,
        }
    sentence = {
        "home": _("brings %(pawn)s home"),
        "out": _("brings %(pawn)s out of the yard"),
        "column": _("moves %(pawn)s into its home column"),
        "to_column": _("moves %(pawn)s to its home column"),
        "safe": _("moves %(pawn)s to a safe square"),
        "behind": _("moves %(pawn)s, the pawn furthest behind"),
        "along": _("moves %(pawn)s, the pawn furthest along"),
        "away": _("moves %(pawn)s away from a rival pawn"),
        "away_all": _("moves %(pawn)s away from rival pawns"),
        "reach": _("moves %(pawn)s out of a rival's reach"),
        "shield": _("moves %(pawn)s under a Shield"),
    }.get(code)
    return sentence % {"pawn": pawn} if sentence else ""


def hint_reason(rules: Ruleset, why: dict[str, Any]) -> str:
    """The practice Hint's words (`games.bots.analysis.hint`: code best, only or same, what the move
    does and why it beats the next best) in the reader's language; empty for an unknown
    code."""
    code = why.get("code", "")
    does = bot_reason(rules, why.get("does") or {})
    if code == "only":
        return _("%(does)s (the only move)") % {"does": does}
    if code == "same":
        return _("%(does)s (any of the lit pawns: each leads to the same position)") % {
            "does": does
        }
    if code != "best":
        return ""
    return _("%(does)s: %(why)s") % {"does": does, "why": best_reason(rules, why.get("why") or {})}


def best_reason(rules: Ruleset, why: dict[str, Any]) -> str:
    """Why the hinted move beats the next best (`games.bots.analysis._why_best`); empty for
    an unknown code."""
    code = why.get("code", "")
    pawn = _pawn(rules, why)
    if code == "it_captures":
        return _("it captures %(captured)s") % {
            "captured": _captured(rules, why.get("captured") or [])
        }
    if code == "would_leave":
        n = int(why.get("n", 0))
        return ngettext(
            "moving %(pawn)s would leave it in reach of a rival pawn",
            "moving %(pawn)s would leave it in reach of %(n)s rival pawns",
            n,
        ) % {"pawn": pawn, "n": n}
    sentence = {
        "goes_home": _("%(pawn)s goes home"),
        "takes_out": _("it takes %(pawn)s out of a rival's reach"),
        "keeps_better": _("it keeps better chances than moving %(pawn)s"),
    }.get(code)
    return sentence % {"pawn": pawn} if sentence else ""
