"""The due deadlines live in a narrow table kept by a trigger (issue 27), so the match's
UPDATE on every action is HOT: no index of ``games_match`` covers a column an action changes."""

from __future__ import annotations

import random
from datetime import timedelta

import pytest
from django.db import connection, transaction
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


@pytest.mark.skipif(connection.vendor != "postgresql", reason="HOT updates are PostgreSQL's")
def test_a_roll_updates_the_match_row_hot(make_user) -> None:
    """pg_stat_get_xact_tuples_hot_updated counts this transaction's HOT updates of a table:
    the player's roll and move, which pass the turn to the bot (its deadline set), are."""
    match = online(make_user, first=0)
    assert match.turn_deadline is None
    with transaction.atomic(), connection.cursor() as cursor:
        services.match_roll(match_id=match.pk, corner=0, seq=match.seq, action_id="hot")
        match = current(match)
        state = match.state()
        if state.to_play == 0 and state.phase == "move":
            chosen = state.legal[0]
            services.match_move(
                match_id=match.pk,
                corner=0,
                seq=match.seq,
                action_id="hot2",
                pawn=chosen.pawn,
                pawn_corner=chosen.corner,
            )
        assert current(match).turn_deadline is not None  # the bot's turn: a deadline dealt
        cursor.execute(
            "SELECT pg_stat_get_xact_tuples_updated(%s::regclass),"
            " pg_stat_get_xact_tuples_hot_updated(%s::regclass)",
            [Match._meta.db_table] * 2,
        )
        updated, hot = cursor.fetchone()
    assert updated >= 1 and hot == updated
