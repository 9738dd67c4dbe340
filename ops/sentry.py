"""Error reports (``SENTRY_DSN``): sentry-sdk with its Django, Celery and asyncio integrations,
personal data off unless ``SENTRY_SEND_PII`` (no user, address, cookies or request bodies,
and no local variables in the stack frames: they hold session keys and query parameters).
Started from the settings, so every process (servers, Celery worker and beat, ``manage.py``)
reports; without a DSN nothing is imported or sent."""

from __future__ import annotations

from typing import Any


def init(
    dsn: str,
    *,
    environment: str = "",
    send_pii: bool = False,
    traces_rate: float = 0.0,
    **extra: Any,
) -> bool:
    if not dsn:
        return False
    import sentry_sdk
    from sentry_sdk.integrations.asyncio import AsyncioIntegration
    from sentry_sdk.integrations.celery import CeleryIntegration
    from sentry_sdk.integrations.django import DjangoIntegration

    sentry_sdk.init(
        dsn=dsn,
        environment=environment or None,
        send_default_pii=send_pii,
        include_local_variables=send_pii,
        traces_sample_rate=traces_rate,
        integrations=[DjangoIntegration(), CeleryIntegration(), AsyncioIntegration()],
        **extra,
    )
    return True
