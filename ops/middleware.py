"""The operator's middleware, first of all (`ludo_site.settings.MIDDLEWARE`): each request gets
a request id (the X-Request-ID it came with if sane, else a fresh one; sent back in the
response and put on every log line logged while it runs: `ops.logs`), its response is counted
by status code, and every response gets the Content-Security-Policy header (``CSP``).

And an API request declaring a body larger than the API takes is answered with the API's JSON
``too_large`` (413) before anything reads it: Django would otherwise refuse a body over
``DATA_UPLOAD_MAX_MEMORY_SIZE`` with an HTML 400 and a traceback in the log.
"""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.utils.translation import gettext as _

from games.web.api import MAX_BODY_BYTES
from ops import logs, metrics


def _declared_length(request: HttpRequest) -> int:
    try:
        return int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        return 0


class OpsMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        rid = logs.new_id(request.headers.get("X-Request-ID"))
        token = logs.request_id.set(rid)
        try:
            if request.path.startswith("/api/") and _declared_length(request) > MAX_BODY_BYTES:
                response: HttpResponse = JsonResponse(
                    {
                        "code": "too_large",
                        "message": _("Bodies are at most %(n)d bytes") % {"n": MAX_BODY_BYTES},
                    },
                    status=413,
                )
            else:
                response = self.get_response(request)
        finally:
            logs.request_id.reset(token)
        response["X-Request-ID"] = rid
        if settings.CSP and "Content-Security-Policy" not in response:
            response["Content-Security-Policy"] = settings.CSP
        metrics.http_response(response.status_code)
        return response
