"""The operator's endpoints: ``/healthz`` (the process answers), ``/readyz`` (it can serve:
`ops.health`; what is down only to a metrics reader) and ``/metrics`` (Prometheus text:
`ops.scrape`), reachable only with ``Authorization: Bearer <METRICS_TOKEN>`` or from an
address in ``METRICS_ALLOW``."""

from __future__ import annotations

import hmac
import ipaddress

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe
from prometheus_client import CONTENT_TYPE_LATEST

from ops import health, scrape


@never_cache
@require_safe
def healthz(request: HttpRequest) -> HttpResponse:
    return JsonResponse({"status": "ok"})


@never_cache
@require_safe
def readyz(request: HttpRequest) -> HttpResponse:
    """200 or 503 for anyone (a load balancer's probe needs no more); which checks failed only
    for whoever may read the metrics: the names of what is down help an attacker time one."""
    ready, checks = health.readiness()
    body: dict[str, object] = {"status": "ok" if ready else "unavailable"}
    if allowed(request):
        body["checks"] = checks
        body["down"] = sorted(name for name, value in checks.items() if value.startswith("down"))
    response = JsonResponse(body, status=200 if ready else 503)
    # A probe's answer is not a server error: `ops.health` logged it as a warning already, so
    # Django's request logger (an ERROR line, and an error report, for every 5xx) is skipped.
    response._has_been_logged = True  # type: ignore[attr-defined]
    return response


def allowed(request: HttpRequest) -> bool:
    """The bearer token matches ``METRICS_TOKEN``, or the peer's address is in ``METRICS_ALLOW``
    (the direct peer's, never X-Forwarded-For's)."""
    token = settings.METRICS_TOKEN
    given = request.headers.get("Authorization", "")
    if (
        token
        and given.startswith("Bearer ")
        and hmac.compare_digest(given[7:].strip().encode(), token.encode())
    ):
        return True
    try:
        peer = ipaddress.ip_address(request.META.get("REMOTE_ADDR", ""))
    except ValueError:
        return False
    return any(peer in network for network in settings.METRICS_ALLOW)


@never_cache
@require_safe
def metrics(request: HttpRequest) -> HttpResponse:
    if not allowed(request):
        response = JsonResponse(
            {
                "code": "forbidden",
                "message": _(
                    "Metrics need the bearer token (METRICS_TOKEN) or an address the operator "
                    "allows (METRICS_ALLOW)"
                ),
            },
            status=403,
        )
        response["WWW-Authenticate"] = 'Bearer realm="metrics"'
        return response
    return HttpResponse(scrape.exposition(), content_type=CONTENT_TYPE_LATEST)
