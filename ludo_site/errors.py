"""The error pages in the reader's language (issue 29): 400, 403, 404, 500 and 503 carry the
request's ``lang`` and ``dir`` and say their words in it, whether the request failed before
LocaleMiddleware chose a language (a NUL in the address, a dependency down) or after.

The language is found without the database: what the middleware chose for this request
(``request.LANGUAGE_CODE``: ``?lang=``, a signed-in player's setting, the cookie,
Accept-Language), else ``?lang=``, the language cookie and Accept-Language read here. The
400, 403, 500 and 503 pages (templates/error_base.html) take no context at all, so a 500
renders with the database gone.
"""

from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.template import loader
from django.utils import translation
from django.views import defaults


def reader_language(request: HttpRequest | None) -> str:
    """The language to answer `request` in; the site's default when nothing says."""
    if request is None:
        return settings.LANGUAGE_CODE
    try:
        chosen = getattr(request, "LANGUAGE_CODE", None)
        if chosen and translation.check_for_language(chosen):
            return chosen
        asked = request.GET.get("lang")
        if asked:
            try:
                return translation.get_supported_language_variant(asked.strip().lower())
            except LookupError:
                pass
        return translation.get_language_from_request(request)
    except Exception:  # noqa: BLE001 - an error page must render whatever the request holds
        return settings.LANGUAGE_CODE


def page(request: HttpRequest | None, template: str, status: int) -> HttpResponse:
    """`template` (no context) rendered in the reader's language, with `status`."""
    code = reader_language(request)
    with translation.override(code):
        html = loader.get_template(template).render()
    response = HttpResponse(html, status=status)
    response["Content-Language"] = code
    return response


def bad_request(request: HttpRequest, exception: Exception) -> HttpResponse:
    return page(request, "400.html", 400)


def permission_denied(request: HttpRequest, exception: Exception) -> HttpResponse:
    return page(request, "403.html", 403)


def page_not_found(request: HttpRequest, exception: Exception) -> HttpResponse:
    """The site's 404 page (it has the site's header: the middleware has run) in the reader's
    language."""
    code = reader_language(request)
    with translation.override(code):
        response = defaults.page_not_found(request, exception)
    response["Content-Language"] = code
    return response


def server_error(request: HttpRequest) -> HttpResponse:
    return page(request, "500.html", 500)


def unavailable(request: HttpRequest) -> HttpResponse:
    """The database or Redis down (ludo_site.middleware.UnavailableMiddleware)."""
    return page(request, "503.html", 503)


def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponse:
    """A form refused by the CSRF check (settings.CSRF_FAILURE_VIEW): out of date, or sent
    without the site's cookie."""
    return page(request, "403_csrf.html", 403)
