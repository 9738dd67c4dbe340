"""The reader's language beyond Django's LocaleMiddleware (cookie, then Accept-Language).

- ``?lang=CODE`` on any page renders it in that language for this request (the ``hreflang``
  alternates of public pages point there; nothing is remembered);
- else a signed-in player's saved language (``User.language``, set by the header's picker),
  so their choice follows them to another device.

`choose_language` is the picker's form target: Django's ``set_language`` (the cookie a guest
keeps), and for a signed-in player the choice saved in their settings too.
"""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse
from django.utils import translation
from django.views.decorators.http import require_POST
from django.views.i18n import set_language

from .models import is_guest


def supported(code: str | None) -> str | None:
    """`code` as one of settings.LANGUAGES (``pt-BR`` -> ``pt-br``), or None."""
    if not code:
        return None
    try:
        return translation.get_supported_language_variant(code.strip().lower())
    except LookupError:
        return None


class PlayerLanguageMiddleware:
    """After AuthenticationMiddleware and LocaleMiddleware: ``?lang=`` first, then the
    signed-in player's saved language; otherwise LocaleMiddleware's choice stands."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        code = supported(request.GET.get("lang"))
        if code is None:
            user = getattr(request, "user", None)
            if user is not None and user.is_authenticated and not is_guest(user):
                code = supported(getattr(user, "language", ""))
        if code is not None:
            translation.activate(code)
            request.LANGUAGE_CODE = code  # type: ignore[attr-defined]
        return self.get_response(request)


@require_POST
def choose_language(request: HttpRequest) -> HttpResponse:
    """The header's picker: the cookie (Django's set_language), and a signed-in player's
    settings."""
    response = set_language(request)
    code = supported(request.POST.get("language"))
    user = request.user
    signed_in = user.is_authenticated and not is_guest(user)
    if code is not None and signed_in and getattr(user, "language", None) != code:
        user.language = code  # type: ignore[union-attr]
        user.save(update_fields=["language"])
    return response
