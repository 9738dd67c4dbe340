"""The match clocks: one sweep over due deadlines, run by Celery beat every second or, on the
embedded default (no Redis), by a thread inside the server process.

A match's ``turn_deadline`` (database clock) is when its player to act runs out of time, or,
for a bot seat or a lone legal move, when that move is played. The sweep locks each due match
with ``FOR UPDATE SKIP LOCKED`` (so sweeps running side by side split the work instead of
queueing), and hands it to the one service that decides what expiry means
(`games.services.match_timeout` or `bot_act`); those re-check ``turn_seq`` and do nothing if
the turn moved on, so a late or repeated sweep is harmless. Disconnect grace runs the same
way over seats (`sweep_grace`); the computer playing for a player who is away
is an ordinary deadline, as for a bot.

Durations are the rules' (docs/rules.md, "Clocks and absent players"), multiplied by
``LUDO_TIME_SCALE`` (settings or environment, default 1) so tests can run a 20 s clock in a
fraction of a second.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Callable, Iterator

from django.db import close_old_connections, connection, connections, transaction
from django.db.models import Case, DateTimeField, F, Q, When
from django.db.models.functions import Now

from games import services
from games.clocks import beat, timing
from games.engine import RULESETS
from games.match import due
from games.match.due import due_match_ids
from games.match.errors import ServiceError
from games.models import Match, Mode, Seat, Status
from games.services import fenced
from ranked import matchmaking

log = logging.getLogger(__name__)

BATCH = 200  # due matches taken per sweep; the rest wait a second


# ---------------------------------------------------------------------------- the sweep


ANCHOR_CHECK_EVERY = 60.0  # seconds between looks for running chains to anchor
ANCHOR_EVERY = 300  # a running match's chain is anchored into the global one this often
_anchor_looked = -ANCHOR_CHECK_EVERY


def sweep(*, batch: int = BATCH) -> int:
    """Act on every due deadline once; returns how many matches or seats were acted on.

    The due deadlines come from the narrow ``games_matchdeadline`` table (`due_match_ids`),
    so the sweep costs what is due, and the match row's own UPDATE stays HOT. Once a minute
    it also anchors the audit chains of running matches that moved on (every five minutes
    each), so a chain cut back mid-match is caught by `verify_audit`.

    The due turns are acted on by one sweep at a time per database (`alone`): beat sends one a
    second, and two running side by side read the same due matches and raced each other for
    every step. A sweep that finds another acting leaves them to it (each step re-reads its
    match, so one read as due just before another sweep made it is no step at all)."""
    ids = due_match_ids(batch=batch)
    acted = 0
    if ids:
        with alone() as first:
            if first:
                acted = sum(expire_turn(match_id) for match_id in ids)
    anchor_running_chains()
    return acted + sweep_grace(batch=batch)


# The advisory lock a sweep holds on PostgreSQL (an arbitrary number of this site's own).
SWEEP_LOCK = 0x6C75646F


@contextlib.contextmanager
def alone() -> Iterator[bool]:
    """True when no other sweep runs on this database, and none starts until the block ends
    (PostgreSQL's session advisory lock; released too if the connection dies). SQLite's
    one process has one clock thread: always True."""
    if connection.vendor != "postgresql":
        yield True
        return
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_try_advisory_lock(%s)", [SWEEP_LOCK])
        got = bool(cursor.fetchone()[0])
    try:
        yield got
    finally:
        if got:
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_advisory_unlock(%s)", [SWEEP_LOCK])


def anchor_running_chains() -> int:
    """Anchor running matches' chains, at most once a minute per process."""
    global _anchor_looked
    now = time.monotonic()
    if now - _anchor_looked < ANCHOR_CHECK_EVERY:
        return 0
    _anchor_looked = now
    return services.anchor_running_chains(every=ANCHOR_EVERY)


def expire_turn(match_id: int) -> int:
    """Let the services act on one due match. On PostgreSQL the service reads it without a
    lock and writes in one fenced statement (`services.match_timeout`): two sweeps on the same
    match cannot both write, the second finds its turn gone, and a match whose row another
    transaction holds is skipped, not waited for. Elsewhere (SQLite) the match is locked
    first, skipped if another sweep holds it."""
    if fenced.enabled():
        try:
            done = services.match_timeout(match_id=match_id, turn_seq=None, skip_locked=True)
            return int(done is not None)
        except ServiceError as e:
            log.info("clock: match %s: %s", match_id, e)
            return 0
    with transaction.atomic():
        match = (
            Match.objects.select_for_update(skip_locked=True)
            .filter(pk=match_id, status=Status.ACTIVE, turn_deadline__lte=Now())
            .first()
        )
        if match is None:
            return 0  # another sweep has it, or the turn moved on since the query
        try:
            # The one service that decides: a bot's step (or the computer's, for a player
            # away), a lone move played, or a missed turn (auto-move, or forfeit after too
            # many).
            services.match_timeout(match_id=match.pk, turn_seq=match.turn_seq)
        except ServiceError as e:
            # Nothing was written (the service rolled back its savepoint): a match that
            # ended or moved on in between. Logged so a stuck clock shows up.
            log.info("clock: match %s turn %s: %s", match.pk, match.turn_seq, e)
            return 0
    return 1


# ---------------------------------------------------------------------------- the disconnect grace


def due_graces(*, batch: int) -> list[tuple[int, int]]:
    """(match id, corner) of the seats whose grace ran out, by the database clock: a seat of an
    active online match whose last connection closed its preset's grace ago (counted from the
    start at the earliest), not yet away or out. One query for every preset (issue 27: one per
    preset every second), each seat's cutoff chosen by its match's preset."""
    cutoffs = [
        When(match__ruleset=name, then=Now() - timing.scaled(rules.disconnect_seconds))
        for name, rules in RULESETS.items()
        if rules.on_disconnect != "none" and rules.disconnect_seconds is not None
    ]
    if not cutoffs:
        return []
    cutoff = Case(*cutoffs, default=None, output_field=DateTimeField())
    return list(
        Seat.objects.filter(
            match__status=Status.ACTIVE,
            connected=False,
            away=False,
            left=False,
            disconnected_at__isnull=False,
        )
        .filter(Q(bot__isnull=True) | Q(bot=""))
        .exclude(match__mode=Mode.LOCAL)
        .alias(cutoff=cutoff)
        .filter(disconnected_at__lte=F("cutoff"), match__started_at__lte=F("cutoff"))
        .order_by("disconnected_at")
        .values_list("match_id", "corner")[:batch]
    )


def sweep_grace(*, batch: int) -> int:
    """Act on every grace that ran out; returns how many seats were acted on."""
    acted = 0
    for match_id, corner in due_graces(batch=batch):
        with transaction.atomic():
            # Like the turn sweep: a match another sweep holds is left to it.
            locked = list(
                Match.objects.select_for_update(skip_locked=True)
                .filter(pk=match_id, status=Status.ACTIVE)
                .values_list("pk", flat=True)
            )
            if not locked:
                continue
            try:
                outcome = services.seat_grace_expired(match_id=match_id, corner=corner)
            except ServiceError as e:
                log.info("grace: match %s corner %s: %s", match_id, corner, e)
                continue
        if outcome is not None:
            acted += 1
    return acted


# ---------------------------------------------------------------------------- in-process


# Sweeps of apps above this one (the tournaments' tick) that the in-process clock runs too,
# registered by their app at start-up (with Celery, beat sends their own tasks).
EXTRA_SWEEPS: list[Callable[[], object]] = []


def also_sweep(run: Callable[[], object]) -> None:
    """Have the in-process clock run `run` at each of its ticks."""
    if run not in EXTRA_SWEEPS:
        EXTRA_SWEEPS.append(run)


# After a failed sweep (the database away, a connection it ended) the clock looks again soon,
# not at its next tick: RETRY_FIRST seconds, doubled after each failure in a row, up to
# RETRY_MOST (or its own tick, if shorter). Each failure is logged with the wait.
RETRY_FIRST = 0.1
RETRY_MOST = 5.0


def retry_after(failures: int, every: float) -> float:
    """Seconds to wait after `failures` failed sweeps in a row (1 or more)."""
    doubled = RETRY_FIRST * 2 ** min(failures - 1, 16)  # bounded: no float overflow
    return min(doubled, RETRY_MOST, every)


# Seconds before a past deadline that a sweep did not act on is looked at again.
PAST_DUE_AGAIN = 0.25


class InProcessClock:
    """A daemon thread that sweeps the clocks: at the next deadline it knows of, when a
    change in this process sets one (`poke`), and at least every `every` seconds (the
    disconnect grace, the quick-match queues, and deadlines set by other processes). A sweep
    that fails is tried again after a short back-off (`retry_after`), not a whole tick."""

    def __init__(self, every: float = 1.0) -> None:
        self.every = every
        self.stopped = threading.Event()
        self.wake = threading.Event()
        self.thread = threading.Thread(target=self.run, name="ludo-clock", daemon=True)
        self.swept = 0  # sweeps that ran to the end
        self.failures = 0  # sweeps that failed since the last one that ran to the end

    def start(self) -> InProcessClock:
        timing.listen(self.wake)
        self.thread.start()
        return self

    def stop(self, timeout: float = 5.0) -> None:
        self.stopped.set()
        self.wake.set()
        self.thread.join(timeout)
        timing.stop_listening(self.wake)

    def run(self) -> None:
        wait = 0.0  # deadlines set before it started are looked at once, at once
        while not self.stopped.is_set():
            self.wake.wait(wait)
            self.wake.clear()
            if self.stopped.is_set():
                break
            wait = self.every
            try:
                close_old_connections()
                acted = sweep()
                matchmaking.sweep_all()  # the quick-match queues
                for extra in EXTRA_SWEEPS:
                    extra()
                soon = seconds_to_next_deadline()
                if soon is not None and (soon > 0 or acted):
                    wait = min(self.every, max(soon, 0.0))
                elif soon is not None:
                    # A deadline already past that this sweep did not act on: it fell due
                    # between the sweep and this read (a short turn on a slow machine), or
                    # another sweep holds the match. Looked at again shortly, not after a
                    # whole tick, and not in a busy loop.
                    wait = min(self.every, PAST_DUE_AGAIN)
                self.swept += 1
                self.failures = 0
            except Exception:  # noqa: BLE001 - a clock must keep ticking; it retries soon
                self.failures += 1
                wait = retry_after(self.failures, self.every)
                log.exception(
                    "clock: sweep failed (%d in a row), trying again in %.1f s", self.failures, wait
                )
                # Its connection may be the cause (one the database ended, left in a failed
                # transaction): the retry opens another.
                with contextlib.suppress(Exception):
                    connections.close_all()
            finally:
                close_old_connections()
        connections.close_all()  # this thread's own: a stopped clock holds no connection


def seconds_to_next_deadline() -> float | None:
    """Seconds until the earliest turn deadline of an active match (negative when one is
    past), or None when no match has one (read from the deadline table)."""
    return due.seconds_to_next_deadline()


_running: InProcessClock | None = None
_lock = threading.Lock()


def start_in_process(every: float = 1.0) -> InProcessClock:
    """Start the in-process clock once per process (later calls return the running one), and
    beside it the rest of Celery beat's schedule (`beat`): the embedded default is the whole
    site."""
    global _running
    with _lock:
        if _running is None:
            _running = InProcessClock(every).start()
            log.info("clock: in-process sweep every %.1f s", every)
            beat.start_in_process()
        return _running
