"""Where the match side reaches the tournaments, without the match code knowing them: a
``post_save`` receiver on `games.models.Match` (a ranked match that finished, was voided or
counts again; after its transaction commits, `services.game_ended` counts it), and the tick
the in-process clock and Celery beat run."""

from __future__ import annotations

import logging
from functools import partial
from typing import Any

from django.db import transaction

from games.models import Mode, Status

from . import services

log = logging.getLogger(__name__)

ENDINGS = (Status.FINISHED, Status.ABORTED, Status.VOID)


def match_saved(sender: Any, instance: Any, **kwargs: Any) -> None:
    """Cheap for every other save: only an ended ranked match is looked at, after commit."""
    if instance.mode != Mode.RANKED or instance.status not in ENDINGS:
        return
    transaction.on_commit(partial(_counted, instance.pk))


def _counted(match_id: int) -> None:
    try:
        services.game_ended(match_id)
    except Exception:  # noqa: BLE001 - the match is saved; the tick counts it again
        log.exception("tournaments: counting match %s failed; the tick will", match_id)


def tick() -> int:
    return services.tick() + services.recount()
