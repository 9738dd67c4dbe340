"""The pages that only show: home (with its play forms), the rules, the terms and the
guides."""

from __future__ import annotations

import functools
from typing import Any

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.template.loader import render_to_string
from django.utils.formats import number_format
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import get_language, ngettext
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET

from accounts.forms import TERMS_VERSION
from accounts.models import is_guest
from disputes.services import window_days
from games.engine import RULESETS, Ruleset
from games.match import selectors
from games.web import ladder
from games.web.choices import (
    HOUSE_RULES,
    PACES,
    PARTY_OPTIONS,
    PRESETS,
    default_level,
    remembered_pace,
)
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
            "paces": PACES,
            "pace": remembered_pace(request),
            "guest": is_guest(request.user),
            "preview": board_config(RULESETS["classic"]),
            "your_games": selectors.unfinished_games(request.user),
        },
    )


def _facts(rules: Ruleset) -> list[tuple[str, str]]:
    """A preset's rules as short lines, read from its Ruleset (what the engine plays), in the
    reader's language."""
    safe = (
        _("the four start squares and the four stars")
        if rules.safe
        else _("none: a pawn can be captured anywhere on the track")
    )
    capture = {
        "all": _("every opponent pawn on the square goes back to its yard"),
        "lone": _("only a lone opponent pawn goes back; two or more stay, and do not block"),
        "count": _(
            "every opponent with no more pawns there than you goes back; "
            "with fewer you share the square"
        ),
    }[rules.capture]
    extra = [_("a six")]
    if rules.extra_roll_on_capture:
        extra.append(_("a capture"))
    if rules.extra_roll_on_home:
        extra.append(_("a pawn reaching home"))
    again = _(", ").join(extra)
    if len(extra) > 1:
        again = _("%(reasons)s (several reasons: one extra roll)") % {"reasons": again}
    third = (
        _("six number %(n)s in a row is forfeited and the turn passes")
        % {"n": number_format(rules.max_sixes)}
        if rules.max_sixes
        else _("no limit")
    )
    column = rules.goal - rules.last_track - (1 if rules.track_len == 52 else 0)
    board = (
        _("%(track)s track squares, a home column of %(column)s, then home")
        if rules.track_len == 52
        else _("%(track)s track squares, a home column of %(column)s")
    ) % {"track": number_format(rules.track_len), "column": number_format(column)}
    facts: list[tuple[str, str] | None] = [
        (
            _("Players"),
            _("%(low)s to %(high)s") % {"low": rules.min_players, "high": rules.max_players}
            if rules.max_players > 2
            else number_format(rules.min_players),
        ),
        (_("Board"), board),
        (_("Safe squares"), safe),
        (_("Landing on a rival"), capture),
        (
            _("Own pawns"),
            _("may share a square") if rules.land_on_own else _("never share a square"),
        ),
        (_("Roll again for"), again),
        (_("Sixes in a row"), third),
        (
            _("No pawn out"),
            ngettext("%(n)s try for a six", "%(n)s tries for a six", rules.tries_without_pawn_out)
            % {"n": rules.tries_without_pawn_out}
            if rules.tries_without_pawn_out > 1
            else _("one roll"),
        ),
        (
            _("A six no pawn can use"),
            _("you roll again")
            if rules.unusable_six_rolls_again
            else _("is lost, with no roll again"),
        ),
        (
            _("Bringing out"),
            _("compulsory when a pawn waits (clear the start square first)")
            if rules.must_bring_out
            else _("optional"),
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
            _("The end"),
            (
                _("the first with every pawn home wins")
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
            else _("play goes on until one is left, who loses"),
        ),
        (
            _("Who starts"),
            # In code rooms who goes first is drawn at random (Match.draws_first).
            (
                _("Red on one device and against the computer; drawn with the dice in online rooms")
                if rules.name == "mensch"
                else _("red")
            )
            if rules.first_player == "red"
            else _("drawn at random with the dice"),
        ),
        (
            _("Turn clock"),
            ngettext("%(n)s second", "%(n)s seconds", rules.turn_seconds)
            % {"n": number_format(rules.turn_seconds)}
            if rules.turn_seconds
            else _("none (one device)"),
        ),
    ]
    return [fact for fact in facts if fact is not None]


@require_GET
def terms(request: HttpRequest) -> HttpResponse:
    """The Terms of Service and fair play rules, accepted at sign-up."""
    return render(request, "terms.html", {"version": TERMS_VERSION, "dispute_days": window_days()})


@require_GET
def preset_guide_page(request: HttpRequest, name: str) -> HttpResponse:
    """How to play and how to win one preset (issue 30: a guide for each, linked from the home
    page and the room), its boards played through the engine."""
    found = next((p for p in PRESETS if p[0] == name), None)
    if found is None:
        raise Http404(_("There is no such preset"))
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
    """One of the two duel guides, its boards played through the engine."""
    found = guides().get(slug)
    if found is None:
        raise Http404(_("There is no such guide"))
    others = [g for g in guides().values() if g.slug != slug]
    return render(
        request,
        "games/guide.html",
        {"guide": found, "data": page_data(found), "others": others},
    )


@require_GET
def rules(request: HttpRequest) -> HttpResponse:
    """The rules page. Its body (every preset's worked examples played on the engine, and
    their boards' data) is the same for every reader of a language: made once a language and
    process, the page around it (the header, the signed-in name) for each request."""
    return render(request, "games/rules.html", {"body": _rules_body(get_language() or "en")})


@functools.lru_cache(maxsize=16)
def _rules_body(language: str) -> SafeString:
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
    context = {"presets": presets, "data": data, "basics": first, "basics_data": basics_data}
    return mark_safe(render_to_string("games/_rules_body.html", context))  # noqa: S308 - ours
