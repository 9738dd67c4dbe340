"""Requests refused before any view: what no field of the site may hold.

A NUL character (``%00``) in a path, a query or a form field reaches the database as text,
which PostgreSQL refuses with an error (a 500); a lone surrogate cannot be encoded at all.
Such a request gets a coded 400 here: JSON under ``/api/``, a short page elsewhere (in the
reader's language, ludo_site.errors). And a request that fails because the database or Redis is
down gets a 503 that says so.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable

from django.http import HttpRequest, HttpResponse, JsonResponse

log = logging.getLogger("ludo.requests")

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
            from ludo_site import errors  # here: this module loads before the apps

            return errors.bad_request(request, ValueError(MESSAGE))
        return self.get_response(request)


UNAVAILABLE = "The site cannot reach its database or Redis just now: try again in a moment"


def _unavailable(exc: BaseException) -> bool:
    """Whether `exc` is a dependency being down (not a bug): the database, its pool, Redis."""
    # Here, not at the top: the middleware module loads before the apps (settings.MIDDLEWARE).
    from django.db import DatabaseError, InterfaceError, OperationalError

    if isinstance(exc, OperationalError | InterfaceError):
        return True
    try:
        # Imported here so a site without the redis client still answers (ImportError below).
        from redis.exceptions import ConnectionError as RedisConnectionError
        from redis.exceptions import TimeoutError as RedisTimeoutError
    except ImportError:  # pragma: no cover - redis is a requirement
        return False
    if isinstance(exc, RedisConnectionError | RedisTimeoutError):
        return True
    return isinstance(exc, DatabaseError) and "server closed the connection" in str(exc)


class UnavailableMiddleware:
    """A request that fails because a dependency is down gets a clear 503 (``unavailable``,
    JSON under ``/api/``) with a Retry-After, and one log line with the path and the
    traceback; any other exception is left to Django (a 500, logged by ``django.request``)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exc: Exception) -> HttpResponse | None:
        if not _unavailable(exc):
            return None
        log.error("Unavailable (%s): %s", type(exc).__name__, request.path, exc_info=exc)
        if request.path.startswith("/api/"):
            response: HttpResponse = JsonResponse(
                {"code": "unavailable", "message": UNAVAILABLE}, status=503
            )
        else:
            from ludo_site import errors  # here: this module loads before the apps

            response = errors.unavailable(request)  # the reader's language, no database
        response["Retry-After"] = "5"
        return response
