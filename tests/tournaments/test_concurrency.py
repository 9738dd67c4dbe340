"""An arena under concurrent joins, ticks, ranked queue joins and a suspension (threads,
PostgreSQL row locks): blocked pairs never share a table, the suspended are never paired,
nobody holds two ranked seats at once, and the audit chain holds."""

from __future__ import annotations

from collections import Counter
from datetime import timedelta
from typing import Any

import pytest
from django.conf import settings as django_settings

from accounts.models import User
from audit import chain as audit_chain
from audit.clock import db_now
from fairplay import services as fairplay
from fairplay.models import Sanction
from games.models import Seat, Status
from ranked import matchmaking
from tests.fairplay.test_queue_fairplay import moderator
from tests.ranked.test_queue_concurrency import all_at_once
from tournaments import services
from tournaments.models import Game
from tournaments.services import TournamentError

pytestmark = [
    pytest.mark.skipif(
        "postgresql" not in django_settings.DATABASES["default"]["ENGINE"],
        reason="row locks with SKIP LOCKED and concurrent transactions need PostgreSQL",
    ),
    pytest.mark.django_db(transaction=True),
]


def test_an_arena_under_concurrent_joins_ticks_and_a_suspension(settings: Any) -> None:
    """20 accounts join an arena at once with ticks alongside; each of 0-7 blocked the next
    (1-8); 14 is suspended before, 15 while it runs; 16 and 17 join a ranked queue at the
    same moment (one ranked match at a time: whichever seat they get first)."""
    settings.QUICK_MATCH_BOT_AFTER = 1000.0
    mod = moderator()
    users = [User.objects.create(username=f"conc{i}") for i in range(20)]
    for i in range(8):
        fairplay.block(user=users[i], other=users[i + 1])
    fairplay.sanction(
        moderator=mod, user=users[14], kind=Sanction.Kind.SUSPENSION, reason="Cheating", days=3
    )
    t = services.create(
        name="Concurrent arena",
        kind="arena",
        queue="duel",
        starts_at=db_now() - timedelta(seconds=1),
        minutes=30,
    )

    def enter(user: User) -> Any:
        try:
            return services.join(code=t.code, user=user)
        except TournamentError as refused:
            return refused.code

    def queue(user: User) -> Any:
        try:
            return matchmaking.join(user=user, queue="duel")
        except matchmaking.QueueError as refused:
            return refused.code

    calls: list[Any] = [lambda u=u: enter(u) for u in users]
    calls += [services.tick] * 4
    calls += [lambda: queue(users[16]), lambda: queue(users[17]), matchmaking.sweep_all]
    calls.append(
        lambda: fairplay.sanction(
            moderator=mod, user=users[15], kind="suspension", reason="Boosting", days=3
        )
    )
    results = all_at_once(calls)
    assert results[14] == "forbidden"  # suspended: no entry
    suspended_at = Sanction.objects.get(user=users[15]).created_at
    services.tick()
    services.tick()

    games = list(Game.objects.filter(tournament=t).select_related("match"))
    assert games, "no table was opened"
    blocked = {frozenset((users[i].pk, users[i + 1].pk)) for i in range(8)}
    for game in games:
        assert frozenset(game.users) not in blocked
        assert users[14].pk not in game.users
        if users[15].pk in game.users:
            assert game.match.created_at <= suspended_at  # paired before the suspension
        seats = list(game.match.seats.values_list("user_id", flat=True))
        assert sorted(seats) == sorted(game.users) and game.match.mode == "ranked"
    # One ranked seat in play per account, tournament and queue together.
    in_play = Counter(
        Seat.objects.filter(
            match__mode="ranked", match__status__in=(Status.WAITING, Status.ACTIVE), left=False
        ).values_list("user_id", flat=True)
    )
    assert in_play and max(in_play.values()) == 1
    # Everyone else free and entered was paired (16 players who may sit, blocks allow it).
    may_sit = {u.pk for u in users} - {users[14].pk, users[15].pk}
    waiting = may_sit - set(in_play)
    assert len(waiting) <= 2, waiting
    assert audit_chain.verify() is None
