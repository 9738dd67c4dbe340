"""The only writer of tournament rows: creating an event, entering and withdrawing, the
clock's tick (start, pair, next round, finish), a game's result, and the published
standings. The games are ranked matches opened through `games.services` (``match_create``
with the paired accounts, then ``match_join``): the same rules, clocks, forfeits, dice proof
and rating as the ranked queues; this module never writes a match row.

A match's end reaches `game_ended` from a ``post_save`` receiver (`tournaments.apps`) after
its transaction commits; a moderator's void or its undoing arrives the same way, and the
standings are published again (audited).
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Iterable, Sequence
from datetime import datetime, timedelta
from functools import partial
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils.translation import gettext as _

from accounts.models import is_guest
from audit import actions
from audit import services as audit
from audit.clock import db_now
from fairplay import selectors as fairplay_selectors
from games import services as match_services
from games.clocks.timing import scaled
from games.match.errors import ServiceError
from games.models import Match, Status
from ranked.models import Rating
from ranked.ratings import MU, QUEUE_RULES, SIGMA, ordinal

from . import pairing, selectors
from .models import Game, Kind, Player, State, Tournament

log = logging.getLogger(__name__)

CODE_ALPHABET = "23456789ABCDEFGHJKLMNPQRSTUVWXYZ"


class TournamentError(ServiceError):
    """A refused entry, withdrawal or creation; ``code`` as in `games.match.errors`."""


def table_size(t: Tournament) -> int:
    return QUEUE_RULES[t.queue][1]


def ends_at(t: Tournament) -> datetime:
    """An arena's end (its window, scaled by LUDO_TIME_SCALE like every duration)."""
    return t.starts_at + scaled(t.minutes * 60)


def round_deadline(t: Tournament) -> datetime | None:
    if t.round_started_at is None:
        return None
    return t.round_started_at + scaled(t.minutes * 60)


# ---------------------------------------------------------------------------- creating


def _new_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(6))


def create(
    *,
    name: str,
    kind: str,
    queue: str,
    starts_at: datetime,
    minutes: int,
    rounds: int = 0,
    min_games: int = 0,
    min_rating: float | None = None,
    max_rating: float | None = None,
    min_account_days: int = 0,
    schedule: str = "",
    created_by: Any = None,
) -> Tournament:
    """Open an event (a moderator's, or the schedule's). Audited."""
    t = Tournament(
        code=_new_code(),
        name=name,
        kind=kind,
        queue=queue,
        starts_at=starts_at,
        minutes=minutes,
        rounds=rounds,
        min_games=min_games,
        min_rating=min_rating,
        max_rating=max_rating,
        min_account_days=min_account_days,
        schedule=schedule,
        created_by=created_by,
    )
    check(t)
    with transaction.atomic():
        t.save()
        record_created(t)
    return t


def check(t: Tournament) -> None:
    """Refuse an event that cannot be played (the admin's form shows these too)."""
    if t.kind not in Kind.values:
        raise TournamentError("bad_request", _("There is no tournament kind %r") % t.kind)
    if t.queue not in QUEUE_RULES:
        raise TournamentError("bad_request", _("There is no ranked queue %r") % t.queue)
    if t.kind == Kind.SWISS and t.rounds < 1:
        raise TournamentError("bad_request", _("A Swiss event needs at least one round"))
    if t.minutes < 1:
        raise TournamentError("bad_request", _("An event lasts at least one minute"))
    if t.min_rating is not None and t.max_rating is not None and t.min_rating > t.max_rating:
        raise TournamentError("bad_request", _("The lowest rating is above the highest"))


def record_created(t: Tournament) -> None:
    audit.record(
        action=actions.TOURNAMENT_CREATED,
        actor=t.created_by,
        obj=t,
        extra={
            "code": t.code,
            "kind": t.kind,
            "queue": t.queue,
            "starts_at": t.starts_at.isoformat(),
            "minutes": t.minutes,
            "rounds": t.rounds,
            "schedule": t.schedule,
        },
    )


# ---------------------------------------------------------------------------- entering


def _rating(user: Any, queue: str) -> Rating | None:
    return Rating.objects.filter(user_id=user.pk, queue=queue).first()


def entry_refusal(t: Tournament, user: Any, now: datetime | None = None) -> str | None:
    """Why `user` may not enter `t` (a sentence for a person), or None."""
    if not getattr(user, "is_authenticated", False) or is_guest(user):
        return _("Tournaments are for accounts: sign up or sign in first")
    if not user.is_active:
        return _("This account is suspended")
    if t.state in (State.FINISHED, State.CANCELLED):
        return _("This tournament is over")
    if t.kind == Kind.ARENA and t.state == State.RUNNING and (now or db_now()) >= ends_at(t):
        return _("This arena is over")
    if t.kind == Kind.SWISS and t.state == State.RUNNING and t.round >= t.rounds:
        return _("The last round has started: it is too late to enter")
    rating = _rating(user, t.queue)
    games = rating.games if rating else 0
    value = rating.ordinal if rating else ordinal(MU, SIGMA)
    if games < t.min_games:
        return _("Entry needs %(n)d rated games in this queue (you have %(m)d)") % {
            "n": t.min_games,
            "m": games,
        }
    if t.min_rating is not None and value < t.min_rating:
        return _("Entry needs a rating of at least %.1f") % t.min_rating
    if t.max_rating is not None and value > t.max_rating:
        return _("Entry is for ratings up to %.1f") % t.max_rating
    if t.min_account_days:
        age = (now or db_now()) - user.date_joined
        if age < timedelta(days=t.min_account_days):
            return _("Entry needs an account at least %d days old") % t.min_account_days
    return None


def join(*, code: str, user: Any, ip: str | None = None) -> Player:
    """Enter an event, or come back to it after pausing or withdrawing. Audited."""
    with transaction.atomic():
        t = _locked(code)
        player = Player.objects.filter(tournament=t, user_id=user.pk).first()
        if player is not None and player.status == Player.Status.ACTIVE:
            return player
        refusal = entry_refusal(t, user)
        if refusal:
            raise TournamentError("forbidden", refusal)
        rating = _rating(user, t.queue)
        back = player is not None
        if player is None:
            player = Player(
                tournament=t,
                user=user,
                rating=rating.ordinal if rating else ordinal(MU, SIGMA),
                joined_at=db_now(),
            )
        player.status = Player.Status.ACTIVE
        player.save()
        if not back:
            _publish(t)
        audit.record(
            action=actions.TOURNAMENT_JOINED,
            actor=user,
            ip=ip,
            obj=t,
            extra={"code": t.code, "user": user.pk, "back": back, "round": t.round},
        )
    return player


def withdraw(*, code: str, user: Any, ip: str | None = None) -> Player:
    """Leave an event: in an arena the player is paused (their score kept, never forfeited;
    they come back with `join`); in a Swiss event they are paired no more. A game being
    played goes on under its clock. Audited."""
    with transaction.atomic():
        t = _locked(code)
        player = Player.objects.filter(tournament=t, user_id=user.pk).first()
        if player is None:
            raise TournamentError("not_entered", _("You are not in this tournament"))
        if player.status != Player.Status.ACTIVE:
            return player
        if t.state in (State.FINISHED, State.CANCELLED):
            raise TournamentError("finished", _("This tournament is over"))
        _set_status(t, player, _leaving_status(t), ip=ip, why="withdrew")
    return player


def _leaving_status(t: Tournament) -> str:
    return Player.Status.PAUSED if t.kind == Kind.ARENA else Player.Status.WITHDRAWN


def _set_status(t: Tournament, player: Player, status: str, *, ip: str | None, why: str) -> None:
    player.status = status
    player.save(update_fields=["status"])
    audit.record(
        action=actions.TOURNAMENT_WITHDRAWN,
        actor=player.user if why == "withdrew" else None,
        ip=ip,
        obj=t,
        extra={"code": t.code, "user": player.user_id, "status": status, "why": why},
    )


def _locked(code: str) -> Tournament:
    t = Tournament.objects.select_for_update().filter(code=code).first()
    if t is None:
        raise TournamentError("not_found", _("There is no tournament %s") % code)
    return t


# ---------------------------------------------------------------------------- fair play


def fair_play_blocked(user_ids: Iterable[int]) -> set[int]:
    """THE place where pairing consults fair play: the ids among `user_ids` that may not be
    paired now (a ranked suspension in force, issue 33). Blocks between two players are kept
    apart by the arena's pairing (`free_arena_players` passes them); Swiss pairing does not
    consult them yet."""
    return fairplay_selectors.suspended(list(user_ids))


# ---------------------------------------------------------------------------- standings


def stored_games(t: Tournament) -> list[Game]:
    return list(Game.objects.filter(tournament=t).order_by("ended_at", "pk"))


def as_pairing_game(game: Game) -> pairing.Game:
    places = None
    if game.status == Game.Status.DONE and game.places is not None:
        places = {int(u): int(p) for u, p in game.places.items()}
    return pairing.Game(
        users=tuple(int(u) for u in game.users),
        places=places,
        round=game.round,
        bye=game.status == Game.Status.BYE,
    )


def entrants(t: Tournament) -> list[int]:
    return list(
        Player.objects.filter(tournament=t)
        .order_by("joined_at", "pk")
        .values_list("user_id", flat=True)
    )


def compute(t: Tournament, games: Sequence[pairing.Game] | None = None) -> list[pairing.Row]:
    """The standings from the stored games (or the `games` given: the verifier's)."""
    counted = (
        [as_pairing_game(g) for g in stored_games(t) if g.status != Game.Status.PLAYING]
        if games is None
        else list(games)
    )
    return pairing.standings(t.kind, table_size(t), entrants(t), counted)


PUBLISHED = ("score", "games", "wins", "streak", "byes", "buchholz", "rank")


def _publish(t: Tournament) -> None:
    """Write the standings onto the players' rows (only the rows that changed)."""
    rows = {r.user: r for r in compute(t)}
    changed = []
    for player in Player.objects.filter(tournament=t):
        row = rows.get(player.user_id)
        if row is None:
            continue
        new = row.as_dict()
        if any(getattr(player, f) != new[f] for f in PUBLISHED):
            for f in PUBLISHED:
                setattr(player, f, new[f])
            changed.append(player)
    Player.objects.bulk_update(changed, list(PUBLISHED))
    transaction.on_commit(partial(broadcast, t.pk))


def broadcast(tournament_id: int) -> None:
    """Send the event's standings to its sockets (after commit; best effort: the page polls
    the JSON endpoint too)."""
    try:
        layer = get_channel_layer()
        if layer is None:
            return
        t = Tournament.objects.get(pk=tournament_id)
        data = selectors.standings_data(t)
        async_to_sync(layer.group_send)(
            selectors.group_name(t.code), {"type": "tournament.standings", "d": data}
        )
    except Exception:  # noqa: BLE001 - the JSON endpoint is the truth; pages poll it
        log.exception("tournaments: broadcasting %s failed", tournament_id)


def publish(code: str) -> None:
    with transaction.atomic():
        _publish(_locked(code))


# ---------------------------------------------------------------------------- a game ends


def _places_of(match: Match) -> dict[str, int] | None:
    if match.status != Status.FINISHED:
        return None
    return {
        str(s.user_id): int(s.place)
        for s in match.seats.all()
        if s.user_id is not None and s.place is not None
    }


def game_ended(match_id: int) -> Game | None:
    """A tournament match finished, was voided, or counts again: its game's result, the
    standings published again, audited. Idempotent (a repeated call changes nothing)."""
    with transaction.atomic():
        game = Game.objects.filter(match_id=match_id).select_related("tournament").first()
        if game is None:
            return None
        t = _locked(game.tournament.code)
        game = Game.objects.select_for_update().get(pk=game.pk)
        match = Match.objects.get(pk=match_id)
        if match.status == Status.FINISHED and game.status in (
            Game.Status.PLAYING,
            Game.Status.VOID,
        ):
            again = game.status == Game.Status.VOID
            game.status = Game.Status.DONE
            game.places = _places_of(match)
            game.ended_at = game.ended_at or match.finished_at
            game.save(update_fields=["status", "places", "ended_at"])
            audit.record(
                action=actions.TOURNAMENT_GAME_VOIDED if again else actions.TOURNAMENT_RESULT,
                obj=t,
                extra={
                    "code": t.code,
                    "match": match.code,
                    "round": game.round,
                    "places": game.places,
                    "counts": True,
                },
            )
            _pause_absent(t, match)
        elif match.status in (Status.VOID, Status.ABORTED) and game.status != Game.Status.VOID:
            was = game.status
            game.status = Game.Status.VOID
            game.ended_at = game.ended_at or match.voided_at or match.finished_at or db_now()
            game.save(update_fields=["status", "ended_at"])
            audit.record(
                action=actions.TOURNAMENT_GAME_VOIDED,
                obj=t,
                extra={
                    "code": t.code,
                    "match": match.code,
                    "round": game.round,
                    "was": was,
                    "counts": False,
                    "reason": match.void_reason,
                },
            )
        else:
            return game
        Player.objects.filter(tournament=t, game=game).update(game=None)
        _publish(t)
        if t.state == State.FINISHED:
            _record_final(t, again=True)
    return game


def _pause_absent(t: Tournament, match: Match) -> None:
    """An arena player whose seat the disconnect grace gave away is paused (not forfeited
    from the event): they are paired again when they come back."""
    if t.kind != Kind.ARENA:
        return
    gone = [s.user_id for s in match.seats.all() if s.user_id and (s.away or s.gone)]
    for player in Player.objects.filter(
        tournament=t, user_id__in=gone, status=Player.Status.ACTIVE
    ).select_related("user"):
        _set_status(t, player, Player.Status.PAUSED, ip=None, why="absent")


# ---------------------------------------------------------------------------- the tick


def tick(now: datetime | None = None) -> int:
    """What time makes happen in every event not over: start, pair, next round, finish.
    Each event is locked with SKIP LOCKED (ticks side by side share them out). An arena's
    tables are chosen under that lock, then each is opened in a transaction of its own (the
    first players start at once, and nobody waits for a thousand others' matches). Returns
    the games opened."""
    now = now or db_now()
    opened = 0
    due = Tournament.objects.filter(
        state__in=[State.UPCOMING, State.RUNNING], starts_at__lte=now
    ).values_list("pk", flat=True)
    for pk in list(due):
        tables: list[list[int]] = []
        with transaction.atomic():
            t = Tournament.objects.select_for_update(skip_locked=True).filter(pk=pk).first()
            if t is None or t.state not in (State.UPCOMING, State.RUNNING):
                continue
            opened += _tick_one(t, now)
            if t.kind == Kind.ARENA and t.state == State.RUNNING and now < ends_at(t):
                tables = arena_tables(t)
        opened += sum(open_arena_table(pk, table, now) for table in tables)
    return opened


def _tick_one(t: Tournament, now: datetime) -> int:
    if t.state == State.UPCOMING:
        t.state = State.RUNNING
        t.started_at = now
        t.save(update_fields=["state", "started_at"])
    playing = Game.objects.filter(tournament=t, status=Game.Status.PLAYING)
    if t.kind == Kind.ARENA:
        if now >= ends_at(t) and not playing.exists():
            _finish(t, now)
        return 0  # the tick pairs a running arena (`arena_tables`, `open_arena_table`)
    if t.round == 0 or not playing.filter(round=t.round).exists() or now >= round_deadline(t):
        if t.round >= t.rounds:
            if not playing.exists():
                _finish(t, now)
            return 0
        if t.round == 0 and Player.objects.filter(
            tournament=t, status=Player.Status.ACTIVE
        ).count() < table_size(t):
            if now >= t.starts_at + scaled(t.minutes * 60):
                _cancel(t, now)  # nobody to play with for a whole round's time
            return 0  # not enough players yet: the first round waits for them
        return start_round(t, now)
    return 0


def _busy(t: Tournament) -> set[int]:
    return set(
        Player.objects.filter(tournament=t, game__isnull=False).values_list("user_id", flat=True)
    )


def free_arena_players(t: Tournament) -> list[pairing.ArenaPlayer]:
    players = list(
        Player.objects.filter(tournament=t, status=Player.Status.ACTIVE, game__isnull=True).only(
            "user_id", "score", "rating", "last_table"
        )
    )
    blocked = fair_play_blocked(p.user_id for p in players)
    apart: dict[int, set[int]] = {}
    for pair in fairplay_selectors.blocked_pairs([p.user_id for p in players]):
        one, two = tuple(pair)
        apart.setdefault(one, set()).add(two)
        apart.setdefault(two, set()).add(one)
    return [
        pairing.ArenaPlayer(
            p.user_id,
            p.score,
            p.rating,
            frozenset(p.last_table),
            frozenset(apart.get(p.user_id, ())),
        )
        for p in players
        if p.user_id not in blocked
    ]


def arena_tables(t: Tournament) -> list[list[int]]:
    """The tables the arena's free players would sit at now (user ids)."""
    return pairing.pair_arena(free_arena_players(t), table_size(t))


def open_arena_table(tournament_id: int, users: Sequence[int], now: datetime) -> bool:
    """Open one arena table in its own transaction, if the event still runs and every player
    at it is still active and free (checked under the event's lock)."""
    with transaction.atomic():
        t = Tournament.objects.select_for_update().get(pk=tournament_id)
        if t.state != State.RUNNING or now >= ends_at(t):
            return False
        free = Player.objects.filter(
            tournament=t, user_id__in=list(users), status=Player.Status.ACTIVE, game__isnull=True
        ).count()
        if free != len(users):
            return False
        return _open_game(t, users, 0) is not None


def start_round(t: Tournament, now: datetime) -> int:
    """The next Swiss round: every active player not still in a game of the last round."""
    t.round += 1
    t.round_started_at = now
    t.save(update_fields=["round", "round_started_at"])
    busy = _busy(t)
    rows = {r.user: r for r in compute(t)}
    history = [g for g in stored_games(t) if g.status != Game.Status.BYE]
    met: dict[int, set[int]] = {}
    tables: dict[int, set[frozenset[int]]] = {}
    for game in history:
        table = frozenset(int(u) for u in game.users)
        for u in table:
            met.setdefault(u, set()).update(table - {u})
            tables.setdefault(u, set()).add(table)
    players = Player.objects.filter(tournament=t, status=Player.Status.ACTIVE)
    ids = [p.user_id for p in players if p.user_id not in busy]
    blocked = fair_play_blocked(ids)
    rating = {p.user_id: p.rating for p in players}
    swiss = [
        pairing.SwissPlayer(
            user=u,
            score=rows[u].score if u in rows else 0,
            buchholz=rows[u].buchholz if u in rows else 0,
            rating=rating[u],
            met=frozenset(met.get(u, ())),
            byes=rows[u].byes if u in rows else 0,
            tables=frozenset(tables.get(u, ())),
        )
        for u in ids
        if u not in blocked
    ]
    size = table_size(t)
    made = pairing.pair_swiss_duels(swiss) if size == 2 else pairing.pair_swiss_tables(swiss, size)
    for u in made.byes:
        Game.objects.create(
            tournament=t, round=t.round, users=[u], status=Game.Status.BYE, ended_at=now
        )
    opened = sum(_open_game(t, table, t.round) is not None for table in made.tables)
    _publish(t)
    return opened


def _open_game(t: Tournament, users: Sequence[int], round_: int) -> Game | None:
    """One ranked match for a table, through the match services, in a savepoint: a refusal
    (a player now in another ranked match) leaves them for the next pairing."""
    rules, size = QUEUE_RULES[t.queue]
    User = get_user_model()
    try:
        with transaction.atomic():
            by_id = {u.pk: u for u in User.objects.filter(pk__in=list(users))}
            seated = [by_id[u] for u in users]
            match = match_services.match_create(
                ruleset=rules, players=size, mode="ranked", host=seated[0], paired=seated
            )
            for user in seated[1:]:
                match_services.match_join(code=match.code, user=user)
            game = Game.objects.create(
                tournament=t, round=round_, match=match, users=[u.pk for u in seated]
            )
            Player.objects.filter(tournament=t, user_id__in=list(users)).update(
                game=game, last_table=[u.pk for u in seated]
            )
            return game
    except (ServiceError, KeyError) as exc:
        log.info("tournament %s: table %s not seated: %s", t.code, list(users), exc)
        return None


def _finish(t: Tournament, now: datetime) -> None:
    t.state = State.FINISHED
    t.finished_at = now
    t.save(update_fields=["state", "finished_at"])
    _publish(t)
    _record_final(t, again=False)


def _cancel(t: Tournament, now: datetime) -> None:
    t.state = State.CANCELLED
    t.finished_at = now
    t.save(update_fields=["state", "finished_at"])
    audit.record(
        action=actions.TOURNAMENT_FINISHED,
        obj=t,
        extra={"code": t.code, "cancelled": True, "why": "too few players", "standings": []},
    )


def _record_final(t: Tournament, *, again: bool) -> None:
    """The final standings into the audit log (again after a late void)."""
    standings = [
        {"user": p.user_id, "rank": p.rank, "score": p.score, "buchholz": p.buchholz}
        for p in Player.objects.filter(tournament=t).order_by("rank", "pk")
    ]
    audit.record(
        action=actions.TOURNAMENT_FINISHED,
        obj=t,
        extra={"code": t.code, "again": again, "standings": standings},
    )


def recount() -> int:
    """The tick's safety net: games whose match ended (or was voided, or counts again)
    without being counted yet (a process that died between the match's commit and its
    count). Returns how many were counted."""
    ended = list(
        Game.objects.filter(
            status=Game.Status.PLAYING, match__status__gte=Status.FINISHED
        ).values_list("match_id", flat=True)
    )
    voided = list(
        Game.objects.filter(
            status=Game.Status.DONE, match__status__in=[Status.VOID, Status.ABORTED]
        ).values_list("match_id", flat=True)
    )
    back = list(
        Game.objects.filter(status=Game.Status.VOID, match__status=Status.FINISHED).values_list(
            "match_id", flat=True
        )
    )
    for match_id in [*ended, *voided, *back]:
        game_ended(match_id)
    return len(ended) + len(voided) + len(back)
