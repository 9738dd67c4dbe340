"""The address a request came from."""

from __future__ import annotations

import ipaddress

from django.conf import settings
from django.http import HttpRequest


def client_ip(request: HttpRequest) -> str | None:
    """The client's IP address, or None when it cannot be told.

    With ``TRUSTED_PROXIES`` = n (reverse proxies in front of the site, 0 by default) the
    address is the one the outermost trusted proxy saw: the n-th entry from the right of
    ``X-Forwarded-For``. With no proxy that header is ignored, since a client can write
    anything in it.
    """
    proxies = int(settings.TRUSTED_PROXIES)
    candidate = request.META.get("REMOTE_ADDR", "")
    if proxies > 0:
        hops = [h.strip() for h in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",")]
        hops = [h for h in hops if h]
        if len(hops) >= proxies:
            candidate = hops[-proxies]
    try:
        return str(ipaddress.ip_address(candidate))
    except ValueError:
        return None
