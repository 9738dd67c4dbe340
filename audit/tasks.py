"""Celery tasks of the audit log."""

from __future__ import annotations

import logging

from celery import shared_task

from .chain import anchor_text, head

log = logging.getLogger("ludo.audit.anchor")


@shared_task(name="audit.log_head", ignore_result=True)
def log_head() -> str | None:
    """Log the head of the audit chain (beat: every hour). Logs are kept apart from the
    database, so an anchor there shows later whether the newest entries were cut off
    (`manage.py verify_audit --anchor ID:HASH`)."""
    now = head()
    if now is None:
        return None
    text = anchor_text(now)
    log.info("audit anchor %s", text)
    return text
