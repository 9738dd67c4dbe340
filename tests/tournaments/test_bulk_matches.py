"""`games.services.ranked_matches_create`, the batch way tournaments open their tables: the
same rows, checks and audit entries as `match_create` with ``paired`` and `match_join` for
each other player, one table at a time."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from accounts.models import User
from audit import actions
from audit import chain as audit_chain
from audit import services as audit
from audit.models import AuditEntry
from games import services as match_services
from games.match.errors import ServiceError
from games.match.verify import verify_match
from games.models import Match, MatchDeadline, MatchEvent, Seat, Status, Turn


def one_by_one(ruleset: str, table: list[User]) -> Match:
    match = match_services.match_create(
        ruleset=ruleset, players=len(table), mode="ranked", host=table[0], paired=table
    )
    for user in table[1:]:
        match_services.match_join(code=match.code, user=user)
    return Match.objects.get(pk=match.pk)


def shape(match: Match) -> dict[str, Any]:
    """What a match opened must look like, whichever way it was opened (no seeds, codes,
    ids or times)."""
    events = MatchEvent.objects.filter(match=match).order_by("seq")
    audits = AuditEntry.objects.filter(object_type="games.match", object_id=str(match.pk))
    options = dict(match.options)
    options["paired"] = len(options["paired"])
    return {
        "status": match.status,
        "mode": match.mode,
        "ruleset": match.ruleset,
        "players": match.players,
        "options": options,
        "seq": match.seq,
        "revision": match.revision,
        "turn_seq": match.turn_seq,
        "deadline": match.turn_deadline is not None,
        "deadline_row": MatchDeadline.objects.filter(match=match).exists(),
        "started": match.started_at is not None and match.first is not None,
        "snapshot": sorted(match.snapshot),
        "events": [(e.seq, e.change, e.kind, sorted(e.data)) for e in events],
        "seats": [
            (s.corner, s.bot, bool(s.client_seed), s.left, s.connected)
            for s in Seat.objects.filter(match=match).order_by("corner")
        ],
        "turns": list(Turn.objects.filter(match=match).values_list("n", "seq")),
        "audits": [(a.action, a.actor_id is not None) for a in audits.order_by("id")],
    }


@pytest.mark.parametrize(("ruleset", "size"), [("duel", 2), ("classic", 4)])
def test_a_batch_opens_what_one_by_one_opens(
    make_users: Callable[[int], list[User]], ruleset: str, size: int
) -> None:
    single = one_by_one(ruleset, make_users(size))
    tables = [make_users(size) for _ in range(3)]
    made = match_services.ranked_matches_create(ruleset=ruleset, tables=tables)
    assert all(isinstance(m, Match) for m in made)
    assert len({m.code for m in made if isinstance(m, Match)}) == 3
    expected = shape(single)
    for match, table in zip(made, tables, strict=True):
        assert isinstance(match, Match)
        stored = Match.objects.get(pk=match.pk)
        assert shape(stored) == expected
        assert stored.status == Status.ACTIVE and stored.host_id == table[0].pk
        assert [s.user_id for s in stored.seats.order_by("corner")] == [u.pk for u in table]
        # Its own dice: a commitment of its own server seed, and the whole stream checks.
        assert stored.commitment != single.commitment
        report = verify_match(stored)
        assert report.ok, report.line
    # The batch's audit entries link into the one global chain.
    assert audit_chain.verify() is None


def test_a_batch_refuses_only_the_tables_that_may_not_sit(
    make_users: Callable[[int], list[User]],
) -> None:
    a, b, c, d, e, f, g, h = make_users(8)
    busy = one_by_one("duel", [g, h])
    guest = User.objects.create(username="guest-00bulk01")
    made = match_services.ranked_matches_create(
        ruleset="duel", tables=[[a, b], [c, g], [d, guest], [a, e], [e, f]]
    )
    assert isinstance(made[0], Match)
    assert isinstance(made[1], ServiceError) and made[1].code == "ranked_busy"
    assert busy.code in made[1].message
    assert isinstance(made[2], ServiceError) and made[2].code == "forbidden"
    assert isinstance(made[3], ServiceError) and made[3].code == "ranked_busy"  # a, twice
    assert isinstance(made[4], Match)
    assert Match.objects.filter(mode="ranked").count() == 3
    assert not Seat.objects.filter(user__in=[c, d, guest]).exists()
    # A single table of the wrong size is refused as match_create refuses it.
    (wrong,) = match_services.ranked_matches_create(ruleset="classic", tables=[[c, d, b]])
    assert isinstance(wrong, ServiceError)


def test_record_many_chains_like_record(make_users: Callable[[int], list[User]]) -> None:
    audit.record(action=actions.TOURNAMENT_CREATED, extra={"n": 0})
    made = audit.record_many(
        [{"action": actions.TOURNAMENT_CREATED, "extra": {"n": n}} for n in range(1, 6)]
    )
    audit.record(action=actions.TOURNAMENT_CREATED, extra={"n": 6})
    entries = list(AuditEntry.objects.filter(action=actions.TOURNAMENT_CREATED).order_by("id"))
    assert [e.extra_data["n"] for e in entries] == list(range(7))
    assert made == [e.pk for e in entries[1:6]]
    for before, after in zip(entries, entries[1:], strict=False):
        assert after.prev_hash == before.hash
    assert audit_chain.verify() is None
    match = one_by_one("duel", make_users(2))
    with pytest.raises(ValueError, match="own chain"):
        audit.record_many([{"action": actions.SEAT_CONNECTED, "obj": match}])
