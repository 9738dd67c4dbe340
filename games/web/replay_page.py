"""A finished match's replay page: turn by turn, with its events and the dice proof."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET

from games.match import names
from games.match.replay import initial_state, load_actions, steps, withdrawn
from games.match.reports import report_for
from games.models import MatchEvent, Mode
from games.services import reactions
from games.services.analysis import analyse_match
from games.web.room_pages import match_or_404
from games.web.rules_page import board_config, narrate, position


@require_GET
def replay(request: HttpRequest, code: str) -> HttpResponse:
    """A finished match turn by turn, with its events and the dice proof."""
    match = match_or_404(code)
    rules = match.rules
    context: dict[str, Any] = {"match": match, "ended": match.ended}
    start = initial_state(match) if match.ended else None
    if start is None:
        return render(request, "games/replay.html", context)
    frames = [{"turn": 1, "title": _("The start"), "words": [], "position": position(start)}]
    rolls = []
    actions = load_actions(match)
    gone = withdrawn(actions)  # local games: what an undo took back
    for step in steps(match, actions, start=start):
        row = step.action.row
        said = [narrate(rules, e) for e in step.events]
        if step.action.kind == "undo":
            said = [
                _("Undo: back to %(who)s's turn")
                % {"who": names.colour(rules.colours[step.state.to_play])}
            ]
        if said and step.action.seq in gone:
            said[0] = _("%(said)s (taken back)") % {"said": said[0]}
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
    report = report_for(match)  # issue 31: luck and decisions, or "pending"
    if report and report["state"] == "pending" and match.mode == Mode.PRACTICE:
        # A practice game's report is read as soon as it ends (the room links to it): made
        # now rather than at the beat task's next run.
        analyse_match(match.pk)
        report = report_for(match)
    context["report"] = report
    context["report_yours"] = _yours(match, request)
    return render(request, "games/replay.html", context)


def _reactions_into(match: Any, frames: list[dict[str, Any]]) -> None:
    """The room's reactions, each in the words of the replay step it followed."""
    said = MatchEvent.objects.filter(match=match, kind=reactions.KIND).order_by("seq")
    for e in said:
        at = 0
        for i, f in enumerate(frames):
            if f.get("seq", 0) < e.seq:
                at = i
        colour = names.colour(match.rules.colours[int(e.data["corner"])])
        frames[at]["words"].append(
            _("%(who)s reacts: %(reaction)s")
            % {"who": colour, "reaction": reactions.CHOICES.get(e.data["r"], e.data["r"])}
        )


def _seat_label(seat: Any, colour: str) -> str:
    name = names.colour(colour)
    if seat is None:
        return name
    if seat.bot:
        return _("%(colour)s: %(level)s computer (BOT)") % {
            "colour": name,
            "level": names.level(seat.bot),
        }
    if seat.user is not None and seat.match.mode != "local":
        return _("%(colour)s: %(name)s") % {"colour": name, "name": seat.user.shown_name}
    return name


def _yours(match: Any, request: HttpRequest) -> list[int]:
    """The corners the viewer played (the report marks them "you"); none in a local game,
    where one account plays every seat."""
    user = request.user
    if match.mode == Mode.LOCAL or not user.is_authenticated:
        return []
    return sorted(s.corner for s in match.seats.all() if s.user_id == user.pk and not s.bot)
