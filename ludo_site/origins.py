"""Which pages may open the site's WebSockets: the Origin header's scheme, host and port
compared with the site's own, not its host alone (issue 12: channels'
AllowedHostsOriginValidator let any port or scheme of an allowed host through).

A socket is let in when its Origin is the socket's own origin (the scheme its connection came
in by, http for ws and https for wss, and the Host header's host and port) and that host is
one of ALLOWED_HOSTS, or when the Origin is one of CSRF_TRUSTED_ORIGINS (behind a proxy that
ends TLS the socket comes in as ws: name the site's https origin there). A socket without an
Origin (no browser) is refused like a foreign one.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from channels.security.websocket import WebsocketDenier
from django.conf import settings
from django.http.request import split_domain_port, validate_host

DEFAULT_PORTS = {"http": 80, "https": 443}
Origin = tuple[str, str, int]


def parse_origin(text: str) -> Origin | None:
    """(scheme, host, port) of an origin such as ``https://ludo.example:8443``, or None."""
    try:
        parts = urlsplit(text.strip())
        scheme, host, port = parts.scheme.lower(), (parts.hostname or "").lower(), parts.port
    except ValueError:
        return None
    if scheme not in DEFAULT_PORTS or not host:
        return None
    return scheme, host, port if port is not None else DEFAULT_PORTS[scheme]


def _header(scope: dict[str, Any], name: bytes) -> str | None:
    for key, value in scope.get("headers", []):
        if key.lower() == name:
            return value.decode("latin-1")
    return None


def own_origin(scope: dict[str, Any]) -> Origin | None:
    """The origin the socket itself was opened at, from its scheme and Host header, when that
    host is an allowed one."""
    host_header = _header(scope, b"host")
    if not host_header:
        return None
    scheme = "https" if scope.get("scheme") in ("wss", "https") else "http"
    domain, port = split_domain_port(host_header.lower())
    if not domain or not validate_host(domain, settings.ALLOWED_HOSTS):
        return None
    return scheme, domain.strip("[]"), int(port) if port else DEFAULT_PORTS[scheme]


def allowed(scope: dict[str, Any]) -> bool:
    text = _header(scope, b"origin")
    origin = parse_origin(text) if text else None
    if origin is None:
        return False
    trusted = {parse_origin(o) for o in settings.CSRF_TRUSTED_ORIGINS}
    return origin in trusted or origin == own_origin(scope)


class OriginValidator:
    """ASGI middleware: a WebSocket from another origin is refused before the handshake."""

    def __init__(self, application: Any) -> None:
        self.application = application

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> Any:
        if scope["type"] == "websocket" and not allowed(scope):
            return await WebsocketDenier()(scope, receive, send)
        return await self.application(scope, receive, send)
