"""Quick match: players wait in a queue and the sweep seats them together.

Ranked queues (accounts only) pair players by rating: each waiting player has a window of
rating ordinals (``mu - 3 sigma``) around their own, ``RANKED_WINDOW_START`` wide on each side
when they join and widening by ``RANKED_WINDOW_GROWTH`` per second of waiting, without end, so
nobody waits forever when a partner is there. The sweep takes the longest waiter first (the
widest window) and seats the nearest ratings inside that window with them.

Casual queues (anyone, guests too, friendly mode) pair whoever is waiting; when nobody else is
free within ``QUICK_MATCH_BOT_AFTER`` seconds, a labelled bot (``QUICK_MATCH_BOT_LEVEL``) takes
the empty seats.

Concurrency: the sweep locks the waiting rows with ``FOR UPDATE SKIP LOCKED`` (sweeps running
side by side share the rows out instead of queueing) and then the players' user rows with
``SKIP LOCKED`` too (a player joining or cancelling at that moment holds their row: they wait
for the next sweep). Joining and cancelling lock the user row and then the entry, the order
the match services use, so nothing deadlocks; a player waits in one queue at most (a partial
unique constraint) and the match services refuse a second active ranked match, so nobody ends
in two matches and nobody meets themselves.

The sweep runs after every join, from Celery beat (`ranked.tasks.sweep_queues`), and from the
in-process clock (`games.clocks.sweeps`) when there is no Celery.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import OperationalError, connection, transaction
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from accounts.models import is_guest
from audit import actions
from audit import services as audit
from audit.clock import db_now
from fairplay import reliability
from fairplay import selectors as fair_selectors
from games import services
from games.engine import RULESETS
from games.match.errors import ServiceError, said
from games.match.selectors import ranked_seat_in_play
from games.models import Match, Status

from . import holds
from .models import Entry, Queue, Rating
from .ratings import MU, QUEUE_RULES, SIGMA, ordinal

log = logging.getLogger(__name__)

QUEUES: tuple[str, ...] = tuple(str(q) for q in Queue)


# ---------------------------------------------------------------------------- settings


def window_start() -> float:
    return settings.RANKED_WINDOW_START


def window_growth() -> float:
    return settings.RANKED_WINDOW_GROWTH


def bot_after() -> float:
    return settings.QUICK_MATCH_BOT_AFTER


def bot_level() -> str:
    return str(settings.QUICK_MATCH_BOT_LEVEL)


def window(waited: float) -> float:
    """How far (in rating ordinal, each side) a ranked player accepts after `waited` seconds."""
    return window_start() + window_growth() * max(0.0, waited)


def lobby_group(user_id: int) -> str:
    """The channel group of one account's lobby sockets (every tab)."""
    return f"lobby.{user_id}"


# ---------------------------------------------------------------------------- joining


class QueueError(ServiceError):
    """A refused join or cancel; ``code`` as in `games.match.errors`, ``message`` for a person
    (and ``suspended``: a moderator's ranked suspension; ``unreliable``: reliability below
    ``RANKED_MIN_RELIABILITY``; ``too_new`` and ``held``: `ranked.holds`, sanction
    evasion)."""

    codes = ServiceError.codes | {"suspended", "unreliable", "too_new", "held"}


# Said to a guest (or a visitor) who asks for a ranked queue.
ACCOUNTS_ONLY = said(
    gettext_lazy("Ranked play is for accounts: sign up or sign in to join a ranked queue")
)


def _check_queue(queue: str) -> str:
    if queue not in QUEUES:
        names = ", ".join(QUEUES)
        raise QueueError(
            "bad_request",
            said(
                gettext_lazy("There is no queue %(queue)s: choose one of %(names)s"),
                queue=repr(queue),
                names=names,
            ),
        )
    return queue


def _active_ranked(user: Any) -> Match | None:
    seat = ranked_seat_in_play(user)
    return seat.match if seat else None


def current_ordinal(user: Any, queue: str) -> float:
    row = Rating.objects.filter(user_id=user.pk, queue=queue).first()
    return row.ordinal if row else ordinal(MU, SIGMA)


def join(*, user: Any, queue: str, ranked: bool = True, ip: str | None = None) -> Entry:
    """Put `user` in a queue (leaving any other queue they wait in) and try to match at once.
    Refused for guests in ranked queues and for an account in an active ranked match."""
    _check_queue(queue)
    if not getattr(user, "is_authenticated", False):
        raise QueueError(
            "forbidden", said(gettext_lazy("Open the page again to get a player name first"))
        )
    if ranked and is_guest(user):
        raise QueueError("forbidden", ACCOUNTS_ONLY)
    if ranked:
        try:
            holds.check(user, ip)  # a new hold is kept though the join is refused
        except holds.HoldError as e:
            raise QueueError(e.code, e.said) from e
    with transaction.atomic():
        me = (
            get_user_model()
            .objects.select_for_update(no_key=True)
            .filter(pk=user.pk)
            .annotate(suspended=fair_selectors.is_suspended())
            .first()
        )
        if ranked:
            _check_fair_play(user, suspended=bool(me is not None and me.suspended))
            busy = _active_ranked(user)
            if busy is not None:
                raise QueueError(
                    "ranked_busy",
                    said(
                        gettext_lazy(
                            "You are already in a ranked match (room %(code)s): finish it first"
                        ),
                        code=busy.code,
                    ),
                )
        for old in Entry.objects.select_for_update().filter(user=user, state=Entry.State.WAITING):
            _end(old, Entry.State.CANCELLED)
        entry = Entry.objects.create(
            user=user,
            queue=queue,
            ranked=ranked,
            ordinal=current_ordinal(user, queue) if ranked else 0.0,
            ip=ip,
            joined_at=db_now(),
        )
        audit.record(
            action=actions.QUEUE_JOINED,
            actor=user,
            ip=ip,
            extra={"queue": queue, "ranked": ranked, "ordinal": round(entry.ordinal, 6)},
        )
    try:
        sweep(queue=queue, ranked=ranked)
    except OperationalError:
        # SQLite refuses a second writer at once (PostgreSQL only waits): the player is in the
        # queue all the same, and the next sweep of the clock matches them.
        log.warning("quick match: the sweep after %s joined failed; the clock's will do", user)
    entry.refresh_from_db()
    return entry


def _check_fair_play(user: Any, *, suspended: bool) -> None:
    """Ranked entry conditions (fairplay): no suspension in force (read under the user's
    lock), reliability high enough."""
    held = fair_selectors.suspension(user) if suspended else None
    if held is not None:
        until = held.expires_at.strftime("%Y-%m-%d %H:%M UTC") if held.expires_at else ""
        raise QueueError(
            "suspended",
            _("A moderator suspended you from ranked play until %(until)s: %(reason)s")
            % {"until": until, "reason": held.reason},
        )
    record = reliability.record(user.pk)
    if record.below_ranked:
        raise QueueError(
            "unreliable",
            _(
                "Your reliability is %(figure)s: ranked play needs %(least)d%%. Finish your "
                "casual matches to raise it."
            )
            % {"figure": record.shown, "least": reliability.ranked_min()},
        )


def cancel(*, user: Any, ip: str | None = None) -> Entry | None:
    """Leave the queue. Returns the entry as it ended: cancelled, or matched already (too late
    to cancel: the match is made), or None when the user was not waiting."""
    with transaction.atomic():
        get_user_model().objects.select_for_update(no_key=True).filter(pk=user.pk).first()
        entry = (
            Entry.objects.select_for_update()
            .filter(user_id=user.pk, state=Entry.State.WAITING)
            .first()
        )
        if entry is None:
            return latest(user)
        _end(entry, Entry.State.CANCELLED)
        audit.record(
            action=actions.QUEUE_LEFT,
            actor=user,
            ip=ip,
            extra={"queue": entry.queue, "ranked": entry.ranked},
        )
    return entry


def _end(entry: Entry, state: str, match: Match | None = None) -> None:
    entry.state = state
    entry.match = match
    entry.ended_at = db_now()
    entry.save(update_fields=["state", "match", "ended_at"])


def latest(user: Any) -> Entry | None:
    return Entry.objects.filter(user_id=user.pk).select_related("match").order_by("-pk").first()


# ---------------------------------------------------------------------------- status


def status(user: Any) -> dict[str, Any]:
    """What the queue page shows: waiting (since when, the window), matched (the room), or
    idle."""
    entry = latest(user)
    if entry is not None and entry.state == Entry.State.WAITING:
        waited = max(0.0, (db_now() - entry.joined_at).total_seconds())
        return {
            "state": "waiting",
            "queue": entry.queue,
            "label": str(Queue(entry.queue).label),
            "ranked": entry.ranked,
            "waited": round(waited, 1),
            "window": round(window(waited), 1) if entry.ranked else None,
            "bot_after": None if entry.ranked else bot_after(),
        }
    if entry is not None and entry.state == Entry.State.MATCHED and entry.match is not None:
        match = entry.match
        if match.status in (Status.WAITING, Status.ACTIVE):
            return {
                "state": "matched",
                "queue": entry.queue,
                "ranked": entry.ranked,
                "code": match.code,
                "url": f"/r/{match.code}/",
            }
    busy = _active_ranked(user)
    if busy is not None:
        return {
            "state": "matched",
            "queue": None,
            "ranked": True,
            "code": busy.code,
            "url": f"/r/{busy.code}/",
        }
    return {"state": "idle"}


# ---------------------------------------------------------------------------- the sweep


@dataclass(frozen=True)
class Waiting:
    """A waiting entry as the sweep sees it."""

    entry: Entry
    waited: float
    poor: bool = False  # poor reliability (fairplay.reliability): meets the poor first

    @property
    def reach(self) -> float:
        return window(self.waited)


def groups(
    waiting: Sequence[Waiting],
    size: int,
    *,
    ranked: bool,
    blocks: Collection[tuple[int, int]] = (),
) -> list[list[Waiting]]:
    """Who plays whom: longest waiter first, each with the nearest ratings within their window
    (the longest waiter's window is the widest); one who finds too few stays free to join a
    later waiter's table. Casual queues take whoever waits longest, and when the longest
    waiter has waited `bot_after` seconds, the players there are (fewer than a table) sit down
    with bots in the empty seats: a group shorter than `size`. Within the reach, players of
    the anchor's reliability (poor or not, `Waiting.poor`) come first, so the poor meet each
    other first.

    Blocks (`blocks`: (blocker, blocked) user ids) keep a pair apart and change nobody else's
    match: a group is chosen as if there were no blocks, and when it holds a blocked pair,
    whoever made the block sits this sweep out (the next sweep finds them their next natural
    match; never a weaker player out of turn), and the group is chosen again without them."""
    order = sorted(waiting, key=lambda w: (w.entry.joined_at, w.entry.pk))
    blocked: dict[int, set[int]] = {}
    for blocker, other in blocks:
        blocked.setdefault(blocker, set()).add(other)
    made: list[list[Waiting]] = []
    taken: set[int] = set()
    resting: set[int] = set()  # user ids: blocked someone their group held
    for anchor in order:
        while anchor.entry.pk not in taken and anchor.entry.user_id not in resting:
            group = _group(anchor, order, size, ranked=ranked, taken=taken, resting=resting)
            if group is None:
                break  # nobody near enough yet: a later waiter may take them in
            users = {w.entry.user_id for w in group}
            out = {u for u in users if blocked.get(u, set()) & (users - {u})}
            if not out:
                made.append(group)
                taken.update(w.entry.pk for w in group)
            resting |= out
    return made


def _group(
    anchor: Waiting,
    order: Sequence[Waiting],
    size: int,
    *,
    ranked: bool,
    taken: set[int],
    resting: set[int],
) -> list[Waiting] | None:
    """The anchor's table among those still free, blocks aside (see `groups`)."""
    free = [
        w
        for w in order
        if w.entry.pk not in taken and w.entry.user_id not in resting and w is not anchor
    ]
    if ranked:
        reach, at = anchor.reach, anchor.entry.ordinal
        near = sorted(
            (w for w in free if abs(w.entry.ordinal - at) <= reach),
            key=lambda w: (w.poor != anchor.poor, abs(w.entry.ordinal - at)),
        )
    else:
        near = sorted(free, key=lambda w: w.poor != anchor.poor)  # stable
    chosen = near[: size - 1]
    if len(chosen) >= size - 1 or (not ranked and anchor.waited >= bot_after()):
        return [anchor, *chosen]  # short of a table: bots fill the rest
    return None


def sweep_all() -> int:
    """Sweep every queue, ranked and casual; returns how many matches were made."""
    busy = set(
        Entry.objects.filter(state=Entry.State.WAITING).values_list("queue", "ranked").distinct()
    )
    return sum(sweep(queue=q, ranked=r) for q, r in sorted(busy) if q in QUEUES)


def sweep(*, queue: str, ranked: bool) -> int:
    """Match whoever can be matched in one queue now; returns how many matches were made."""
    if connection.vendor == "sqlite":
        # One writer at a time there: sweeps of one process take turns instead of failing.
        with _sqlite_sweep:
            return _sweep(queue, ranked)
    return _sweep(queue, ranked)


_sqlite_sweep = threading.Lock()


def _sweep(queue: str, ranked: bool) -> int:
    rules, size = QUEUE_RULES[queue]
    made: list[tuple[Match, list[int]]] = []
    with transaction.atomic():
        # of=("self",): the entries only. With select_related("user") a plain FOR UPDATE
        # locked the players' rows too, which a tournament join's foreign-key check waits
        # for at its COMMIT while it holds the audit chain this sweep then asks for.
        rows = list(
            Entry.objects.select_for_update(skip_locked=True, of=("self",))
            .filter(queue=queue, ranked=ranked, state=Entry.State.WAITING)
            .select_related("user")
            .order_by("joined_at", "pk")
        )
        if not rows:
            return 0
        now = db_now()
        ids = [e.user_id for e in rows]
        # Fair play (fairplay): blocks keep pairs apart (the blocker waits, `groups`);
        # reliability orders the choice, so it is read only when there is a choice (more
        # waiting than one table).
        poor = reliability.poor_players(ids) if len(rows) > size else set()
        blocks = fair_selectors.blocks_among(ids)
        waiting = [Waiting(e, (now - e.joined_at).total_seconds(), e.user_id in poor) for e in rows]
        for group in groups(waiting, size, ranked=ranked, blocks=blocks):
            match = _seat(group, rules=rules, size=size, ranked=ranked)
            if match is not None:
                made.append((match, [w.entry.user_id for w in group]))
                transaction.on_commit(partial(_tell_matched, match, made[-1][1]))
    return len(made)


def _seat(group: list[Waiting], *, rules: str, size: int, ranked: bool) -> Match | None:
    """Create the group's match, in a savepoint: a refusal (a player now busy) leaves them
    waiting and the rest of the sweep goes on."""
    entries = [w.entry for w in group]
    ids = [e.user_id for e in entries]
    assert len(set(ids)) == len(ids), "one player twice in a group"
    User = get_user_model()
    try:
        with transaction.atomic():
            locked = list(
                User.objects.select_for_update(skip_locked=True, no_key=True)
                .filter(pk__in=ids)
                .order_by("pk")
            )
            if len(locked) != len(ids):
                return None  # someone is joining or cancelling right now: next sweep
            # Under the players' locks (fairplay.services takes them too): a block or a
            # suspension committed since the sweep read them still holds.
            if fair_selectors.blocked_pairs(ids):
                return None
            held = fair_selectors.suspended(ids) if ranked else set()
            if held:
                for entry in entries:
                    if entry.user_id in held:
                        _end(entry, Entry.State.CANCELLED)  # out of the queue: told on join
                return None
            users = {u.pk: u for u in locked}
            corners_needed = size - len(entries)
            bots: dict[int, str] = {}
            if corners_needed:
                corners = RULESETS[rules].seats_for(size)
                bots = {c: bot_level() for c in corners[len(entries) :]}
            first = entries[0]
            match = services.match_create(
                ruleset=rules,
                players=size,
                mode="ranked" if ranked else "friendly",
                host=users[first.user_id],
                bots=bots or None,
                ip=first.ip,
                paired=[users[e.user_id] for e in entries] if ranked else None,
            )
            for entry in entries[1:]:
                services.match_join(code=match.code, user=users[entry.user_id], ip=entry.ip)
            for entry in entries:
                _end(entry, Entry.State.MATCHED, match)
            audit.record(
                action=actions.QUEUE_MATCHED,
                obj=match,
                extra={
                    "code": match.code,
                    "queue": first.queue,
                    "ranked": ranked,
                    "users": ids,
                    "ordinals": [round(e.ordinal, 6) for e in entries],
                    "waited": [round(w.waited, 1) for w in group],
                    "bots": len(bots),
                },
            )
            return match
    except ServiceError as e:
        log.info("quick match: group %s not seated: %s", ids, e)
        if e.code in ("ranked_busy", "forbidden"):
            _drop_busy(entries)
        return None


def _drop_busy(entries: Iterable[Entry]) -> None:
    """Cancel the waiting entries of players the services refused (already in a ranked match,
    or no longer an account), so they do not block their group on every sweep."""
    for entry in entries:
        user = entry.user
        if is_guest(user) or _active_ranked(user) is not None:
            _end(entry, Entry.State.CANCELLED)


def _tell_matched(match: Match, user_ids: Iterable[int]) -> None:
    """Send each matched player's lobby sockets to the room (after commit; best effort, the
    page polls the status too)."""
    try:
        layer = get_channel_layer()
        if layer is None:
            return
        send = async_to_sync(layer.group_send)
        for user_id in user_ids:
            send(
                lobby_group(user_id),
                {"type": "lobby.matched", "code": match.code, "url": f"/r/{match.code}/"},
            )
    except Exception:  # noqa: BLE001 - the status endpoint is the truth; pages poll it
        log.exception("lobby: telling match %s failed", match.code)
