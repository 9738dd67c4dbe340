"""Requests refused before any view: what no field of the site may hold.

A NUL character (``%00``) in a path, a query or a form field reaches the database as text,
which PostgreSQL refuses with an error (a 500); a lone surrogate cannot be encoded at all.
Such a request gets a coded 400 here: JSON under ``/api/``, a short page elsewhere.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from django.http import HttpRequest, HttpResponse, JsonResponse

MESSAGE = "The request holds a NUL character or text that is not valid UTF-8"


def _bad(text: str) -> bool:
    if "\x00" in text:
        return True
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _fields(request: HttpRequest) -> Iterable[str]:
    yield request.path
    for key, values in request.GET.lists():
        yield key
        yield from values
    if request.method == "POST" and request.content_type in (
        "application/x-www-form-urlencoded",
        "multipart/form-data",
    ):
        for key, values in request.POST.lists():
            yield key
            yield from (v for v in values if isinstance(v, str))


class BadInputMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if any(_bad(text) for text in _fields(request)):
            if request.path.startswith("/api/"):
                return JsonResponse({"code": "bad_request", "message": MESSAGE}, status=400)
            return HttpResponse(MESSAGE, status=400, content_type="text/plain; charset=utf-8")
        return self.get_response(request)
