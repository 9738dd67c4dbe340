"""One owner per live room across the server processes (issue 27), and its group commit.

Each server process has one `Desk` (per event loop): its inbox on the channel layer, the
rooms whose lease it holds, and its writer.

- **The lease.** A room's owner is the process whose inbox name is stored under the room's key
  in Redis (``SET NX PX``: `LEASE_SECONDS`), renewed every `RENEW_SECONDS` while it holds the
  room and released when its last socket there closes or the match ends. The lease only
  routes: the database decides. Every write of the match checks its ``revision`` (the
  fence), so two processes that both think they own a room can never both write a change.
- **Intents.** A socket's roll or move goes to its room's owner: this process's writer when
  it holds the lease (or claims it now), else the owner's inbox over the channel layer, whose
  answer (done, or the refusal's code and message) comes back to this process's inbox. The
  update itself reaches every process's sockets by the match's group, as before. Other
  intents (undo, resign, reactions) run on the service's locked path wherever the socket is;
  the owner's copy then loses its fence and is read again.
- **A dead owner.** An owner killed with ``kill -9`` stops renewing; its lease lapses within
  `LEASE_SECONDS`, and the next intent of the room, from any process, claims it and the new
  owner reads the match from the database. A forwarded intent that is not answered within
  `FORWARD_TIMEOUT` is sent again (to the new owner, or played here once the lease is ours):
  its action id makes a repeat harmless (the service answers it as already played).
- **The writer.** Intents for held rooms queue; the writer takes every queued one (at most
  one per room: the room's next waits for the commit of its last) after at most
  `BATCH_WAIT` seconds and commits them in one transaction on a database thread
  (`games.services.owned.Owner.commit`). A room's update is broadcast only after its commit.

Without Redis (``make run``, the in-memory layer) the process owns every room, and on SQLite
the service's locked path is used throughout (`owned.enabled`). If Redis is unreachable, the
socket's intent runs on the service's own path (fenced, no owner), as before this module.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import os
import time
from dataclasses import asdict
from typing import Any

from channels.layers import get_channel_layer
from django.conf import settings

from games.live.dbthreads import on_db_thread
from games.live.wire import Intent
from games.match.errors import ServiceError
from games.services import owned
from games.services.intents import match_act
from games.services.kernel import ActionResult

log = logging.getLogger(__name__)

LEASE_SECONDS = 5.0
RENEW_SECONDS = 1.5
FORWARD_TIMEOUT = 2.0
# How long an intent may wait for its owner (taken over included) before it is answered
# `unavailable`.
ACT_DEADLINE = LEASE_SECONDS + 3 * FORWARD_TIMEOUT
BATCH_WAIT = 0.002
# How long a room's owner, once read from Redis, is trusted without another read.
KNOWN_FOR = 1.0

_CLAIM = """
local cur = redis.call('GET', KEYS[1])
if not cur then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return ARGV[1]
end
if cur == ARGV[1] then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return cur
"""
_RENEW = """
local held = {}
for i, key in ipairs(KEYS) do
  if redis.call('GET', key) == ARGV[1] then
    redis.call('PEXPIRE', key, ARGV[2])
    held[#held + 1] = i
  end
end
return held
"""
_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""


class UserRef:
    """A forwarded intent's user: the services read only its ``pk`` (`kernel.acting_seat`)."""

    def __init__(self, pk: int) -> None:
        self.pk = pk


class Unavailable(Exception):
    """The room's owner could not act (it does not answer, or its database failed): nothing
    happened; the socket says ``unavailable``."""


def _prefix() -> str:
    config = settings.CHANNEL_LAYERS.get("default", {}).get("CONFIG", {})
    return f"{config.get('prefix', 'ludo')}:owner"


class Leases:
    """The rooms' leases in Redis (asyncio client, this loop's)."""

    def __init__(self, url: str) -> None:
        import redis.asyncio as aioredis  # only with Redis configured

        self.client: Any = aioredis.Redis.from_url(
            url, socket_timeout=1.0, socket_connect_timeout=1.0
        )
        self.prefix = _prefix()
        self.claim_script = self.client.register_script(_CLAIM)
        self.renew_script = self.client.register_script(_RENEW)
        self.release_script = self.client.register_script(_RELEASE)

    def key(self, match_id: int) -> str:
        return f"{self.prefix}:{match_id}"

    async def claim(self, match_id: int, me: str) -> str:
        """Claim the room if nobody holds it (renewing it if we do): its owner now."""
        ms = int(LEASE_SECONDS * 1000)
        owner = await self.claim_script(keys=[self.key(match_id)], args=[me, ms])
        return owner.decode() if isinstance(owner, bytes) else str(owner)

    async def renew(self, ids: list[int], me: str) -> set[int]:
        if not ids:
            return set()
        ms = int(LEASE_SECONDS * 1000)
        kept = await self.renew_script(keys=[self.key(i) for i in ids], args=[me, ms])
        return {ids[int(n) - 1] for n in kept}

    async def release(self, match_id: int, me: str) -> None:
        await self.release_script(keys=[self.key(match_id)], args=[me])

    async def close(self) -> None:
        with contextlib.suppress(Exception):
            await self.client.aclose()


class Desk:
    """This process's side of room ownership: inbox, leases held, writer (one per loop)."""

    def __init__(self) -> None:
        self.loop = asyncio.get_running_loop()
        self.owner = owned.Owner()
        self.leases: Leases | None = Leases(settings.REDIS_URL) if settings.REDIS_URL else None
        self.me = ""
        self.started: asyncio.Future[None] | None = None
        self.owned: set[int] = set()
        self.known: dict[int, tuple[str, float]] = {}
        self.answers: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self.rids = itertools.count(1)
        self.queue: list[tuple[owned.Job, asyncio.Future[owned.Job]]] = []
        self.wake = asyncio.Event()
        self.tasks: list[asyncio.Task[None]] = []

    # ------------------------------------------------------------------ life

    async def start(self) -> None:
        if self.started is None:
            self.started = asyncio.ensure_future(self._start())
        await asyncio.shield(self.started)

    async def _start(self) -> None:
        layer = get_channel_layer()
        # The process id in the name: an operator (and the chaos test) can tell who owns what.
        self.me = await layer.new_channel(prefix=f"owner.{os.getpid()}.")
        self.tasks = [
            self.loop.create_task(self._write_forever(), name="ludo-owner-writer"),
            self.loop.create_task(self._listen(layer), name="ludo-owner-inbox"),
        ]
        if self.leases is not None:
            self.tasks.append(self.loop.create_task(self._renew_forever(), name="ludo-leases"))

    async def stop(self) -> None:
        for task in self.tasks:
            task.cancel()
        for task in self.tasks:
            with contextlib.suppress(BaseException):
                await task
        if self.leases is not None:
            for match_id in list(self.owned):
                with contextlib.suppress(Exception):
                    await self.leases.release(match_id, self.me)
            await self.leases.close()
        self.owned.clear()

    # ------------------------------------------------------------------ ownership

    async def owner_of(self, match_id: int, *, fresh: bool = False) -> str:
        """The room's owner's inbox (this process's when it holds the lease or claims it)."""
        if match_id in self.owned:
            return self.me
        if self.leases is None:
            self.owned.add(match_id)
            return self.me
        known = self.known.get(match_id)
        if known is not None and not fresh and known[1] > time.monotonic():
            return known[0]
        owner = await self.leases.claim(match_id, self.me)
        if owner == self.me:
            self.owned.add(match_id)
            self.owner.drop(match_id)  # taken (over): read from the database first
        else:
            self.known[match_id] = (owner, time.monotonic() + KNOWN_FOR)
        return owner

    async def release(self, match_id: int) -> None:
        """This process has no socket of the room left: its lease (if held) goes."""
        self.known.pop(match_id, None)
        if match_id not in self.owned:
            return
        self.owned.discard(match_id)
        self.owner.drop(match_id)
        if self.leases is not None:
            with contextlib.suppress(Exception):
                await self.leases.release(match_id, self.me)

    def heard(self, match_id: int, v: int, *, presence: bool = False) -> None:
        """A committed change of the room at `v` (its broadcast): a held copy behind it was
        moved on by another writer and is read again before the next action. Presence news
        (a seat connected, away, back) moves the revision, not `v`: the copy goes too."""
        held = self.owner.held.get(match_id)
        if held is not None and (presence or held.match.seq < v):
            self.owner.drop(match_id)

    async def _renew_forever(self) -> None:
        assert self.leases is not None
        while True:
            await asyncio.sleep(RENEW_SECONDS)
            ids = list(self.owned)
            try:
                kept = await self.leases.renew(ids, self.me)
            except Exception:  # noqa: BLE001 - Redis away: the fence still guards the writes
                log.warning("owner: leases not renewed (Redis unavailable)")
                continue
            for match_id in ids:
                if match_id not in kept:
                    log.info("owner: lease of match %s lost", match_id)
                    self.owned.discard(match_id)
                    self.owner.drop(match_id)

    # ------------------------------------------------------------------ intents

    async def act(self, match_id: int, user: Any, intent: Intent) -> ActionResult | None:
        """The intent played by the room's owner. Raises `ServiceError` as the service does
        (a repeated action comes back as a result with ``repeated``)."""
        await self.start()
        if intent.t not in ("roll", "move"):
            return await self._service(match_id, user, intent)
        give_up = time.monotonic() + ACT_DEADLINE
        fresh = False
        while True:
            try:
                owner = await self.owner_of(match_id, fresh=fresh)
            except Exception:  # noqa: BLE001 - Redis unreachable: no owner, the fence decides
                log.warning("owner: lease of match %s unknown (Redis unavailable)", match_id)
                return await self._service(match_id, user, intent)
            if owner == self.me:
                return await self.write(match_id, user, intent)
            try:
                return await self._forward(owner, match_id, user, intent)
            except TimeoutError:
                if time.monotonic() > give_up:
                    # The socket says `unavailable` (a dependency failed, nothing happened).
                    raise Unavailable("the room's owner does not answer") from None
                log.info("owner: %s did not answer for match %s; asking again", owner, match_id)
                self.known.pop(match_id, None)
                fresh = True
                await asyncio.sleep(0.2)
            except LookupError:  # it no longer owns the room
                self.known.pop(match_id, None)
                fresh = True

    async def _service(self, match_id: int, user: Any, intent: Intent) -> ActionResult | None:
        result = await on_db_thread(match_act)(match_id=match_id, user=user, intent=intent)
        self.owner.drop(match_id)
        return result

    async def write(self, match_id: int, user: Any, intent: Intent) -> ActionResult | None:
        """The intent for a room this process holds: queued for the writer's next batch."""
        job = owned.Job(match_id, user, intent)
        done: asyncio.Future[owned.Job] = self.loop.create_future()
        self.queue.append((job, done))
        self.wake.set()
        await done
        if job.error is not None:
            raise job.error
        return job.result

    async def _write_forever(self) -> None:

        while True:
            await self.wake.wait()
            self.wake.clear()
            if BATCH_WAIT:
                await asyncio.sleep(BATCH_WAIT)
            batch: list[tuple[owned.Job, asyncio.Future[owned.Job]]] = []
            rest: list[tuple[owned.Job, asyncio.Future[owned.Job]]] = []
            rooms: set[int] = set()
            for item in self.queue:
                if item[0].match_id in rooms:
                    rest.append(item)  # this room's next waits for its last one's commit
                else:
                    rooms.add(item[0].match_id)
                    batch.append(item)
            self.queue = rest
            if rest:
                self.wake.set()
            try:
                await on_db_thread(self.owner.commit)([job for job, _ in batch])
            except Exception as e:  # noqa: BLE001 - the batch's jobs learn of it
                log.exception("owner: batch failed")
                for job, _ in batch:
                    self.owner.drop(job.match_id)
                    job.error = job.error or e
            for job, done in batch:
                if not done.done():
                    done.set_result(job)
                if job.result is not None and job.result.snapshot.get("status") not in (
                    None,
                    "active",
                ):
                    await self.release(job.match_id)

    # ------------------------------------------------------------------ across processes

    async def _forward(
        self, owner: str, match_id: int, user: Any, intent: Intent
    ) -> ActionResult | None:
        rid = next(self.rids)
        answer: asyncio.Future[dict[str, Any]] = self.loop.create_future()
        self.answers[rid] = answer
        try:
            await get_channel_layer().send(
                owner,
                {
                    "type": "owner.intent",
                    "match_id": match_id,
                    "user_id": user.pk,
                    "intent": asdict(intent),
                    "reply": self.me,
                    "rid": rid,
                },
            )
            d = await asyncio.wait_for(answer, FORWARD_TIMEOUT)
        finally:
            self.answers.pop(rid, None)
        if d.get("moved"):
            raise LookupError(owner)
        if d.get("unavailable"):
            raise Unavailable(str(d.get("message", "")))
        if d.get("code"):
            raise ServiceError(str(d["code"]), str(d.get("message", "")))
        if d.get("repeated"):
            return ActionResult(match_id, int(d.get("seq", 0)), [], {}, repeated=True)
        return None

    async def _listen(self, layer: Any) -> None:
        while True:
            try:
                message = await layer.receive(self.me)
            except asyncio.CancelledError:
                raise
            except Exception:  # noqa: BLE001 - Redis blip: senders time out and ask again
                await asyncio.sleep(0.5)
                continue
            kind = message.get("type")
            if kind == "owner.answer":
                answer = self.answers.get(int(message.get("rid", 0)))
                if answer is not None and not answer.done():
                    answer.set_result(message)
            elif kind == "owner.intent":
                self.loop.create_task(self._answer(layer, message))

    async def _answer(self, layer: Any, message: dict[str, Any]) -> None:
        match_id = int(message["match_id"])
        reply: dict[str, Any] = {"type": "owner.answer", "rid": message.get("rid")}
        if match_id not in self.owned:
            # Released (its last socket here closed) or lost: the sender claims it or finds
            # the new owner. (Not claimed here: a process holds only rooms it has sockets of.)
            reply["moved"] = True
        else:
            intent = Intent(**message["intent"])
            try:
                result = await self.write(match_id, UserRef(int(message["user_id"])), intent)
                if result is not None and result.repeated:
                    reply.update(repeated=True, seq=result.seq)
            except ServiceError as e:
                reply.update(code=e.code, message=e.message)
            except Exception:  # noqa: BLE001 - the sender says unavailable
                log.exception("owner: forwarded %s failed", intent.t)
                reply.update(unavailable=True, message="The owner cannot act just now")
        with contextlib.suppress(Exception):
            await layer.send(str(message["reply"]), reply)


_desks: dict[asyncio.AbstractEventLoop, Desk] = {}


def desk() -> Desk:
    """This loop's desk (a server process has one loop; tests make one per test)."""
    loop = asyncio.get_running_loop()
    found = _desks.get(loop)
    if found is None:
        for old in [lp for lp in _desks if lp.is_closed()]:
            del _desks[old]
        found = _desks[loop] = Desk()
    return found


async def reset() -> None:
    """Stop this loop's desk (tests: nothing held outlives a test)."""
    found = _desks.pop(asyncio.get_running_loop(), None)
    if found is not None:
        await found.stop()


def enabled() -> bool:
    return owned.enabled()
