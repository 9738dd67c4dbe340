"""Statements per player action and per socket read, pinned so they do not creep back up.

Every round trip to PostgreSQL is latency a room feels (scripts/LOAD.md). A roll or move is
two reads (the match locked with the database clock, its seats with their users) and one
statement per table it appends to or updates; transaction control (BEGIN, COMMIT, savepoints)
is not counted (with them and the pool's check of the connection it hands out, a roll or move
is 8 round trips, 9 when the turn passes). A socket reads nothing for an update (the change's
snapshot comes with it: tests/realtime/test_consumer.py) and the match in one query when it
opens or resyncs.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from accounts.models import User
from games import services
from games.match.selectors import match_with_seats
from games.models import Match
from games.services import fenced

pytestmark = pytest.mark.django_db

CONTROL = ("BEGIN", "COMMIT", "ROLLBACK", "SAVEPOINT", "RELEASE")


def _outer_from(sql: str) -> str:
    """The table of a SELECT's own FROM (not a subquery's in its column list); for a FROM of
    a derived table, the derived table's own."""
    depth = 0
    for i, ch in enumerate(sql):
        depth += (ch == "(") - (ch == ")")
        if depth == 0 and sql.startswith(" FROM ", i):
            table = sql[i + 6 :].split()[0]
            if table.startswith("(SELECT"):
                return _outer_from(sql[i + 7 :])
            return table
    return "?"


def statements(captured: CaptureQueriesContext) -> Counter[str]:
    """Statements by verb and table ("SELECT games_match", "INSERT games_roll", ...)."""
    counts: Counter[str] = Counter()
    for query in captured.captured_queries:
        sql = query["sql"].lstrip()
        verb = sql.split(None, 1)[0].upper()
        if verb in CONTROL:
            continue
        if verb == "SELECT":
            table = _outer_from(sql)
        elif verb == "INSERT":
            table = sql.split()[2]
        elif verb == "UPDATE":
            table = sql.split()[1]
        else:
            table = "?"
        counts[f"{verb} {table.strip(chr(34))}"] += 1
    return counts


def four_player_room() -> Match:
    users = [User.objects.create(username=f"q{i}") for i in range(4)]
    match = services.match_create(ruleset="classic", players=4, mode="friendly", host=users[0])
    for user in users[1:]:
        services.match_join(code=match.code, user=user)
    return Match.objects.get(pk=match.pk)


def act(match: Match, n: int) -> tuple[str, Any, Counter[str]]:
    """The player to act rolls or moves; the statements it took."""
    state = match.state()
    assert state is not None
    user = match.seats.get(corner=state.to_play).user
    with CaptureQueriesContext(connection) as captured:
        if state.phase == "roll":
            kind = "roll"
            result = services.match_roll(
                match_id=match.pk, user=user, seq=match.seq, action_id=f"a{n}"
            )
        else:
            kind = "move"
            result = services.match_move(
                match_id=match.pk,
                user=user,
                seq=match.seq,
                action_id=f"a{n}",
                pawn=state.legal[0].pawn,
            )
    return kind, result, statements(captured)


def test_a_roll_or_move_is_two_reads_and_one_write_per_table() -> None:
    match = four_player_room()
    seen: Counter[str] = Counter()
    for n in range(40):
        kind, result, counts = act(match, n)
        passed = sum(1 for e in result.events if e["kind"] == "turn_passed")
        if fenced.enabled():
            # PostgreSQL's fenced path (issue 27): one read of the match, its seats and the
            # clock, and one statement that stores the action (CTE INSERTs and the UPDATE).
            assert counts == Counter({"SELECT games_match": 1, "WITH ?": 1}), (kind, counts)
            seen[f"{kind}{'+turn' if passed else ''}"] += 1
            match = Match.objects.get(pk=match.pk)
            if match.state() is None or match.state().phase == "over":
                break
            continue
        expected = Counter(
            {
                "SELECT games_match": 1,  # locked, with the database clock
                "SELECT games_seat": 1,  # with their users (a join)
                f"INSERT games_{kind}": 1,
                "INSERT games_matchevent": 1,  # every event of the action in one statement
                "UPDATE games_match": 1,
            }
        )
        if passed:
            expected["INSERT games_turn"] = 1
        assert counts == expected, (kind, result.events)
        assert sum(counts.values()) == (6 if passed else 5)
        seen[f"{kind}{'+turn' if passed else ''}"] += 1
        match = Match.objects.get(pk=match.pk)
        if match.state() is None or match.state().phase == "over":
            break
    # The run met both kinds of action, and a turn passing.
    assert seen["roll"] + seen["roll+turn"] > 0
    assert seen["move"] + seen["move+turn"] > 0
    assert seen["roll+turn"] + seen["move+turn"] > 0


def test_a_socket_reads_the_match_in_one_query() -> None:
    match = four_player_room()
    with CaptureQueriesContext(connection) as captured:
        loaded = match_with_seats(match.pk)
    assert len(captured.captured_queries) == 1
    assert loaded is not None
    read, seats = loaded
    assert read.pk == match.pk and read.seq == match.seq
    assert [s.corner for s in seats] == [0, 1, 2, 3]
    # The users came with the seats, and every seat holds the one match object.
    with CaptureQueriesContext(connection) as later:
        names = [s.user.username for s in seats]
        assert all(s.match is read for s in seats)
    assert len(later.captured_queries) == 0
    assert names == ["q0", "q1", "q2", "q3"]


def test_match_with_seats_of_a_missing_match() -> None:
    assert match_with_seats(10**9) is None
