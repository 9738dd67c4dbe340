"""Template filters for the game's names in the reader's language (issue 29):
``{{ match.ruleset|preset_name }}``, ``{{ seat.bot|level_name }}``, ``{{ c|colour_name }}``."""

from __future__ import annotations

from django import template

from games.match import names

register = template.Library()


@register.filter
def preset_name(code: str) -> str:
    return names.preset(str(code or ""))


@register.filter
def level_name(code: str) -> str:
    return names.level(str(code or ""))


@register.filter
def colour_name(code: str) -> str:
    return names.colour(str(code or ""))
