"""The error pages in the reader's language (issue 29): a 400, 403, 404, 500 or 503 carries the
request's lang and dir and says its words in that language, chosen by Accept-Language, the
language cookie or ``?lang=``, even when the request failed before LocaleMiddleware ran (a NUL
in the address) or the database is down; every word of them is marked (pseudo-locale)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.conf import settings
from django.core.exceptions import PermissionDenied
from django.db import OperationalError
from django.http import HttpRequest, HttpResponse
from django.test import Client
from django.urls import include, path
from django.utils import translation

from ludo_site.urls import handler400, handler403, handler404, handler500  # noqa: F401
from tests.i18n.pseudo import english_words, pseudo_locale

pytestmark = pytest.mark.django_db


def broken(request: HttpRequest) -> HttpResponse:
    raise RuntimeError("a bug in a view")


def forbidden(request: HttpRequest) -> HttpResponse:
    raise PermissionDenied("not yours")


def database_down(request: HttpRequest) -> HttpResponse:
    raise OperationalError("connection to server failed: Connection refused")


urlpatterns = [
    path("boom/", broken),
    path("forbidden/", forbidden),
    path("down/", database_down),
    path("", include("ludo_site.urls")),
]

# How each error is met: (method, path, extra request arguments).
ERRORS = {
    "400 (a NUL in the address)": (400, "/r/%00/", {}),
    "400 (a bad Host)": (400, "/rules/", {"HTTP_HOST": "evil.example"}),
    "403": (403, "/forbidden/", {}),
    "403 (CSRF)": (403, "/accounts/login/", {"csrf": True}),
    "404": (404, "/no-such-page/", {}),
    "500": (500, "/boom/", {}),
    "503": (503, "/down/", {}),
}


@pytest.fixture
def production(settings: Any) -> None:
    settings.DEBUG = False
    settings.ROOT_URLCONF = __name__


def fetch(kind: str, **headers: str) -> tuple[int, str, Any]:
    status, where, extra = ERRORS[kind]
    extra = dict(extra)
    client = Client(raise_request_exception=False, enforce_csrf_checks=extra.pop("csrf", False))
    if kind.startswith("403 (CSRF)"):
        response = client.post(where, {"username": "ann"}, **headers, **extra)
    else:
        response = client.get(where, **headers, **extra)
    assert response.status_code == status, (kind, response.status_code)
    return status, response.content.decode(), response


def lang_of(html: str) -> tuple[str, str]:
    m = re.search(r'<html lang="([^"]+)" dir="(ltr|rtl)">', html)
    assert m, html[:300]
    return m.group(1), m.group(2)


def said(code: str, text: str) -> str:
    with translation.override(code):
        return translation.gettext(text)


@pytest.mark.parametrize("kind", list(ERRORS))
def test_an_error_page_in_arabic_by_accept_language(production: None, kind: str) -> None:
    _, html, response = fetch(kind, HTTP_ACCEPT_LANGUAGE="ar,en;q=0.5")
    assert lang_of(html) == ("ar", "rtl")
    assert response["Content-Language"] == "ar"
    home = said("ar", "Back to the start")
    assert home != "Back to the start" and home in html
    assert said("ar", "Ludo Online") in html


@pytest.mark.parametrize("kind", ["400 (a NUL in the address)", "404", "500", "503"])
def test_the_language_cookie_and_english(production: None, kind: str) -> None:
    client_cookie = {"HTTP_COOKIE": f"{settings.LANGUAGE_COOKIE_NAME}=ur"}
    _, html, _ = fetch(kind, HTTP_ACCEPT_LANGUAGE="de", **client_cookie)
    assert lang_of(html) == ("ur", "rtl")
    assert said("ur", "Back to the start") in html
    _, html, _ = fetch(kind, HTTP_ACCEPT_LANGUAGE="de")
    assert lang_of(html) == ("de", "ltr") and said("de", "Back to the start") in html
    _, html, _ = fetch(kind)
    assert lang_of(html) == ("en", "ltr") and "Back to the start" in html


def test_the_500_page_needs_no_database(production: None, monkeypatch: Any) -> None:
    from ludo_site import errors

    def no_database(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("the 500 page touched the database")

    monkeypatch.setattr("django.db.backends.utils.CursorWrapper.execute", no_database)
    response = errors.server_error(HttpRequest())
    assert response.status_code == 500 and lang_of(response.content.decode()) == ("en", "ltr")
    request = HttpRequest()
    request.META["HTTP_ACCEPT_LANGUAGE"] = "fr"
    html = errors.server_error(request).content.decode()
    assert lang_of(html) == ("fr", "ltr")
    assert said("fr", "Something went wrong on our side") in html


@pytest.mark.parametrize("kind", list(ERRORS))
def test_every_word_of_an_error_page_is_marked(production: None, monkeypatch, kind: str) -> None:  # type: ignore[no-untyped-def]
    with pseudo_locale(monkeypatch):
        _, html, _ = fetch(kind, HTTP_ACCEPT_LANGUAGE="xx")
        assert lang_of(html) == ("xx", "ltr")
        assert english_words(html) == set(), kind
