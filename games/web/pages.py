"""The pages that only show: home (with its play forms), the rules, the terms and the
guides."""

from __future__ import annotations

from typing import Any

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_GET

from accounts.forms import TERMS_VERSION
from accounts.models import is_guest
from disputes.services import window_days
from games.engine import RULESETS, Ruleset
from games.match import selectors
from games.web import ladder
from games.web.choices import HOUSE_RULES, PARTY_OPTIONS, PRESETS, default_level
from games.web.guides import guides, page_data, preset_guide
from games.web.rules_page import basics, board_config, examples


@require_GET
def home(request: HttpRequest) -> HttpResponse:
    return home_page(request)


def home_page(request: HttpRequest, **extra: Any) -> HttpResponse:
    """The home page, with `extra` in its context (join by code's error and the code typed)."""
    return render(
        request,
        "home.html",
        {
            **extra,
            "presets": PRESETS,
            "levels": ladder.choices(),
            "default_level": default_level(),
            "default_level_about": ladder.level_text(default_level()),
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
    facts: list[tuple[str, str] | None] = [
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
            _("Out of the yard with"),
            _("a 1 or a 6") if rules.release_faces == frozenset({1, 6}) else _("a 6"),
        )
        if rules.release_faces != frozenset({6})
        else None,
        (
            _("At the start"),
            ngettext(
                "%(n)d pawn of each player on its start square, the others in the yard",
                "%(n)d pawns of each player on their start square, the others in the yard",
                rules.start_out,
            )
            % {"n": rules.start_out},
        )
        if rules.start_out
        else None,
        (
            "The end",
            (
                "the first with every pawn home wins"
                if rules.win_pawns == 4
                else ngettext(
                    "the first pawn home wins; the others are placed by pawns home, then by "
                    "squares covered",
                    "the first with %(n)d pawns home wins",
                    rules.win_pawns,
                )
                % {"n": rules.win_pawns}
            )
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
    return [fact for fact in facts if fact is not None]


@require_GET
def terms(request: HttpRequest) -> HttpResponse:
    """The Terms of Service and fair play rules (seed 002), accepted at sign-up."""
    return render(request, "terms.html", {"version": TERMS_VERSION, "dispute_days": window_days()})


@require_GET
def preset_guide_page(request: HttpRequest, name: str) -> HttpResponse:
    """How to play and how to win one preset (issue 30: a guide for each, linked from the home
    page and the room), its boards played through the engine."""
    found = next((p for p in PRESETS if p[0] == name), None)
    if found is None:
        raise Http404("There is no such preset")
    _key, title, lead = found
    rules_of = RULESETS[name]
    guide = preset_guide(name)
    data = {
        name: [
            {
                "board": board_config(ex.rules or rules_of),
                "frames": [f.snapshot for f in ex.frames],
            }
            for ex in guide["examples"]
        ]
    }
    return render(
        request,
        "games/preset_guide.html",
        {
            "name": name,
            "title": title,
            "lead": lead,
            "facts": _facts(rules_of),
            "tips": guide["tips"],
            "examples": guide["examples"],
            "data": data,
            "others": [(k, t) for k, t, _lead in PRESETS if k != name],
            "duel_guides": list(guides().values()) if name == "duel" else [],
        },
    )


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
    first = [
        {
            "key": b.key,
            "title": b.title,
            "text": b.text,
            "label": b.example.frames[b.frame].title,
        }
        for b in basics()
    ]
    basics_data = [
        {
            "board": board_config(b.example.rules or RULESETS["classic"]),
            "frames": [b.example.frames[b.frame].snapshot],
        }
        for b in basics()
    ]
    return render(
        request,
        "games/rules.html",
        {"presets": presets, "data": data, "basics": first, "basics_data": basics_data},
    )
