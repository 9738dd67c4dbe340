"""Error reports (``SENTRY_DSN``): sentry-sdk with its Django, Celery and asyncio integrations.

What leaves the site is kept to what a developer needs to find a fault: the exception, its
stack (no local variables: they hold session keys, passwords and query parameters), the
path, the method and a few plain headers. Personal data (user, address, cookies) only with
``SENTRY_SEND_PII``; request bodies (sign-up and password forms, dispute texts, report notes)
only with ``SENTRY_SEND_BODIES``. Whatever is sent, `scrub` first blanks every value under a
key that names a secret (a password, token, session, cookie, CSRF token, ticket, email or
authorisation, in any spelling: ``new_password1``, ``X-CSRFToken``) and every email address
and socket ticket found in a text, and keeps only an allowlist of request headers.

A client that goes away after its answer is no fault: Django's disconnect listener raises
``RequestAborted`` in a task of its own, which the asyncio integration would report for every
request uvicorn serves. Those events are dropped.

Started from the settings, so every process (servers, Celery worker and beat, ``manage.py``)
reports; without a DSN nothing is imported or sent."""

from __future__ import annotations

import re
from typing import Any

from django.core.exceptions import RequestAborted

from ops import logs

# Keys whose values are secret, matched anywhere in the key, any case, ``-`` or ``_``.
SECRET_PARTS = (
    "password",
    "passwd",
    "pwd",
    "secret",
    "token",
    "session",
    "cookie",
    "csrf",
    "xsrf",
    "auth",
    "ticket",
    "email",
    "credential",
    "api_key",
    "apikey",
    "private",
    "signature",
    "forwarded",
    "real_ip",
)
# Request headers sent as they are; any other is dropped.
SAFE_HEADERS = frozenset(
    {"accept", "accept-language", "content-length", "content-type", "host", "user-agent"}
)
# Exact keys for sentry-sdk's own scrubber (it compares whole keys), beside `scrub`'s rule.
EXTRA_DENYLIST = [
    "password1",
    "password2",
    "old_password",
    "new_password1",
    "new_password2",
    "csrfmiddlewaretoken",
    "x-csrftoken",
    "x_csrftoken",
    "ticket",
    "email",
    "metrics_token",
]
FILTERED = "[Filtered]"
_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(\.[\w-]+)+")


def secret_key(key: object) -> bool:
    text = str(key).lower().replace("-", "_")
    return any(part in text for part in SECRET_PARTS)


def scrub_text(text: str) -> str:
    """`text` with every email address and secret query parameter's value blanked."""
    return _EMAIL.sub(FILTERED, logs.redact(text))


def _scrub(value: Any) -> Any:
    if isinstance(value, str):
        return scrub_text(value)
    if isinstance(value, dict):
        return {k: FILTERED if secret_key(k) else _scrub(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_scrub(v) for v in value]
    return value


def aborted(hint: dict[str, Any]) -> bool:
    """The event is Django's ``RequestAborted``: the client went away, nothing failed."""
    info = hint.get("exc_info")
    return bool(info) and isinstance(info[1], RequestAborted)


def scrub(
    event: dict[str, Any],
    hint: dict[str, Any],
    *,
    send_pii: bool = False,
    send_bodies: bool = False,
) -> dict[str, Any] | None:
    """sentry-sdk's ``before_send``: None for a ``RequestAborted``, else the event scrubbed."""
    if aborted(hint):
        return None
    request = event.get("request")
    if isinstance(request, dict):
        if not send_bodies:
            request.pop("data", None)
        if not send_pii:
            request.pop("cookies", None)
            request.pop("env", None)
            headers = request.get("headers")
            if isinstance(headers, dict):
                request["headers"] = {
                    k: v for k, v in headers.items() if str(k).lower() in SAFE_HEADERS
                }
    if not send_pii:
        event.pop("user", None)
    return _scrub(event)  # type: ignore[no-any-return]


def init(
    dsn: str,
    *,
    environment: str = "",
    send_pii: bool = False,
    send_bodies: bool = False,
    traces_rate: float = 0.0,
    **extra: Any,
) -> bool:
    if not dsn:
        return False
    import sentry_sdk
    from sentry_sdk.integrations.asyncio import AsyncioIntegration
    from sentry_sdk.integrations.celery import CeleryIntegration
    from sentry_sdk.integrations.django import DjangoIntegration
    from sentry_sdk.scrubber import DEFAULT_DENYLIST, EventScrubber

    def before_send(event: Any, hint: Any) -> Any:
        return scrub(event, hint, send_pii=send_pii, send_bodies=send_bodies)

    sentry_sdk.init(
        dsn=dsn,
        environment=environment or None,
        send_default_pii=send_pii,
        include_local_variables=send_pii,
        max_request_body_size="medium" if send_bodies else "never",
        event_scrubber=EventScrubber(denylist=[*DEFAULT_DENYLIST, *EXTRA_DENYLIST], recursive=True),
        before_send=before_send,
        before_send_transaction=before_send,
        ignore_errors=["django.core.exceptions.RequestAborted"],
        traces_sample_rate=traces_rate,
        integrations=[DjangoIntegration(), CeleryIntegration(), AsyncioIntegration()],
        **extra,
    )
    return True
