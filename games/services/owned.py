"""The owner's side of a live room (issue 27): matches held in memory and their actions
group-committed.

The process that owns a room (`games.live.owner`) keeps its match (state, seats, revision)
in memory after the first read (`fenced.load`) and applies each player's roll or move to
that copy with the service's own checks (`play.held_action`): no read and no lock per action.
The actions of every room the process owns are then committed together (`commit`: one
transaction, one pipelined round trip for all of them, `fenced.commit_batch`), and each
room's update is broadcast only after that commit.

Whatever the memory cannot decide goes to the service's own path (`intents.match_act`,
which reads the database) and the held copy is dropped, to be read again for the next
action: an intent at another version than the held one (stale, repeated, or the held copy
behind another writer), a refusal of any kind, a change that needs the locked path (the
match ends, a seat changes: `fenced.Fallback`), a lost fence (another writer, e.g. a Celery
timeout, moved the revision) and a failed statement. So an action answered from memory is
one the service would have answered alike, and the database still decides every race.

Times: the held copy's clock is the database's, read with the match, advanced by this
process's monotonic clock (`Held.now`); it is read again at every reload.

PostgreSQL only (`enabled`): SQLite (``make run``) keeps the service's locked path.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import DatabaseError, IntegrityError

from games.match.errors import ServiceError
from games.models import Match, Status
from games.services import fenced
from games.services.intents import Intent, match_act
from games.services.kernel import ActionResult, Change, result_of
from games.services.play import held_action, move_body, roll_body
from ops import metrics


def enabled() -> bool:
    return fenced.enabled() and bool(settings.LUDO_OWNED_ROOMS)


@dataclass
class Held:
    """A match as its owner holds it, with the database clock it was read at."""

    match: Match
    db_at: datetime
    mono_at: float = field(default_factory=time.monotonic)

    def now(self) -> datetime:
        """The database clock, as read with the match and advanced by this process's own."""
        return self.db_at + timedelta(seconds=time.monotonic() - self.mono_at)


@dataclass
class Job:
    """One intent for a held room, and what became of it."""

    match_id: int
    user: Any
    intent: Intent
    result: ActionResult | None = None
    error: BaseException | None = None
    # How it was decided: "memory" (applied to the held copy and batch-committed), "service"
    # (the service's own path), or "" (not yet).
    path: str = ""


@dataclass
class Stats:
    """What this process's owner did (for tests and the benchmark)."""

    batches: int = 0
    batched: int = 0  # actions committed in a batch from memory
    service: int = 0  # actions handed to the service's path
    loads: int = 0  # reads of a match into memory
    fenced: int = 0  # held copies dropped because another writer moved the match


class Owner:
    """The matches this process holds, and the commit of a batch of intents. Not thread-safe:
    one batch at a time (the live owner's writer runs them in turn)."""

    def __init__(self) -> None:
        self.held: dict[int, Held] = {}
        self.stats = Stats()

    def drop(self, match_id: int) -> None:
        self.held.pop(match_id, None)

    def hold(self, match_id: int) -> Held:
        held = self.held.get(match_id)
        if held is None:
            match = fenced.load(match_id)
            held = self.held[match_id] = Held(match, match.db_now)
            self.stats.loads += 1
        return held

    def commit(self, jobs: list[Job]) -> list[Job]:
        """Decide every job: the rolls and moves of held matches applied in memory and
        committed in one batch, the rest (and whatever the memory could not decide) on the
        service's path, in the jobs' order per room. At most one job per match in a batch
        (the caller's writer keeps the rest for the next one)."""
        staged: list[tuple[Job, Change]] = []
        for job in jobs:
            change = self._apply(job)
            if change is not None:
                staged.append((job, change))
        if staged:
            self.stats.batches += 1
            try:
                outcomes = fenced.commit_batch([c for _, c in staged])
            except Exception:  # noqa: BLE001 - each job on the service's path says what it can
                for job, _ in staged:
                    self._service(job)
                return jobs
            for (job, change), outcome in zip(staged, outcomes, strict=True):
                if outcome.written:
                    job.result, job.path = result_of(change), "memory"
                    self.stats.batched += 1
                    metrics.action(job.intent.t)
                    if change.match.status != Status.ACTIVE:
                        self.drop(job.match_id)
                else:
                    if outcome.why == "fenced":
                        self.stats.fenced += 1
                    self._service(job)
        for job in jobs:
            if not job.path:
                self._service(job)
        return jobs

    def _held_for(self, job: Job) -> Held | None:
        """The job's match as held (read once if not), or None with the job's error set: a
        match that cannot be read is the service's to answer."""
        try:
            return self.hold(job.match_id)
        except (ServiceError, DatabaseError) as e:
            job.error, job.path = e, "service"
            return None

    def _apply(self, job: Job) -> Change | None:
        """The job's change applied to the held match, or None: the service decides it."""
        intent = job.intent
        if intent.t not in ("roll", "move") or intent.v is None:
            return None
        held = self._held_for(job)
        if held is None:
            return None
        match = held.match
        if intent.v > match.seq:
            # The client saw a change this copy did not make (a Celery timeout, another
            # writer): read the match again.
            self.drop(job.match_id)
            held = self._held_for(job)
            if held is None:
                return None
            match = held.match
        if match.status != Status.ACTIVE or intent.v != match.seq:
            return None  # stale, repeated, or the held copy is behind: the service reads
        if intent.t == "roll":
            body = roll_body(action_id=intent.id, bonus=intent.bonus, face=intent.face)
        else:
            body = move_body(
                action_id=intent.id,
                pawn=intent.pawn if intent.pawn is not None else -1,
                pawn_corner=intent.corner,
                shield=intent.shield,
            )
        try:
            return held_action(match, held.now(), job.user, intent.v, intent.id, body)
        except ServiceError:
            return None  # the held copy may be partly changed: dropped, the service answers

    def _service(self, job: Job) -> None:
        """The job on the service's own path (it reads the database); the held copy goes."""
        self.drop(job.match_id)
        job.path = "service"
        self.stats.service += 1
        try:
            job.result = match_act(match_id=job.match_id, user=job.user, intent=job.intent)
        except (ServiceError, DatabaseError, IntegrityError) as e:
            job.error = e
        except Exception as e:  # noqa: BLE001 - handed to the socket, which says unavailable
            job.error = e
