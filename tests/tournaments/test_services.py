"""Tournaments through their services: entering, pairing ranked matches, results counted
when a match ends, voids, finishing, and `verify_tournament`."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from io import StringIO
from typing import Any

import pytest
from django.core.management import CommandError, call_command
from django.test import override_settings

from accounts.models import User
from audit import actions
from audit.clock import db_now
from audit.models import AuditEntry
from fairplay.models import Block, Sanction
from games import services as match_services
from games.models import Match, Seat
from ranked.models import Rating
from tournaments import schedule, services
from tournaments.models import Game, Player, State, Tournament
from tournaments.services import TournamentError
from tournaments.verify import verify_tournament

from .play import finish_game, playing


def event(kind: str, queue: str, **kw: Any) -> Tournament:
    return services.create(
        name=f"Test {kind}",
        kind=kind,
        queue=queue,
        starts_at=db_now() - timedelta(seconds=1),
        minutes=kw.pop("minutes", 30),
        **kw,
    )


def test_arena_pairs_counts_and_verifies(
    make_users: Callable[[int], list[User]], django_capture_on_commit_callbacks: Any
) -> None:
    a, b, c, d = make_users(4)
    t = event("arena", "duel")
    for user in (a, b, c, d):
        services.join(code=t.code, user=user)
    assert services.tick() == 2
    t.refresh_from_db()
    assert t.state == State.RUNNING
    games = playing(t)
    for game in games:
        match = Match.objects.get(pk=game.match_id)
        assert match.mode == "ranked" and match.status == 20
        assert not match.seats.filter(bot__isnull=False).exists()
    first, second = games
    finish_game(first, [first.users[0], first.users[1]], django_capture_on_commit_callbacks)
    finish_game(second, [second.users[1], second.users[0]], django_capture_on_commit_callbacks)
    rows = {p.user_id: p for p in Player.objects.filter(tournament=t)}
    winners = {first.users[0], second.users[1]}
    assert {u for u, p in rows.items() if p.score == 2} == winners
    assert sorted(p.rank for p in rows.values()) == [1, 2, 3, 4]
    # Rated like any ranked match.
    assert Rating.objects.filter(queue="duel", games=1).count() == 4
    # Next pairing: no immediate rematch (the two winners meet, and the two losers).
    assert services.tick() == 2
    tables = [set(g.users) for g in playing(t)]
    assert winners in tables
    report = verify_tournament(t)
    assert report.ok, report.problems
    assert AuditEntry.objects.filter(action=actions.TOURNAMENT_RESULT).count() == 2
    assert AuditEntry.objects.filter(action=actions.TOURNAMENT_JOINED).count() == 4


def test_paused_arena_player_is_not_paired_until_back(
    make_users: Callable[[int], list[User]],
) -> None:
    a, b, c = make_users(3)
    t = event("arena", "duel")
    for user in (a, b, c):
        services.join(code=t.code, user=user)
    services.withdraw(code=t.code, user=c)
    assert Player.objects.get(tournament=t, user=c).status == Player.Status.PAUSED
    services.tick()
    assert [set(g.users) for g in playing(t)] == [{a.pk, b.pk}]
    services.join(code=t.code, user=c)
    assert Player.objects.get(tournament=t, user=c).status == Player.Status.ACTIVE
    assert AuditEntry.objects.filter(action=actions.TOURNAMENT_WITHDRAWN).count() == 1


def test_a_suspended_arena_player_is_not_paired(
    make_users: Callable[[int], list[User]],
) -> None:
    """Pairing consults fair play (issue 33): a ranked suspension in force keeps a player
    out of the next tables; once it is lifted they are paired again."""
    a, b, c, mod = make_users(4)
    t = event("arena", "duel")
    for user in (a, b, c):
        services.join(code=t.code, user=user)
    held = Sanction.objects.create(
        user=c,
        kind=Sanction.Kind.SUSPENSION,
        reason="Timed out on purpose.",
        moderator=mod,
        expires_at=db_now() + timedelta(days=1),
    )
    assert services.fair_play_blocked([a.pk, b.pk, c.pk]) == {c.pk}
    services.tick()
    assert [set(g.users) for g in playing(t)] == [{a.pk, b.pk}]
    held.lifted_at = db_now()
    held.save()
    assert services.fair_play_blocked([a.pk, b.pk, c.pk]) == set()


def test_an_arena_block_sits_the_blocker_out_not_the_others(
    make_users: Callable[[int], list[User]],
) -> None:
    """A block reaches the arena's pairing: a, who blocked b, would meet b and waits; c and d
    meet as they would have without the block, and b (who blocked nobody) sits with e, the
    one the order left over, rather than wait."""
    a, b, c, d, e = make_users(5)
    Block.objects.create(blocker=a, blocked=b)
    t = event("arena", "duel")
    for user in (a, b, c, d, e):
        services.join(code=t.code, user=user)
    services.tick()
    tables = [set(g.users) for g in playing(t)]
    assert sorted(map(sorted, tables)) == sorted([sorted([c.pk, d.pk]), sorted([b.pk, e.pk])])


def test_arena_finishes_after_its_window(
    make_users: Callable[[int], list[User]], django_capture_on_commit_callbacks: Any
) -> None:
    a, b = make_users(2)
    t = event("arena", "duel", minutes=1)
    for user in (a, b):
        services.join(code=t.code, user=user)
    services.tick()
    (game,) = playing(t)
    later = db_now() + timedelta(minutes=2)
    services.tick(later)  # the window is over, but a game is still being played
    t.refresh_from_db()
    assert t.state == State.RUNNING and playing(t) == [game]
    finish_game(game, [a.pk, b.pk], django_capture_on_commit_callbacks)
    services.tick(later)
    t.refresh_from_db()
    assert t.state == State.FINISHED
    assert Player.objects.get(tournament=t, user=a).rank == 1
    assert AuditEntry.objects.filter(action=actions.TOURNAMENT_FINISHED).count() == 1
    with pytest.raises(TournamentError):
        services.join(code=t.code, user=make_users(1)[0])


def test_swiss_duel_rounds_byes_and_late_entry(
    make_users: Callable[[int], list[User]], django_capture_on_commit_callbacks: Any
) -> None:
    users = make_users(4)
    late = users.pop()
    t = event("swiss", "duel", rounds=3, minutes=10)
    for user in users:
        services.join(code=t.code, user=user)
    services.tick()
    t.refresh_from_db()
    assert t.round == 1
    byes = Game.objects.filter(tournament=t, status=Game.Status.BYE)
    assert byes.count() == 1
    (game,) = playing(t)
    services.join(code=t.code, user=late)  # late entry: from the next round
    services.tick()
    assert Tournament.objects.get(pk=t.pk).round == 1  # a game of round 1 is still on
    finish_game(game, list(game.users), django_capture_on_commit_callbacks)
    for _ in range(2):
        services.tick()
        for game in playing(t):
            finish_game(game, list(game.users), django_capture_on_commit_callbacks)
    services.tick()
    t.refresh_from_db()
    assert t.round == 3 and t.state == State.FINISHED
    # Nobody met anyone twice in three rounds of four or five players.
    pairs = [frozenset(g.users) for g in Game.objects.filter(tournament=t).exclude(status="bye")]
    assert len(pairs) == len(set(pairs))
    report = verify_tournament(t)
    assert report.ok, report.problems
    assert report.rows[0].score >= report.rows[-1].score


def test_swiss_round_waits_for_the_last_game_of_the_one_before(
    make_users: Callable[[int], list[User]], django_capture_on_commit_callbacks: Any
) -> None:
    """A round that overruns its deadline delays the next one instead of eating it: every
    player plays every round."""
    users = make_users(4)
    t = event("swiss", "duel", rounds=2, minutes=10)
    for user in users:
        services.join(code=t.code, user=user)
    services.tick()
    slow, quick = playing(t)
    finish_game(quick, list(quick.users), django_capture_on_commit_callbacks)
    late = db_now() + timedelta(minutes=11)
    assert services.tick(late) == 0  # past the deadline, a game of round 1 still on
    t.refresh_from_db()
    assert t.round == 1 and playing(t) == [slow]
    finish_game(slow, list(slow.users), django_capture_on_commit_callbacks)
    assert services.tick(late) == 2
    t.refresh_from_db()
    assert t.round == 2
    assert {u for g in playing(t) for u in g.users} == {u.pk for u in users}
    for game in playing(t):
        finish_game(game, list(game.users), django_capture_on_commit_callbacks)
    services.tick(late)
    t.refresh_from_db()
    assert t.state == State.FINISHED
    assert sorted(Player.objects.filter(tournament=t).values_list("games", flat=True)) == [2] * 4
    assert verify_tournament(t).ok


def test_a_swiss_round_lasts_as_long_as_its_queue_s_games(
    make_users: Callable[[int], list[User]], settings: Any
) -> None:
    settings.TOURNAMENT_ROUND_MINUTES = {**settings.TOURNAMENT_ROUND_MINUTES, "classic-4": 41}
    t = services.create(
        name="Classic Swiss", kind="swiss", queue="classic-4", starts_at=db_now(), rounds=3
    )
    assert t.minutes == 41
    made = schedule.make(datetime(2026, 12, 3, 15, 20, tzinfo=UTC))
    swiss = {x.queue: x.minutes for x in made if x.kind == "swiss"}
    assert swiss == {"classic-4": 41, "duel": settings.TOURNAMENT_ROUND_MINUTES["duel"]}


def test_a_small_arena_pairs_the_last_table_again_after_the_wait(
    make_users: Callable[[int], list[User]],
    django_capture_on_commit_callbacks: Any,
    settings: Any,
) -> None:
    settings.TOURNAMENT_ARENA_REMATCH_AFTER = 60
    a, b = make_users(2)
    t = event("arena", "duel")
    for user in (a, b):
        services.join(code=t.code, user=user)
    services.tick()
    (game,) = playing(t)
    finish_game(game, [a.pk, b.pk], django_capture_on_commit_callbacks)
    assert services.tick() == 0  # just met: not straight back at the same table
    assert services.tick(db_now() + timedelta(seconds=61)) == 1
    (again,) = playing(t)
    assert set(again.users) == {a.pk, b.pk} and again.pk != game.pk


def test_a_paired_player_s_clock_starts_after_the_grace(
    make_users: Callable[[int], list[User]], settings: Any
) -> None:
    settings.TOURNAMENT_GAME_GRACE = 90
    a, b = make_users(2)
    t = event("arena", "duel")
    for user in (a, b):
        services.join(code=t.code, user=user)
    services.tick()
    (game,) = playing(t)
    match = Match.objects.get(pk=game.match_id)
    assert match.options["grace"] == 90
    turn = match.rules.turn_seconds
    assert match.turn_deadline >= match.created_at + timedelta(seconds=90 + turn)
    # Once the grace is over, a player who never came has the clock's own time.
    assert match.turn_deadline <= match.created_at + timedelta(seconds=90 + turn + 1)


def test_swiss_tables_of_four(
    make_users: Callable[[int], list[User]], django_capture_on_commit_callbacks: Any
) -> None:
    users = make_users(5)
    t = event("swiss", "classic-4", rounds=1)
    for user in users:
        services.join(code=t.code, user=user)
    services.tick()
    (game,) = playing(t)
    assert len(game.users) == 4
    assert Game.objects.filter(tournament=t, status="bye").count() == 1
    finish_game(game, list(game.users), django_capture_on_commit_callbacks)
    services.tick()
    t.refresh_from_db()
    assert t.state == State.FINISHED
    scores = {p.user_id: p.score for p in Player.objects.filter(tournament=t)}
    assert sorted(scores.values()) == [0, 1, 2, 2, 3]
    assert verify_tournament(t).ok


def test_void_updates_the_standings_and_is_audited(
    make_users: Callable[[int], list[User]], django_capture_on_commit_callbacks: Any
) -> None:
    a, b = make_users(2)
    staff = make_users(1)[0]
    t = event("arena", "duel")
    for user in (a, b):
        services.join(code=t.code, user=user)
    services.tick()
    (game,) = playing(t)
    finish_game(game, [a.pk, b.pk], django_capture_on_commit_callbacks)
    assert Player.objects.get(tournament=t, user=a).score == 2
    with django_capture_on_commit_callbacks(execute=True):
        match_services.match_void(match_id=game.match_id, reason="cheating", actor=staff)
    game.refresh_from_db()
    assert game.status == Game.Status.VOID
    assert Player.objects.get(tournament=t, user=a).score == 0
    voided = AuditEntry.objects.filter(action=actions.TOURNAMENT_GAME_VOIDED).get()
    assert voided.extra_data["counts"] is False
    assert verify_tournament(t).ok
    with django_capture_on_commit_callbacks(execute=True):
        match_services.match_unvoid(match_id=game.match_id, reason="mistake", actor=staff)
    assert Player.objects.get(tournament=t, user=a).score == 2
    assert verify_tournament(t).ok


def test_verify_fails_on_a_standings_row_changed_by_hand(
    make_users: Callable[[int], list[User]], django_capture_on_commit_callbacks: Any
) -> None:
    a, b = make_users(2)
    t = event("arena", "duel")
    for user in (a, b):
        services.join(code=t.code, user=user)
    services.tick()
    (game,) = playing(t)
    finish_game(game, [b.pk, a.pk], django_capture_on_commit_callbacks)
    out = StringIO()
    call_command("verify_tournament", t.code, stdout=out)
    assert f"tournament {t.code} ok" in out.getvalue()
    Player.objects.filter(tournament=t, user=a).update(score=5)
    with pytest.raises(CommandError, match="published score 5, recomputed 0"):
        call_command("verify_tournament", t.code, stdout=StringIO(), stderr=StringIO())


def test_verify_fails_on_a_game_result_changed_by_hand(
    make_users: Callable[[int], list[User]], django_capture_on_commit_callbacks: Any
) -> None:
    a, b = make_users(2)
    t = event("arena", "duel")
    for user in (a, b):
        services.join(code=t.code, user=user)
    services.tick()
    (game,) = playing(t)
    finish_game(game, [b.pk, a.pk], django_capture_on_commit_callbacks)
    Game.objects.filter(pk=game.pk).update(places={str(a.pk): 1, str(b.pk): 2})
    report = verify_tournament(t)
    assert not report.ok and "stored places" in report.problems[0]


def test_entry_conditions(make_users: Callable[[int], list[User]]) -> None:
    a, b = make_users(2)
    t = event("arena", "duel", min_games=3)
    with pytest.raises(TournamentError, match="3 rated games"):
        services.join(code=t.code, user=a)
    Rating.objects.create(user=b, queue="duel", mu=30, sigma=2, ordinal=24, games=5)
    services.join(code=t.code, user=b)
    t2 = event("arena", "duel", max_rating=10.0)
    with pytest.raises(TournamentError, match="up to 10.0"):
        services.join(code=t2.code, user=b)
    t3 = event("arena", "duel", min_account_days=2)
    with pytest.raises(TournamentError, match="2 days"):
        services.join(code=t3.code, user=a)
    a.is_active = False
    a.save()
    with pytest.raises(TournamentError, match="suspended"):
        services.join(code=event("arena", "duel").code, user=a)


@override_settings(LUDO_TIME_SCALE=0.01)
def test_time_scale_shortens_the_arena(make_users: Callable[[int], list[User]]) -> None:
    t = event("arena", "duel", minutes=10)
    assert services.ends_at(t) - t.starts_at == timedelta(seconds=6)


def test_recount_counts_a_game_the_hook_missed(make_users: Callable[[int], list[User]]) -> None:
    a, b = make_users(2)
    t = event("arena", "duel")
    for user in (a, b):
        services.join(code=t.code, user=user)
    services.tick()
    (game,) = playing(t)
    match_services.match_resign(match_id=game.match_id, user=b)  # no on_commit run here
    assert Game.objects.get(pk=game.pk).status == Game.Status.PLAYING
    assert services.recount() == 1
    assert Player.objects.get(tournament=t, user=a).score == 2


def test_swiss_without_enough_players_is_cancelled_after_a_round_s_time(
    make_users: Callable[[int], list[User]],
) -> None:
    (a,) = make_users(1)
    t = event("swiss", "duel", rounds=3, minutes=10)
    services.join(code=t.code, user=a)
    services.tick()
    assert Tournament.objects.get(pk=t.pk).state == State.RUNNING  # still waiting for one
    services.tick(db_now() + timedelta(minutes=11))
    t.refresh_from_db()
    assert t.state == State.CANCELLED and t.round == 0
    entry = AuditEntry.objects.filter(action=actions.TOURNAMENT_FINISHED).get()
    assert entry.extra_data["cancelled"] is True


def test_an_arena_player_the_grace_gave_away_is_paused_not_forfeited(
    make_users: Callable[[int], list[User]], django_capture_on_commit_callbacks: Any
) -> None:
    a, b = make_users(2)
    t = event("arena", "duel")
    for user in (a, b):
        services.join(code=t.code, user=user)
    services.tick()
    (game,) = playing(t)
    # The disconnect grace ran out for b (the presence service marks the seat away).
    Seat.objects.filter(match_id=game.match_id, user=b).update(away=True)
    finish_game(game, [a.pk, b.pk], django_capture_on_commit_callbacks)
    paused = Player.objects.get(tournament=t, user=b)
    assert paused.status == Player.Status.PAUSED and paused.games == 1
    assert Player.objects.get(tournament=t, user=a).status == Player.Status.ACTIVE
    why = AuditEntry.objects.filter(action=actions.TOURNAMENT_WITHDRAWN).get()
    assert why.extra_data["why"] == "absent"


def test_a_swiss_withdrawal_is_paired_no_more(
    make_users: Callable[[int], list[User]], django_capture_on_commit_callbacks: Any
) -> None:
    a, b, c = make_users(3)
    t = event("swiss", "duel", rounds=2)
    for user in (a, b, c):
        services.join(code=t.code, user=user)
    services.tick()
    (game,) = playing(t)
    assert Game.objects.filter(tournament=t, status=Game.Status.BYE).count() == 1
    gone = User.objects.get(pk=game.users[1])
    services.withdraw(code=t.code, user=gone)
    assert Player.objects.get(tournament=t, user=gone).status == Player.Status.WITHDRAWN
    finish_game(game, list(game.users), django_capture_on_commit_callbacks)
    services.tick()
    assert Tournament.objects.get(pk=t.pk).round == 2
    for g in Game.objects.filter(tournament=t, round=2):
        assert gone.pk not in g.users


def test_swiss_blocking_everyone_costs_only_the_blocker(
    make_users: Callable[[int], list[User]], django_capture_on_commit_callbacks: Any
) -> None:
    """A Swiss event of four where a blocked the other three: every round a sits out with no
    game, no points and no bye; whoever the order paired with a gets a bye (never an innocent
    player left with nothing), and the other two play as they would have."""
    a, b, c, d = make_users(4)
    for other in (b, c, d):
        Block.objects.create(blocker=a, blocked=other)
    t = event("swiss", "duel", rounds=3, minutes=10)
    for user in (a, b, c, d):
        services.join(code=t.code, user=user)
    for round_ in (1, 2, 3):
        services.tick()
        games = playing(t)
        byes = list(Game.objects.filter(tournament=t, round=round_, status=Game.Status.BYE))
        assert len(games) == 1 and len(byes) == 1
        assert a.pk not in games[0].users and byes[0].users != [a.pk]
        assert {*games[0].users, *byes[0].users} == {b.pk, c.pk, d.pk}
        finish_game(games[0], list(games[0].users), django_capture_on_commit_callbacks)
    services.tick()
    t.refresh_from_db()
    assert t.state == State.FINISHED and t.round == 3
    rows = {p.user_id: p for p in Player.objects.filter(tournament=t)}
    assert rows[a.pk].score == 0 and rows[a.pk].games == 0 and rows[a.pk].byes == 0
    for other in (b, c, d):
        assert rows[other.pk].games + rows[other.pk].byes == 3
    assert verify_tournament(t).ok


def test_swiss_pair_who_blocked_each_other_sits_out(
    make_users: Callable[[int], list[User]],
) -> None:
    a, b = make_users(2)
    Block.objects.create(blocker=a, blocked=b)
    Block.objects.create(blocker=b, blocked=a)
    t = event("swiss", "duel", rounds=2, minutes=10)
    for user in (a, b):
        services.join(code=t.code, user=user)
    services.tick()
    assert Tournament.objects.get(pk=t.pk).round == 1
    assert not Game.objects.filter(tournament=t).exists()  # no game, no bye, no points
    assert set(Player.objects.filter(tournament=t).values_list("score", flat=True)) == {0}


def test_swiss_innocent_of_a_lone_pair_gets_the_bye(
    make_users: Callable[[int], list[User]],
) -> None:
    a, b = make_users(2)
    Block.objects.create(blocker=a, blocked=b)
    t = event("swiss", "duel", rounds=2, minutes=10)
    for user in (a, b):
        services.join(code=t.code, user=user)
    services.tick()
    byes = Game.objects.filter(tournament=t, status=Game.Status.BYE)
    assert [g.users for g in byes] == [[b.pk]] and not playing(t)


def test_fair_play_entry_conditions(make_users: Callable[[int], list[User]], settings: Any) -> None:
    """Not suspended, reliable enough (issue 33): the ranked queues' conditions, worded as
    they word them."""
    a, b, mod = make_users(3)
    t = event("arena", "duel")
    held = Sanction.objects.create(
        user=a,
        kind=Sanction.Kind.SUSPENSION,
        reason="Timed out on purpose.",
        moderator=mod,
        expires_at=db_now() + timedelta(days=1),
    )
    with pytest.raises(TournamentError, match="suspended you from ranked play"):
        services.join(code=t.code, user=a)
    held.lifted_at = db_now()
    held.save()
    services.join(code=t.code, user=a)
    settings.RELIABILITY_MIN_MATCHES = 1
    settings.RANKED_MIN_RELIABILITY = 50
    match = match_services.match_create(ruleset="duel", players=2, mode="friendly", host=b)
    match_services.match_join(code=match.code, user=mod)
    match_services.match_forfeit(match_id=match.pk, corner=0, reason="timeout")
    with pytest.raises(TournamentError, match="reliability is 0%"):
        services.join(code=t.code, user=b)
    assert services.entry_refusal(t, mod) is None
