"""Request bodies are refused over ``MAX_BODY_BYTES`` before they are read: at the ASGI layer,
under Django, which would otherwise read a body of any size whole (to disk past
``FILE_UPLOAD_MAX_MEMORY_SIZE``) before any middleware or view could look at it.

A body that declares its length (``Content-Length``) is refused before any of it is read; a
chunked one is counted as it streams and refused once it passes the limit (what came so far
is dropped). The answer is 413: the API's JSON ``too_large`` under ``/api/``, else the styled
page in the reader's language. So that a client still sending (most send the whole body
before they read) gets that answer, the rest of a body up to `DRAIN_BYTES` is received and
thrown away, never kept; past that the answer goes at once and the connection is closed."""

from __future__ import annotations

import io
import json
from typing import Any

from asgiref.sync import sync_to_async
from django.conf import settings
from django.core.handlers.asgi import ASGIRequest
from django.utils import translation
from django.utils.translation import gettext as _

from ludo_site import errors


def _declared(scope: dict[str, Any]) -> int | None:
    for key, value in scope.get("headers", []):
        if key.lower() == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None


def _page(scope: dict[str, Any]) -> tuple[bytes, str, str]:
    """The styled 413 page: (body, content type, language)."""
    request = ASGIRequest(scope, io.BytesIO())
    response = errors.page(request, "413.html", 413)
    return response.content, response["Content-Type"], response["Content-Language"]


def _json(limit: int) -> bytes:
    with translation.override(settings.LANGUAGE_CODE):
        message = _("Bodies are at most %(n)d bytes") % {"n": limit}
    return json.dumps({"code": "too_large", "message": message}).encode()


# The most of a refused body received (and thrown away) so that its client reads the answer.
DRAIN_BYTES = 32 * 1024 * 1024


async def _drain(receive: Any, so_far: int) -> bool:
    """Receive the rest of a refused body, keeping none of it: True when it ended within
    `DRAIN_BYTES`, False when it went past them or the client went away."""
    while True:
        message = await receive()
        if message["type"] != "http.request":
            return False
        so_far += len(message.get("body", b""))
        if so_far > DRAIN_BYTES:
            return False
        if not message.get("more_body", False):
            return True


class BodyLimit:
    """ASGI middleware in front of Django's HTTP handler."""

    def __init__(self, app: Any, *, limit: int | None = None) -> None:
        self.app = app
        self.limit = int(settings.MAX_BODY_BYTES if limit is None else limit)

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = _declared(scope)
        if declared is not None and declared > self.limit:
            ended = declared <= DRAIN_BYTES and await _drain(receive, 0)
            await self.refuse(scope, send, close=not ended)
            return
        received = 0
        over = False

        async def counted() -> dict[str, Any]:
            nonlocal received, over
            message: dict[str, Any] = await receive()
            if message["type"] == "http.request" and not over:
                received += len(message.get("body", b""))
                if received > self.limit:
                    # Django stops reading on a disconnect and answers nothing: the 413 is ours.
                    over = True
                    if not message.get("more_body", False):
                        received = -1  # the body ended with this message: nothing to drain
                    return {"type": "http.disconnect"}
            return message

        await self.app(scope, counted, send)
        if over:
            ended = received < 0 or await _drain(receive, received)
            await self.refuse(scope, send, close=not ended)

    async def refuse(self, scope: dict[str, Any], send: Any, *, close: bool) -> None:
        headers = [(b"cache-control", b"no-store")]
        if close:
            headers.append((b"connection", b"close"))
        if settings.CSP:
            headers.append((b"content-security-policy", settings.CSP.encode()))
        if scope.get("path", "").startswith("/api/"):
            body = _json(self.limit)
            headers.append((b"content-type", b"application/json"))
        else:
            body, kind, language = await sync_to_async(_page, thread_sensitive=False)(scope)
            headers += [(b"content-type", kind.encode()), (b"content-language", language.encode())]
        headers.append((b"content-length", str(len(body)).encode()))
        await send({"type": "http.response.start", "status": 413, "headers": headers})
        await send({"type": "http.response.body", "body": body})
