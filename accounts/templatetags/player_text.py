"""Text a player chose (names, notes, appeals, dispute texts), printed isolated from the page
around it: a right-to-left name, or one holding a bidi control from before names refused them,
cannot reorder the words beside it ("Kai, medium bot" out of U+202E and a reversed name), and
its own bidi controls are dropped. Built in to every template (``TEMPLATES`` ``builtins``):
``{{ name|bdi }}`` in markup, ``{{ name|isolated }}`` where no markup may go (a title)."""

from __future__ import annotations

from typing import Any

from django import template
from django.utils.html import format_html
from django.utils.safestring import SafeString

register = template.Library()

FSI, PDI = "\u2068", "\u2069"  # first strong isolate ... pop directional isolate
# Bidi controls inside the text itself (names refuse them now; older ones may hold them): an
# isolate keeps them from the page around, dropping them keeps them from the name itself.
_CONTROLS = dict.fromkeys(
    map(ord, "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
)


def _plain(value: Any) -> str:
    return "" if value is None else str(value).translate(_CONTROLS)


@register.filter
def bdi(value: Any) -> SafeString:
    """``<bdi>`` around the escaped text: its direction is its own, isolated from the page."""
    return format_html("<bdi>{}</bdi>", _plain(value))


@register.filter
def isolated(value: Any) -> str:
    """The text between Unicode's isolates, for text without markup (titles, attributes)."""
    return f"{FSI}{_plain(value)}{PDI}"


@register.filter
def bdi_each(values: Any) -> list[SafeString]:
    """Each of a list of names isolated (before ``|join``)."""
    return [bdi(v) for v in values or ()]
