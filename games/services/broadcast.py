"""Tell a match's room that it changed. Called after commit; never raises into the service.

The database is the truth. A broadcast that fails (Redis unreachable) is not dropped: the
match is kept in this process's list of rooms owed news, and a retry thread sends them a
``match.resync`` (each socket there that was not sent that ``v`` reloads the full state)
every `RETRY_EVERY` seconds until it goes through. Should this process die first, the
sockets' heartbeat (`games.live.hub.Hub.beat`) finds the match ahead of them within seconds and
resyncs them all the same (issue 12: the update was logged and lost until the next change).
"""

from __future__ import annotations

import asyncio
import logging
import os
import threading
from collections.abc import Callable
from typing import Any

from asgiref.sync import SyncToAsync, async_to_sync
from channels.layers import InMemoryChannelLayer, get_channel_layer
from django.db import connection

from ops import metrics

log = logging.getLogger(__name__)

RETRY_EVERY = 1.0
# (match id) -> the latest seq whose news did not go out, in this process.
_owed: dict[int, int] = {}
_owed_lock = threading.Lock()
_retrying: threading.Thread | None = None


def group_name(match_id: int) -> str:
    return f"match.{match_id}"


# A process with no event loop of its own (a Celery worker, the in-process clock's thread)
# sends on one kept loop in a thread of its own, so the channel layer's Redis connection is
# kept between broadcasts (issue 27: `async_to_sync` made a new thread, event loop and Redis
# connection for every broadcast, ~2 ms against ~0.07 ms on a kept one).
SEND_TIMEOUT = 10.0
_loop: asyncio.AbstractEventLoop | None = None
_loop_pid = 0  # the process that started it: a forked child (Celery's pool) makes its own
_loop_lock = threading.Lock()


def _kept_loop() -> asyncio.AbstractEventLoop:
    global _loop, _loop_pid
    with _loop_lock:
        if _loop is None or _loop.is_closed() or _loop_pid != os.getpid():
            _loop = asyncio.new_event_loop()
            _loop_pid = os.getpid()
            threading.Thread(
                target=_loop.run_forever, name="ludo-broadcast-loop", daemon=True
            ).start()
        return _loop


def _server_loop() -> asyncio.AbstractEventLoop | None:
    """The event loop of this process this thread runs for (a server's database thread or
    request thread), if any: the broadcast then goes out on that loop, as the sockets' layer
    does."""
    loop = getattr(SyncToAsync.threadlocal, "main_event_loop", None)
    pid = getattr(SyncToAsync.threadlocal, "main_event_loop_pid", None)
    if loop is None or pid != os.getpid() or loop.is_closed():
        return None
    return loop


def _group_send(layer: Any, group: str, message: dict[str, Any]) -> None:
    loop = _server_loop()
    if loop is not None:
        # Handed to the server's loop and waited for, without `async_to_sync`'s machinery
        # for each send (issue 27: its hand-offs were ~8% of a server worker's CPU).
        sent = asyncio.run_coroutine_threadsafe(layer.group_send(group, message), loop)
        sent.result(timeout=SEND_TIMEOUT)
        return
    if isinstance(layer, InMemoryChannelLayer):
        # The in-memory layer's queues belong to the server's loop: only that loop sends.
        async_to_sync(layer.group_send)(group, message)
        return
    future = asyncio.run_coroutine_threadsafe(layer.group_send(group, message), _kept_loop())
    future.result(timeout=SEND_TIMEOUT)


_SCALARS = (str, int, float)


def plain(value: Any) -> Any:
    """`value` as plain data, what a broadcast may carry on every channel layer: dicts with
    string keys, lists, str, int, float, bool and None. A subclass of str, int or float (a
    bot's `Reason`) becomes its base value and a tuple a list; anything else is a TypeError
    here, where the message is built, not a failure inside one layer and not another."""
    kind = type(value)
    if value is None or kind is bool or kind is str or kind is int or kind is float:
        return value
    if kind is dict:
        out = {}
        for key, item in value.items():
            if type(key) is not str:
                raise TypeError(f"a broadcast's keys are strings, not {type(key).__name__}")
            out[key] = plain(item)
        return out
    if kind is list or kind is tuple:
        return [plain(item) for item in value]
    for base in _SCALARS:
        if isinstance(value, base):
            return base(value)
    raise TypeError(f"a broadcast carries plain data only, not {kind.__name__}")


def _send(match_id: int, message: dict[str, Any]) -> bool:
    try:
        layer = get_channel_layer()
        if layer is None:
            return True
        if "events" in message:
            # The events are where a change's words and data come in (a bot's `Reason`):
            # made plain here. The snapshot is the selectors' plain data; the layer checks
            # the whole message as it sends it.
            message = {**message, "events": plain(message["events"])}
        _group_send(layer, group_name(match_id), message)
    except (TypeError, ValueError):
        # Not plain data (every layer refuses it: `ludo_site.layers`): a bug, logged as one.
        # The resync that repairs the room carries nothing but the seq.
        log.exception("broadcast of match %s v%s is not plain data", match_id, message.get("v"))
        metrics.broadcast_failed()
        return False
    except Exception:  # noqa: BLE001 - the database is the truth; retried below
        log.warning("broadcast of match %s v%s failed", match_id, message.get("v"), exc_info=True)
        metrics.broadcast_failed()  # ops (issue 28)
        return False
    return True


def match_changed(
    match_id: int,
    seq: int,
    events: list[dict[str, Any]],
    *,
    view: tuple[dict[str, Any], dict[str, Any]] | None = None,
    at: str = "",
) -> None:
    """Send ``{"type": "match.update", "v": seq, "events": events}`` to the match's group;
    on failure the room is owed a resync (retried in the background), and the turn's clock
    starts again when it goes out.

    With `view` (the match's snapshot after the change, `selectors.snapshot_parts`) the message
    carries it as ``public`` and ``private``, and ``at``, the change's database time: each
    socket then sends its viewer's snapshot without reading the match again (issue 14)."""
    message: dict[str, Any] = {"type": "match.update", "v": seq, "events": events}
    if view is not None:
        message.update(public=view[0], private=view[1], at=at)
    if not _send(match_id, message):
        _restart_clock(match_id, seq)
        _owe(match_id, seq)


# Called with (match id, seq) when a change's news could not be delivered, and again when it
# goes out: `games.services` registers `match_clock_restart` here (it writes the match, and
# the kernel, which broadcasts, is below it: a hook, not an import cycle).
undelivered: list[Callable[[int, int], Any]] = []


def _restart_clock(match_id: int, seq: int) -> None:
    for hook in undelivered:
        try:
            hook(match_id=match_id, seq=seq)
        except Exception:  # noqa: BLE001 - the database is down too: no sweep runs either
            log.warning("match %s: clock not restarted", match_id, exc_info=True)


def _owe(match_id: int, seq: int) -> None:
    global _retrying
    with _owed_lock:
        _owed[match_id] = max(seq, _owed.get(match_id, 0))
        if _retrying is None:
            _retrying = threading.Thread(target=_retry_owed, name="ludo-broadcast", daemon=True)
            _retrying.start()


def owed() -> dict[int, int]:
    """The rooms this process still owes news (match id -> seq)."""
    with _owed_lock:
        return dict(_owed)


def retry_owed() -> int:
    """Send each owed room its resync once; returns how many are still owed."""
    for match_id, seq in owed().items():
        _restart_clock(match_id, seq)  # the player learns of the change only now
        if _send(match_id, {"type": "match.resync", "v": seq}):
            metrics.broadcast_repaired()  # ops (issue 28)
            with _owed_lock:
                if _owed.get(match_id) == seq:
                    del _owed[match_id]
    return len(owed())


def _retry_owed() -> None:
    global _retrying
    pause = threading.Event()
    while True:
        pause.wait(RETRY_EVERY)
        try:
            retry_owed()
        finally:
            connection.close()  # this long-lived thread's: back to the pool between tries
        with _owed_lock:
            if not _owed:
                # Under the lock: a room owed from now on starts a new thread.
                _retrying = None
                log.info("broadcast: every owed room resynced")
                return
