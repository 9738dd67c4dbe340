"""Ratings: openskill's Plackett-Luce per queue from the final placings, stored on the seats,
audited, and recomputed without a voided match."""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from accounts.models import User
from audit import chain
from audit.models import AuditEntry
from games import services
from games.match.errors import ServiceError
from games.match.verify import verify_match
from games.models import Seat, Status
from ranked import ratings
from ranked.models import Rating

from .matches import MODEL, expected, finish, ranked_match

_names = itertools.count()


@pytest.fixture
def users(db: Any) -> list[User]:
    return [User.objects.create_user(f"r{next(_names)}", password="pw-for-tests") for _ in range(5)]


def rating_of(user: User, queue: str) -> Rating:
    return Rating.objects.get(user=user, queue=queue)


def test_duel_win_raises_the_winner_and_lowers_the_loser(users: list[User]) -> None:
    a, b = users[:2]
    match = finish(ranked_match("duel", [a, b]), [b, a])
    want = expected([[b.pk, a.pk]], [a.pk, b.pk])
    for user in (a, b):
        row = rating_of(user, "duel")
        assert (row.mu, row.sigma) == pytest.approx(want[user.pk])
        assert row.games == 1
        seat = Seat.objects.get(match=match, user=user)
        assert seat.rating_before == ratings.as_record(MODEL.mu, MODEL.sigma)
        assert seat.rating_after["mu"] == pytest.approx(want[user.pk][0], abs=1e-5)
        assert seat.rating_change == pytest.approx(
            seat.rating_after["ordinal"] - seat.rating_before["ordinal"], abs=1e-5
        )
    assert rating_of(b, "duel").wins == 1 and rating_of(a, "duel").wins == 0
    assert rating_of(b, "duel").ordinal > rating_of(a, "duel").ordinal
    logged = AuditEntry.objects.filter(action="rating.changed", object_id=str(match.pk))
    assert sorted(e.extra_data["user"] for e in logged) == sorted([a.pk, b.pk])
    assert chain.verify() is None


def test_four_players_rated_by_their_placings(users: list[User]) -> None:
    a, b, c, d = users[:4]
    match = finish(ranked_match("classic", [a, b, c, d]), [c, a, d, b])
    places = {s.user_id: s.place for s in match.seats.all()}
    assert places == {c.pk: 1, a.pk: 2, d.pk: 3, b.pk: 4}
    want = expected([[c.pk, a.pk, d.pk, b.pk]], [a.pk, b.pk, c.pk, d.pk])
    for user in (a, b, c, d):
        row = rating_of(user, "classic-4")
        assert (row.mu, row.sigma) == pytest.approx(want[user.pk])
    ordinals = [rating_of(u, "classic-4").ordinal for u in (c, a, d, b)]
    assert ordinals == sorted(ordinals, reverse=True)


def test_a_forfeit_places_last(users: list[User]) -> None:
    a, b, c = users[:3]
    match = ranked_match("classic", [a, b])
    services.match_forfeit(match_id=match.pk, corner=0, reason="timeout")  # a's seat
    match.refresh_from_db()
    assert {s.user_id: s.place for s in match.seats.all()} == {a.pk: 2, b.pk: 1}
    assert rating_of(a, "classic-2").mu < MODEL.mu < rating_of(b, "classic-2").mu
    del c


def test_unranked_and_house_rule_matches_are_not_rated(users: list[User]) -> None:
    a, b = users[:2]
    friendly = services.match_create(ruleset="duel", players=2, mode="friendly", host=a)
    services.match_join(code=friendly.code, user=b)
    services.match_resign(match_id=friendly.pk, user=a)
    assert not Rating.objects.exists()
    assert Seat.objects.get(match=friendly, user=b).rating_after is None
    house = services.match_create(
        ruleset="classic",
        players=2,
        mode="ranked",
        host=a,
        house_rules=["compulsory_capture"],
        paired=[a],
    )
    assert ratings.queue_of(house) is None


def test_voiding_gives_the_ratings_of_a_history_without_the_match(users: list[User]) -> None:
    a, b, c = users[:3]
    m1 = finish(ranked_match("duel", [a, b]), [a, b])
    m2 = finish(ranked_match("duel", [b, c]), [c, b])
    m3 = finish(ranked_match("duel", [c, a]), [c, a])
    m4 = finish(ranked_match("duel", [a, b]), [b, a])
    moderator = User.objects.create_user("mod", password="pw-for-tests")
    services.match_void(match_id=m2.pk, reason="dice dispute upheld", actor=moderator)

    want = expected([[a.pk, b.pk], [c.pk, a.pk], [b.pk, a.pk]], [a.pk, b.pk, c.pk])
    for user in (a, b, c):
        row = rating_of(user, "duel")
        assert (row.mu, row.sigma) == pytest.approx(want[user.pk])
    assert rating_of(c, "duel").games == 1 and rating_of(b, "duel").games == 2
    m2.refresh_from_db()
    assert m2.status == Status.VOID and m2.void_reason == "dice dispute upheld"
    assert all(s.place is None and s.rating_after is None for s in m2.seats.all())
    # The later matches were re-rated in order: m3's before is c's start value now.
    seat_c3 = Seat.objects.get(match=m3, user=c)
    assert seat_c3.rating_before == ratings.as_record(MODEL.mu, MODEL.sigma)
    seat_b4 = Seat.objects.get(match=m4, user=b)
    assert seat_b4.rating_after["mu"] == pytest.approx(want[b.pk][0], abs=1e-5)
    assert Seat.objects.get(match=m1, user=a).rating_before == ratings.as_record(
        MODEL.mu, MODEL.sigma
    )
    assert AuditEntry.objects.filter(action="match.voided", object_id=str(m2.pk)).exists()
    assert AuditEntry.objects.filter(action="rating.recomputed").count() == 1
    assert chain.verify() is None
    report = verify_match(m2)  # the voided match still replays and proves its dice
    assert report.ok, report

    with pytest.raises(ServiceError) as twice:
        services.match_void(match_id=m2.pk, reason="again", actor=moderator)
    assert twice.value.code == "already_void"


def test_only_a_finished_match_can_be_voided(users: list[User]) -> None:
    a, b = users[:2]
    match = ranked_match("duel", [a, b])
    with pytest.raises(ServiceError) as active:
        services.match_void(match_id=match.pk, reason="why", actor=a)
    assert active.value.code == "not_finished"
    finish(match, [a, b])
    with pytest.raises(ServiceError) as empty:
        services.match_void(match_id=match.pk, reason="  ", actor=a)
    assert empty.value.code == "bad_request"


def test_leaderboard_orders_by_ordinal_after_enough_games(users: list[User], settings: Any) -> None:
    settings.RANKED_LEADERBOARD_MIN_GAMES = 2
    settings.RANKED_PROVISIONAL_GAMES = 3
    a, b, c = users[:3]
    finish(ranked_match("duel", [a, b]), [a, b])
    finish(ranked_match("duel", [a, b]), [a, b])
    finish(ranked_match("duel", [a, c]), [a, c])
    board = ratings.leaderboard("duel")
    assert [r.user_id for r in board] == [a.pk, b.pk]  # c has one game: not listed yet
    assert board[0].ordinal > board[1].ordinal
    assert not board[0].provisional and board[1].provisional
