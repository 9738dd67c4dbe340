"""The due deadlines live in a narrow table kept by a trigger (issue 27), so the match's
UPDATE on every action is HOT: no index of ``games_match`` covers a column an action changes."""

from __future__ import annotations

import random
from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from games import services
from games.match.due import due_match_ids, seconds_to_next_deadline
from games.models import Match, MatchDeadline, Status

from .driver import current, step

pytestmark = pytest.mark.django_db

CHANGED = {"snapshot", "seq", "turn_seq", "turn_deadline", "pause_until"}


def online(make_user, first: int = 2) -> Match:
    """A started practice match against a bot: the bot's step gives it a deadline."""
    host = make_user()
    match = services.match_create(
        ruleset="classic", players=2, mode="practice", host=host, bots={2: "easy"}, first=first
    )
    return current(match)


def deadlines() -> dict[int, object]:
    return dict(MatchDeadline.objects.values_list("match_id", "due"))


def test_the_table_follows_every_writer_of_the_deadline(make_user) -> None:
    match = online(make_user)
    assert match.status == Status.ACTIVE and match.turn_deadline is not None
    assert deadlines() == {match.pk: match.turn_deadline}
    # A writer outside the services (a sweep's test, an admin) is followed too.
    later = timezone.now() + timedelta(hours=1)
    Match.objects.filter(pk=match.pk).update(turn_deadline=later)
    assert deadlines() == {match.pk: later}
    Match.objects.filter(pk=match.pk).update(turn_deadline=None)
    assert deadlines() == {}
    earlier = timezone.now() - timedelta(seconds=5)
    Match.objects.filter(pk=match.pk).update(turn_deadline=earlier)
    assert due_match_ids() == [match.pk]
    assert seconds_to_next_deadline() < 0
    # An ended match has none, whatever its column says.
    Match.objects.filter(pk=match.pk).update(status=Status.FINISHED)
    assert deadlines() == {} and due_match_ids() == [] and seconds_to_next_deadline() is None


def test_the_table_follows_a_played_match(make_user) -> None:
    match = online(make_user)
    rng = random.Random(5)
    for n in range(40):
        match = current(match)
        if match.status != Status.ACTIVE:
            break
        state = match.state()
        if state.to_play == 2:
            services.match_timeout(match_id=match.pk, turn_seq=match.turn_seq)
        else:
            step(match, rng, n)
        match = current(match)
        expected = (
            {match.pk: match.turn_deadline}
            if match.status == Status.ACTIVE and match.turn_deadline is not None
            else {}
        )
        assert deadlines() == expected


def test_no_index_of_the_match_covers_a_column_an_action_changes() -> None:
    with connection.cursor() as cursor:
        constraints = connection.introspection.get_constraints(cursor, Match._meta.db_table)
    indexed = {column for c in constraints.values() if c["index"] for column in c["columns"]}
    assert indexed, constraints
    assert not indexed & CHANGED, indexed & CHANGED


def _match_updates() -> tuple[int, int]:
    """(updates, HOT updates) of games_match so far, this backend's counts flushed first."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_stat_force_next_flush()")
        cursor.execute("SELECT pg_stat_clear_snapshot()")
        cursor.execute(
            "SELECT n_tup_upd, n_tup_hot_upd FROM pg_stat_user_tables WHERE relname = %s",
            [Match._meta.db_table],
        )
        updated, hot = cursor.fetchone()
    return int(updated), int(hot)


@pytest.mark.skipif(connection.vendor != "postgresql", reason="HOT updates are PostgreSQL's")
@pytest.mark.django_db(transaction=True)
def test_actions_update_the_match_row_hot(make_user) -> None:
    """pg_stat_user_tables counts the HOT updates of a table: the player's rolls and moves,
    each committed as in production, and the bot's steps after them (their deadline dealt
    and cleared) write no index of the match."""
    match = online(make_user, first=0)
    before = _match_updates()
    rng = random.Random(3)
    for n in range(30):
        match = current(match)
        if match.status != Status.ACTIVE:
            break
        if match.state().to_play == 2:
            services.match_timeout(match_id=match.pk, turn_seq=match.turn_seq)
        else:
            step(match, rng, n)
    assert current(match).revision > 10
    after = _match_updates()
    updated, hot = after[0] - before[0], after[1] - before[1]
    # Now and then a page has no room left before it is pruned (the update is then not HOT);
    # with the deadline indexed on the match, most of these updates were not HOT.
    assert updated >= 10 and hot >= 0.8 * updated, (updated, hot)
