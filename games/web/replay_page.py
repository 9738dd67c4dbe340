"""A finished match's replay page: turn by turn, with its events and the dice proof."""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.formats import number_format
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET

from games.match import names
from games.match.replay import initial_state, load_actions, steps, withdrawn
from games.match.reports import report_for
from games.match.selectors import local_name, seat_label
from games.models import MatchEvent, Mode
from games.services import reactions
from games.services.analysis import analyse_match
from games.web.room_pages import match_or_404
from games.web.rules_page import board_config, narrate


@require_GET
def replay(request: HttpRequest, code: str) -> HttpResponse:
    """A finished match turn by turn, with its events and the dice proof."""
    match = match_or_404(code)
    rules = match.rules
    context: dict[str, Any] = {"match": match, "ended": match.ended}
    start = initial_state(match) if match.ended else None
    if start is None:
        return render(request, "games/replay.html", context)
    frames = [{"turn": 1, "in": 1, "seq": 0, "words": [_("The start")], "by": "", "state": start}]
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
                "words": said or [step.action.kind],
                "by": getattr(row, "by", ""),
                "state": step.state,
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
        **compact_steps(frames),
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
            "rolls": compact_rolls(rolls),
        },
    }
    report = report_for(match)  # issue 31: luck and decisions, or "pending"
    if report and report["state"] == "pending" and match.mode == Mode.PRACTICE:
        # A practice game's report is read as soon as it ends (the room links to it): made
        # now rather than at the beat task's next run.
        analyse_match(match.pk)
        report = report_for(match)
    context["report"] = report
    context["config_json"] = page_json(context["config"])
    context["speeds"] = [{"value": v, "shown": number_format(Decimal(v))} for v in SPEEDS]
    context["report_yours"] = _yours(match, request)
    return render(request, "games/replay.html", context)


PHASES = ("roll", "move", "over")
# The replay's speeds to choose from (times the normal pace of a step a second or so).
SPEEDS = ("0.5", "1", "2", "4")


def compact_steps(frames: list[dict[str, Any]]) -> dict[str, Any]:
    """The steps as the page reads them, compactly: a long game has a thousand steps or more,
    each a position and a few sentences that repeat. ``words`` lists each sentence once;
    ``steps`` holds one array per field, a value per step: ``seq`` and ``turn`` as the change
    from the step before, ``in`` as how many turns before ``turn`` the step was played, ``by``
    and ``said`` as indexes into ``words``, ``to_play``, ``phase`` (an index into ``phases``)
    and ``die``; ``pawns`` holds the first step's pawns (a row per corner), then per step the
    pawns that moved as flat (corner, pawn, progress) triples, or 0. Read by
    static/js/replay_steps.js."""
    words: dict[str, int] = {"": 0}

    def word(text: str) -> int:
        return words.setdefault(text, len(words))

    columns: dict[str, list[Any]] = {
        k: [] for k in ("seq", "turn", "in", "by", "said", "to_play", "phase", "die", "pawns")
    }
    before: tuple[tuple[int, ...], ...] | None = None
    seq = turn = 0
    for f in frames:
        state = f["state"]
        columns["seq"].append(f["seq"] - seq)
        columns["turn"].append(f["turn"] - turn)
        columns["in"].append(f["turn"] - f["in"])
        seq, turn = f["seq"], f["turn"]
        columns["by"].append(word(f["by"] or ""))
        columns["said"].append([word(w) for w in f["words"]])
        columns["to_play"].append(state.to_play)
        columns["phase"].append(PHASES.index(state.phase))
        columns["die"].append(state.die or 0)
        pawns = tuple(tuple(row) for row in state.pawns)
        if before is None:
            columns["pawns"].append([list(row) for row in pawns])
        else:
            moved = [
                value
                for corner, row in enumerate(pawns)
                for pawn, progress in enumerate(row)
                if before[corner][pawn] != progress
                for value in (corner, pawn, progress)
            ]
            columns["pawns"].append(moved or 0)
        before = pawns
    return {"words": list(words), "phases": list(PHASES), "steps": columns}


def compact_rolls(rolls: list[dict[str, Any]]) -> dict[str, list[int]]:
    """The dice proof's rolls, one array per field (``chosen`` 0 or 1; ``die`` only where it
    is not ``n``, else -1): read by static/js/replay_steps.js."""
    return {
        "n": [r["n"] for r in rolls],
        "die": [-1 if r["die"] == r["n"] else r["die"] for r in rolls],
        "face": [r["face"] for r in rolls],
        "corner": [r["corner"] for r in rolls],
        "chosen": [int(r["chosen"]) for r in rolls],
        "frame": [r["frame"] for r in rolls],
    }


def page_json(value: Any) -> str:
    """`value` as JSON for a ``<script type="application/json">``, escaped as Django's
    ``json_script`` escapes it but with the page's own letters as they are (``\\uXXXX`` is
    six bytes for each letter of Hindi or Arabic)."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return text.translate({ord("<"): "\\u003C", ord(">"): "\\u003E", ord("&"): "\\u0026"})


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
    # A bot by the name the room gave it ("Kai, medium bot"), a one-device game's people by
    # the names its setup gave them.
    if seat.bot:
        return _("%(colour)s: %(name)s") % {"colour": name, "name": seat_label(seat, seat.match)}
    if seat.user is not None and seat.match.mode != "local":
        return _("%(colour)s: %(name)s") % {"colour": name, "name": seat.user.shown_name}
    if local_name(seat, seat.match):
        return _("%(colour)s: %(name)s") % {"colour": name, "name": local_name(seat, seat.match)}
    return name


def _yours(match: Any, request: HttpRequest) -> list[int]:
    """The corners the viewer played (the report marks them "you"); none in a local game,
    where one account plays every seat."""
    user = request.user
    if match.mode == Mode.LOCAL or not user.is_authenticated:
        return []
    return sorted(s.corner for s in match.seats.all() if s.user_id == user.pk and not s.bot)
