"""Request bodies are refused over ``MAX_BODY_BYTES`` before they are read: at the ASGI layer,
under Django, which would otherwise read a body of any size whole (to disk past
``FILE_UPLOAD_MAX_MEMORY_SIZE``) before any middleware or view could look at it.

A body that declares its length (``Content-Length``) is refused at once, unread; a chunked
one is counted as it streams and refused as soon as it passes the limit (what came so far is
dropped; uvicorn discards the rest as it arrives). The answer is 413: the API's JSON
``too_large`` under ``/api/``, else the styled page in the reader's language."""

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
            await self.refuse(scope, send)
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
                    return {"type": "http.disconnect"}
            return message

        await self.app(scope, counted, send)
        if over:
            await self.refuse(scope, send)

    async def refuse(self, scope: dict[str, Any], send: Any) -> None:
        headers = [(b"connection", b"close"), (b"cache-control", b"no-store")]
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
