"""The only writer of tournament rows: creating an event, entering and withdrawing, the
clock's tick (start, pair, next round, finish), a game's result, and the published
standings. The games are ranked matches opened through `games.services`
(``ranked_matches_create``: a round's or a tick's tables together, each what ``match_create``
with the paired accounts and ``match_join`` make): the same rules, clocks, forfeits, dice
proof and rating as the ranked queues; this module never writes a match row.

A match's end reaches `game_ended` from a ``post_save`` receiver (`tournaments.apps`) after
its transaction commits; a moderator's void or its undoing arrives the same way, and the
standings are published again (audited).
"""

from __future__ import annotations

import json
import logging
import secrets
from collections.abc import Iterable, Sequence
from datetime import datetime, timedelta
from functools import partial
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import connection, transaction
from django.utils.translation import gettext as _

from accounts.models import is_guest
from audit import actions
from audit import services as audit
from audit.clock import db_now
from fairplay import reliability
from fairplay import selectors as fairplay_selectors
from games import services as match_services
from games.clocks.timing import scaled
from games.match.errors import ServiceError
from games.models import Match, Mode, Seat, Status
from ranked import holds
from ranked.models import Rating
from ranked.ratings import MU, QUEUE_RULES, SIGMA, ordinal

from . import pairing, selectors
from .models import Game, Kind, Player, State, Tournament

log = logging.getLogger(__name__)

CODE_ALPHABET = "23456789ABCDEFGHJKLMNPQRSTUVWXYZ"


class TournamentError(ServiceError):
    """A refused entry, withdrawal or creation; ``code`` as in `games.match.errors`, or
    ``not_entered`` (withdrawing from an event one is not in), ``finished`` (the event is
    over)."""

    codes = ServiceError.codes | {"not_entered", "finished"}


def table_size(t: Tournament) -> int:
    return QUEUE_RULES[t.queue][1]


def ends_at(t: Tournament) -> datetime:
    """An arena's end (its window, scaled by LUDO_TIME_SCALE like every duration)."""
    return t.starts_at + scaled(t.minutes * 60)


def round_deadline(t: Tournament) -> datetime | None:
    """When a Swiss round is due to end. Games still being played then play on under their
    clocks; the next round starts when the last of them ends (`_tick_one`)."""
    if t.round_started_at is None:
        return None
    return t.round_started_at + scaled(t.minutes * 60)


def round_minutes(queue: str) -> int:
    """A Swiss round's length for a queue's games (``TOURNAMENT_ROUND_MINUTES``)."""
    return int(settings.TOURNAMENT_ROUND_MINUTES[queue])


def game_grace() -> timedelta:
    """How long a paired player has to open a tournament game before their clock starts."""
    return scaled(float(settings.TOURNAMENT_GAME_GRACE))


def rematch_after() -> timedelta:
    """How long an arena player waits before the table they just left may meet again."""
    return scaled(float(settings.TOURNAMENT_ARENA_REMATCH_AFTER))


# ---------------------------------------------------------------------------- creating


def _new_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(6))


def create(
    *,
    name: str,
    kind: str,
    queue: str,
    starts_at: datetime,
    minutes: int | None = None,
    rounds: int = 0,
    min_games: int = 0,
    min_rating: float | None = None,
    max_rating: float | None = None,
    min_account_days: int = 0,
    schedule: str = "",
    created_by: Any = None,
) -> Tournament:
    """Open an event (a moderator's, or the schedule's). Audited. A Swiss event without
    `minutes` gets its queue's round length (`round_minutes`); an arena, half an hour."""
    if minutes is None:
        minutes = round_minutes(queue) if kind == Kind.SWISS and queue in QUEUE_RULES else 30
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
    fair_play = _fair_play_refusal(user)
    if fair_play:
        return fair_play
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


def _fair_play_refusal(user: Any) -> str | None:
    """Fair play's entry conditions (issue 33), as the ranked queues word them: no ranked
    suspension in force, reliability not below the ranked threshold."""
    held = fairplay_selectors.suspension(user)
    if held is not None:
        until = held.expires_at.strftime("%Y-%m-%d %H:%M UTC") if held.expires_at else ""
        return _("A moderator suspended you from ranked play until %(until)s: %(reason)s") % {
            "until": until,
            "reason": held.reason,
        }
    record = reliability.record(user.pk)
    if record.below_ranked:
        return _(
            "Your reliability is %(figure)s: ranked play needs %(least)d%%. Finish your "
            "casual matches to raise it."
        ) % {"figure": record.shown, "least": reliability.ranked_min()}
    evasion = holds.refusal(user)  # a new account, or one held for a moderator
    return evasion.text() if evasion is not None else None


def join(*, code: str, user: Any, ip: str | None = None) -> Player:
    """Enter an event, or come back to it after pausing or withdrawing. Audited. An account
    linked to one under a ranked suspension is held for a moderator, as in the ranked queues
    (`ranked.holds.check`)."""
    if getattr(user, "is_authenticated", False) and not is_guest(user):
        try:
            holds.check(user, ip)
        except holds.HoldError as e:
            raise TournamentError("forbidden", e.text()) from e
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
    apart by the pairing itself: the arena's (`free_arena_players`) and the Swiss rounds'
    (`start_round`) pass whom each player blocked (`_blocked`) to `tournaments.pairing`,
    which sits the blocker out when the two would meet."""
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
    """Write the standings onto the players' rows (only the rows that changed: in
    PostgreSQL one ``UPDATE`` from arrays, however many ranks moved)."""
    rows = {r.user: r for r in compute(t)}
    changed: list[tuple[int, dict[str, int]]] = []
    stored = Player.objects.filter(tournament=t).values_list("pk", "user_id", *PUBLISHED)
    for pk, user_id, *values in stored:
        row = rows.get(user_id)
        if row is None:
            continue
        new = row.as_dict()
        if any(value != new[f] for f, value in zip(PUBLISHED, values, strict=True)):
            changed.append((pk, new))
    if changed and connection.vendor == "postgresql":
        sets = ", ".join(f'"{f}" = v."{f}"' for f in PUBLISHED)
        arrays = ", ".join("%s::bigint[]" for _f in ("pk", *PUBLISHED))
        names = ", ".join(f'"{f}"' for f in PUBLISHED)
        with connection.cursor() as cursor:
            cursor.execute(
                f'UPDATE "{Player._meta.db_table}" p SET {sets}'
                f' FROM unnest({arrays}) AS v("pk", {names}) WHERE p."id" = v."pk"',
                [[pk for pk, _new in changed]]
                + [[new[f] for _pk, new in changed] for f in PUBLISHED],
            )
    elif changed:
        Player.objects.bulk_update(
            [Player(pk=pk, **{f: new[f] for f in PUBLISHED}) for pk, new in changed],
            list(PUBLISHED),
        )
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
        Player.objects.filter(tournament=t, game=game).update(
            game=None, free_since=game.ended_at or db_now()
        )
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
    Each event is locked with SKIP LOCKED (ticks side by side share them out); a running
    arena's free players are paired under that lock and all their tables opened together
    (`_open_games`: the ranked matches made in one batch by the match services, the games
    and the players' rows in a few statements). Returns the games opened."""
    now = now or db_now()
    opened = 0
    due = Tournament.objects.filter(
        state__in=[State.UPCOMING, State.RUNNING], starts_at__lte=now
    ).values_list("pk", flat=True)
    for pk in list(due):
        with transaction.atomic():
            t = Tournament.objects.select_for_update(skip_locked=True).filter(pk=pk).first()
            if t is None or t.state not in (State.UPCOMING, State.RUNNING):
                continue
            opened += _tick_one(t, now)
            if t.kind == Kind.ARENA and t.state == State.RUNNING and now < ends_at(t):
                opened += len(_open_games(t, arena_tables(t, now), 0))
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
        return 0  # the tick pairs a running arena (`arena_tables`, `_open_games`)
    if playing.exists():
        # A round never starts while a game of the last one is being played: its players
        # would miss it. The deadline promises an end; the clocks keep it.
        return 0
    if t.round >= t.rounds:
        _finish(t, now)
        return 0
    if t.round == 0 and Player.objects.filter(
        tournament=t, status=Player.Status.ACTIVE
    ).count() < table_size(t):
        if now >= t.starts_at + scaled(t.minutes * 60):
            _cancel(t, now)  # nobody to play with for a whole round's time
        return 0  # not enough players yet: the first round waits for them
    return start_round(t, now)


def _busy(t: Tournament) -> set[int]:
    return set(
        Player.objects.filter(tournament=t, game__isnull=False).values_list("user_id", flat=True)
    )


def free_arena_players(t: Tournament, now: datetime | None = None) -> list[pairing.ArenaPlayer]:
    """The arena's players to pair now: active, between games, not suspended, not seated in
    a ranked match elsewhere; each with the players a block keeps away from them, and
    whether they have waited long enough to meet their last table again (`rematch_after`)."""
    players = list(
        Player.objects.filter(
            tournament=t, status=Player.Status.ACTIVE, game__isnull=True
        ).values_list("user_id", "score", "rating", "last_table", "free_since")
    )
    since = (now or db_now()) - rematch_after()
    ids = [p[0] for p in players]
    blocked = fair_play_blocked(ids) | playing_elsewhere(ids)
    blocks = _blocked(ids)
    return [
        pairing.ArenaPlayer(
            user,
            score,
            rating,
            frozenset(last_table),
            frozenset(blocks.get(user, ())),
            waited=free_since is not None and free_since <= since,
        )
        for user, score, rating, last_table, free_since in players
        if user not in blocked
    ]


def _blocked(ids: list[int]) -> dict[int, set[int]]:
    """Whom each of `ids` blocked among `ids`."""
    blocked: dict[int, set[int]] = {}
    for blocker, other in fairplay_selectors.blocks_among(ids):
        blocked.setdefault(blocker, set()).add(other)
    return blocked


def playing_elsewhere(user_ids: Sequence[int]) -> set[int]:
    """Of `user_ids`, those seated in a ranked match waiting or being played (one ranked
    match at a time: the match services would refuse them; they are paired once free)."""
    ids = list(user_ids)
    if not ids:
        return set()
    return set(
        Seat.objects.filter(
            user_id__in=ids,
            left=False,
            match__mode=Mode.RANKED,
            match__status__in=(Status.WAITING, Status.ACTIVE),
        ).values_list("user_id", flat=True)
    )


def arena_tables(t: Tournament, now: datetime | None = None) -> list[list[int]]:
    """The tables the arena's free players would sit at now (user ids)."""
    return pairing.pair_arena(free_arena_players(t, now), table_size(t))


def start_round(t: Tournament, now: datetime) -> int:
    """The next Swiss round, once no game of the last one is being played (`_tick_one`):
    every active player."""
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
    blocks = _blocked(ids)
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
            blocked=frozenset(blocks.get(u, ())),
        )
        for u in ids
        if u not in blocked
    ]
    size = table_size(t)
    made = pairing.pair_swiss_duels(swiss) if size == 2 else pairing.pair_swiss_tables(swiss, size)
    if made.unpaired:
        log.info(
            "tournament %s round %s: blocked a table-mate, sit out: %s",
            t.code,
            t.round,
            made.unpaired,
        )
    Game.objects.bulk_create(
        [
            Game(tournament=t, round=t.round, users=[u], status=Game.Status.BYE, ended_at=now)
            for u in made.byes
        ]
    )
    opened = len(_open_games(t, made.tables, t.round))
    _publish(t)
    return opened


def _open_games(t: Tournament, tables: Sequence[Sequence[int]], round_: int) -> list[Game]:
    """A ranked match for each table, made together by the match services
    (`ranked_matches_create`), then the games and the players' rows in one statement each.
    A table the services refuse (a player now in another ranked match) is left: its players
    wait for the next pairing."""
    if not tables:
        return []
    rules, _size = QUEUE_RULES[t.queue]
    User = get_user_model()
    by_id = User.objects.in_bulk([u for table in tables for u in table])
    seated = [[by_id[u] for u in table if u in by_id] for table in tables]
    made = match_services.ranked_matches_create(
        ruleset=rules, tables=seated, grace=game_grace().total_seconds()
    )
    games: list[Game] = []
    for users, match in zip(seated, made, strict=True):
        if isinstance(match, ServiceError):
            log.info("tournament %s: table %s not seated: %s", t.code, [u.pk for u in users], match)
            continue
        games.append(
            Game(
                tournament=t,
                round=round_,
                match=match,
                users=[u.pk for u in users],
                created_at=match.created_at,
            )
        )
    match_services.insert_rows(Game, games)
    _seat_players(t, games)
    return games


def _seat_players(t: Tournament, games: list[Game]) -> None:
    """Each player of `games` is in that game now, and it is their last table: one
    ``UPDATE`` from arrays in PostgreSQL (elsewhere Django's `bulk_update`)."""
    table_of = {int(u): game for game in games for u in game.users}
    if not table_of:
        return
    if connection.vendor == "postgresql":
        users = list(table_of)
        with connection.cursor() as cursor:
            cursor.execute(
                f'UPDATE "{Player._meta.db_table}" p SET "game_id" = v.game,'
                ' "last_table" = v.tbl::jsonb'
                " FROM unnest(%s::bigint[], %s::bigint[], %s::text[]) AS v(uid, game, tbl)"
                ' WHERE p."tournament_id" = %s AND p."user_id" = v.uid',
                [
                    users,
                    [table_of[u].pk for u in users],
                    [json.dumps(table_of[u].users) for u in users],
                    t.pk,
                ],
            )
        return
    players = list(Player.objects.filter(tournament=t, user_id__in=list(table_of)))
    for player in players:
        game = table_of[player.user_id]
        player.game = game
        player.last_table = list(game.users)
    Player.objects.bulk_update(players, ["game", "last_table"])


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
