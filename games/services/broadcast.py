"""Tell a match's room that it changed. Called after commit; best-effort by design.

The channel layer may drop messages under load; clients that see a gap in ``v`` resync from
the database, which is the truth. So a failure here is logged and swallowed, never raised
into the service that committed the change.
"""

from __future__ import annotations

import logging
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

log = logging.getLogger(__name__)


def group_name(match_id: int) -> str:
    return f"match.{match_id}"


def match_changed(match_id: int, seq: int, events: list[dict[str, Any]]) -> None:
    """Send ``{"type": "match.update", "v": seq, "events": events}`` to the match's group."""
    try:
        layer = get_channel_layer()
        if layer is None:
            return
        async_to_sync(layer.group_send)(
            group_name(match_id), {"type": "match.update", "v": seq, "events": events}
        )
    except Exception:  # noqa: BLE001 - the database is the truth; clients resync
        log.exception("broadcast of match %s v%s failed", match_id, seq)
