"""Disputes: who may open one and when, who may see and settle it, and what upholding does
to ratings and the audit log."""

from __future__ import annotations

import random
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from accounts.models import User
from audit import chain
from audit import services as audit
from audit.models import AuditEntry
from disputes import review, services
from disputes.models import Dispute, DisputeStatus
from disputes.services import DisputeError
from games import services as games
from games.models import Match, Seat, Status
from ranked.models import Rating
from tests.ranked.matches import expected, finish, ranked_match
from tests.storage.driver import play

Make = Callable[..., User]


def open_one(match: Match, user: User, **kw: Any) -> Dispute:
    args = {"reason": "dice", "text": "Six ones in a row, really?", "turn": None, **kw}
    return services.dispute_open(match_id=match.pk, user=user, **args)


def client_for(user: User) -> Client:
    c = Client()
    c.force_login(user)
    return c


# ---------------------------------------------------------------------------- opening


def test_a_player_opens_one_dispute_per_match_at_a_time(make_user: Make, moderator: User) -> None:
    a, b = make_user(), make_user()
    match = finish(ranked_match("duel", [a, b]), [a, b])
    first = open_one(match, b, turn=1)
    assert first.status == DisputeStatus.OPEN and first.turn == 1
    with pytest.raises(DisputeError) as again:
        open_one(match, b)
    assert again.value.code == "already_open"
    assert open_one(match, a).player == a  # the other player has their own
    services.dispute_settle(dispute_id=first.pk, moderator=moderator, uphold=False, reason="no")
    with pytest.raises(DisputeError) as refiled:  # settled: the way on is one appeal
        open_one(match, b)
    assert refiled.value.code == "refiled"
    opened = AuditEntry.objects.filter(action="dispute.opened", object_id=str(first.pk)).get()
    assert opened.actor_id == b.pk and opened.extra_data["code"] == match.code


def test_only_players_of_a_finished_match_within_the_window(make_user: Make, settings: Any) -> None:
    a, b, outsider = make_user(), make_user(), make_user()
    match = ranked_match("duel", [a, b])
    with pytest.raises(DisputeError) as active:
        open_one(match, a)
    assert active.value.code == "not_finished"
    match = finish(match, [a, b])
    with pytest.raises(DisputeError) as stranger:
        open_one(match, outsider)
    assert stranger.value.code == "not_a_player"
    for bad in ({"reason": "luck"}, {"text": "   "}, {"turn": match.turn_seq + 1}, {"turn": 0}):
        with pytest.raises(DisputeError) as refused:
            open_one(match, a, **bad)
        assert refused.value.code == "bad_request", bad
    # The window: 14 days by default, then closed.
    assert services.window_days() == 14
    Match.objects.filter(pk=match.pk).update(finished_at=match.finished_at - timedelta(days=15))
    with pytest.raises(DisputeError) as late:
        open_one(match, a)
    assert late.value.code == "window_closed"
    settings.DISPUTE_WINDOW_DAYS = 30
    assert open_one(match, a).status == DisputeStatus.OPEN
    assert not Dispute.objects.filter(player__in=[b, outsider]).exists()


def test_the_form_opens_a_dispute_and_the_replay_page_shows_it(make_user: Make) -> None:
    a, b = make_user(), make_user()
    match = finish(ranked_match("duel", [a, b]), [a, b])
    c = client_for(b)
    page = c.get(reverse("replay", args=[match.code])).content.decode()
    assert "Report a problem" in page
    form = c.get(reverse("disputes:open", args=[match.code]) + "?turn=1")
    assert form.status_code == 200 and 'value="1"' in form.content.decode()
    bad = c.post(reverse("disputes:open", args=[match.code]), {"reason": "dice", "text": ""})
    assert bad.status_code == 200 and not Dispute.objects.exists()
    sent = c.post(
        reverse("disputes:open", args=[match.code]),
        {"reason": "timer", "text": "My clock ran out while connected", "turn": "1"},
    )
    dispute = Dispute.objects.get()
    assert sent.status_code == 302 and sent["Location"] == reverse(
        "disputes:detail", args=[dispute.pk]
    )
    assert (dispute.reason, dispute.turn) == ("timer", 1)
    page = c.get(reverse("replay", args=[match.code])).content.decode()
    assert "Your dispute" in page and "Open" in page and "Report a problem" not in page
    assert "My disputes" in c.get(reverse("disputes:mine")).content.decode()
    # The other player is not told about b's dispute.
    other = client_for(a).get(reverse("replay", args=[match.code])).content.decode()
    assert "Your dispute" not in other and "My clock ran out" not in other


def test_the_room_page_of_a_match_offers_a_dispute_and_then_shows_it(make_user: Make) -> None:
    a, b = make_user(), make_user()
    match = ranked_match("duel", [a, b])
    c = client_for(b)
    live = c.get(reverse("room", args=[match.code])).content.decode()
    # Shown by the page when the match ends while it is open; no box while it is played.
    assert 'id="end-report"' in live and "dispute-box" not in live
    finish(match, [a, b])
    room = c.get(reverse("room", args=[match.code])).content.decode()
    assert 'id="report-problem"' in room and 'id="end-report"' not in room
    open_one(match, b)
    room = c.get(reverse("room", args=[match.code])).content.decode()
    assert "Your dispute" in room and 'id="report-problem"' not in room
    assert (
        "Your dispute" not in client_for(a).get(reverse("room", args=[match.code])).content.decode()
    )


# ---------------------------------------------------------------------------- permissions


def test_a_player_cannot_read_another_players_dispute(make_user: Make, moderator: User) -> None:
    a, b, c = make_user(), make_user(), make_user()
    match = finish(ranked_match("duel", [a, b]), [a, b])
    dispute = open_one(match, b, text="private words")
    url = reverse("disputes:detail", args=[dispute.pk])
    assert client_for(b).get(url).status_code == 200
    for other in (a, c):
        response = client_for(other).get(url)
        assert response.status_code == 404
        assert "private words" not in response.content.decode()
        assert (
            "private words" not in client_for(other).get(reverse("disputes:mine")).content.decode()
        )
    profile = reverse("profile", args=[b.username])
    assert "Your disputes" not in client_for(a).get(profile).content.decode()
    assert "Your disputes" in client_for(b).get(profile).content.decode()
    assert client_for(moderator).get(url)["Location"] == reverse(
        "disputes:review", args=[dispute.pk]
    )
    anonymous = Client().get(url)
    assert anonymous.status_code == 302 and "/accounts/login/" in anonymous["Location"]


def test_non_moderators_cannot_review_or_settle(make_user: Make, moderator: User) -> None:
    a, b = make_user(), make_user()
    match = finish(ranked_match("duel", [a, b]), [a, b])
    dispute = open_one(match, b)
    staff_only = make_user("staff")
    staff_only.is_staff = True  # staff, but not in the moderators group
    staff_only.save()
    for user in (a, b, staff_only):
        c = client_for(user)
        for name in ("disputes:review", "disputes:replay"):
            assert c.get(reverse(name, args=[dispute.pk])).status_code == 403
        assert c.get(reverse("disputes:queue")).status_code == 403
        posted = c.post(
            reverse("disputes:settle", args=[dispute.pk]), {"outcome": "uphold", "reason": "x"}
        )
        assert posted.status_code == 403
        with pytest.raises(DisputeError) as refused:
            services.dispute_settle(dispute_id=dispute.pk, moderator=user, uphold=True, reason="x")
        assert refused.value.code == "forbidden"
    dispute.refresh_from_db()
    match.refresh_from_db()
    assert dispute.status == DisputeStatus.OPEN and match.status == Status.FINISHED
    assert not AuditEntry.objects.filter(action__in=["dispute.viewed", "dispute.settled"]).exists()
    assert "Disputes" not in client_for(a).get("/").content.decode().split("<main")[0]
    assert "Disputes" in client_for(moderator).get("/").content.decode().split("<main")[0]


# ---------------------------------------------------------------------------- settling


def test_upholding_voids_and_gives_the_ratings_of_a_history_without_the_match(
    make_user: Make, moderator: User
) -> None:
    a, b, c = make_user(), make_user(), make_user()
    finish(ranked_match("duel", [a, b]), [a, b])
    disputed = finish(ranked_match("duel", [b, c]), [c, b])
    finish(ranked_match("duel", [c, a]), [c, a])
    finish(ranked_match("duel", [a, b]), [b, a])
    dispute = open_one(disputed, b, reason="timer")
    page = client_for(moderator).post(
        reverse("disputes:settle", args=[dispute.pk]),
        {"outcome": "uphold", "reason": "The server clock skipped b's turn."},
    )
    assert page.status_code == 302
    dispute.refresh_from_db()
    assert dispute.is_open and dispute.proposed_by == moderator  # ranked: a second moderator
    second = make_user("second")
    second.is_staff = True
    second.save()
    second.groups.set(moderator.groups.all())
    client_for(second).post(reverse("disputes:approve", args=[dispute.pk]), {"approve": "yes"})
    dispute.refresh_from_db()
    disputed.refresh_from_db()
    assert dispute.status == DisputeStatus.UPHELD and dispute.settled_by == second
    assert disputed.status == Status.VOID and "b's turn" not in disputed.void_reason
    # The ratings equal those computed from scratch over the history without the match.
    want = expected([[a.pk, b.pk], [c.pk, a.pk], [b.pk, a.pk]], [a.pk, b.pk, c.pk])
    for user in (a, b, c):
        row = Rating.objects.get(user=user, queue="duel")
        assert (row.mu, row.sigma) == pytest.approx(want[user.pk])
    assert Rating.objects.get(user=c, queue="duel").games == 1
    assert all(s.place is None for s in Seat.objects.filter(match=disputed))
    assert chain.verify() is None
    settled = AuditEntry.objects.get(action="dispute.settled")
    assert settled.actor_id == second.pk and settled.extra_data["outcome"] == "upheld"
    assert settled.extra_data["proposed_by"] == moderator.pk
    assert AuditEntry.objects.filter(action="match.voided", object_id=str(disputed.pk)).exists()
    # The player is told: a new decision in the nav, shown on their dispute and the match page.
    player = client_for(b)
    assert "1 new" in player.get("/").content.decode()
    detail = player.get(reverse("disputes:detail", args=[dispute.pk])).content.decode()
    assert "Upheld" in detail and "b&#x27;s turn" in detail
    assert "1 new" not in player.get("/").content.decode()
    assert (
        "This match is void" in player.get(reverse("replay", args=[disputed.code])).content.decode()
    )


def test_a_settled_dispute_cannot_be_settled_twice(make_user: Make, moderator: User) -> None:
    a, b = make_user(), make_user()
    match = finish(ranked_match("duel", [a, b]), [a, b])
    dispute = open_one(match, b)
    services.dispute_settle(
        dispute_id=dispute.pk, moderator=moderator, uphold=False, reason="Fair dice"
    )
    for uphold in (True, False):
        with pytest.raises(DisputeError) as twice:
            services.dispute_settle(
                dispute_id=dispute.pk, moderator=moderator, uphold=uphold, reason="again"
            )
        assert twice.value.code == "already_settled"
    match.refresh_from_db()
    assert match.status == Status.FINISHED  # the rejected dispute's match still counts
    dispute.refresh_from_db()
    assert (dispute.status, dispute.decision) == (DisputeStatus.REJECTED, "Fair dice")
    assert AuditEntry.objects.filter(action="dispute.settled").count() == 1
    with pytest.raises(DisputeError) as empty:
        services.dispute_settle(
            dispute_id=open_one(match, a).pk, moderator=moderator, uphold=True, reason=" "
        )
    assert empty.value.code == "bad_request"


def test_a_second_dispute_on_a_void_match_is_closed_as_its_duplicate(
    make_user: Make, moderator: User, settings: Any
) -> None:
    settings.DISPUTE_VOID_APPROVAL = False
    a, b = make_user(), make_user()
    match = finish(ranked_match("duel", [a, b]), [a, b])
    one, two = open_one(match, a), open_one(match, b)
    services.dispute_settle(dispute_id=one.pk, moderator=moderator, uphold=True, reason="bad")
    with pytest.raises(DisputeError) as void:
        services.dispute_settle(dispute_id=two.pk, moderator=moderator, uphold=True, reason="same")
    assert void.value.code == "already_void"
    assert f"already void by dispute {one.pk}" in void.value.message
    page = client_for(moderator).get(reverse("disputes:review", args=[two.pk])).content.decode()
    assert "The match is already void by" in page and f"dispute {one.pk}</a>" in page
    services.dispute_settle(dispute_id=two.pk, moderator=moderator, outcome="duplicate")
    two.refresh_from_db()
    assert two.status == DisputeStatus.DUPLICATE and two.duplicate_of == one
    assert two.decision == f"This is settled by dispute {one.pk}: the match is void already."
    assert AuditEntry.objects.filter(action="match.voided").count() == 1
    assert (
        AuditEntry.objects.get(action="dispute.settled", object_id=str(two.pk)).extra_data[
            "duplicate_of"
        ]
        == one.pk
    )


def test_a_rejection_on_a_void_match_does_not_say_the_result_stands(
    make_user: Make, moderator: User, settings: Any
) -> None:
    settings.DISPUTE_VOID_APPROVAL = False
    a, b = make_user(), make_user()
    match = finish(ranked_match("duel", [a, b]), [a, b])
    one, two = open_one(match, a), open_one(match, b)
    services.dispute_settle(dispute_id=one.pk, moderator=moderator, uphold=True, reason="bad")
    c = client_for(moderator)
    done = c.post(
        reverse("disputes:settle", args=[two.pk]),
        {"outcome": "reject", "reason": "Nothing more to do here."},
        follow=True,
    ).content.decode()
    assert "the result stands" not in done and "void by another decision" in done
    page = client_for(b).get(reverse("disputes:detail", args=[two.pk])).content.decode()
    assert "result of the match stands" not in page and "void by another decision" in page


# ---------------------------------------------------------------------------- the review page


def test_the_review_page_shows_the_proof_timeline_stats_and_addresses(
    make_user: Make, moderator: User
) -> None:
    a, b = make_user(), make_user()
    match = ranked_match("classic", [a, b])
    Seat.objects.filter(match=match, user=a).update(ip="203.0.113.7")
    match = play(match, random.Random(5), actions=60)
    assert match.status == Status.FINISHED
    dispute = open_one(match, a, turn=3)
    c = client_for(moderator)
    response = c.get(reverse("disputes:review", args=[dispute.pk]), REMOTE_ADDR="198.51.100.9")
    page = response.content.decode()
    assert response.status_code == 200
    assert "dice verified" in page and "The server seed matches its commitment." in page
    n_rolls = match.rolls.count()
    assert f"{n_rolls} rolls re-derived from the seed: all match." in page
    assert "turn 3 begins" in page and "203.0.113.7" in page
    assert 'id="chain-result" class="ok"' in page
    viewed = AuditEntry.objects.get(action="dispute.viewed")
    assert (viewed.actor_id, viewed.ip, viewed.object_id) == (
        moderator.pk,
        "198.51.100.9",
        str(dispute.pk),
    )
    frame = c.get(reverse("disputes:replay", args=[dispute.pk]))
    assert frame.status_code == 200 and frame["X-Frame-Options"] == "SAMEORIGIN"
    assert "replay-config" in frame.content.decode()
    data = review.review(dispute)
    counted = sum(s["match_stats"].n for s in data["seats"])
    assert counted == n_rolls and data["proof"].checked == n_rolls and data["chain_ok"]


def test_the_queue_lists_open_disputes_oldest_first_with_filters(
    make_user: Make, moderator: User
) -> None:
    a, b = make_user(), make_user()
    m1 = finish(ranked_match("duel", [a, b]), [a, b])
    m2 = finish(ranked_match("duel", [a, b]), [b, a])
    old = open_one(m1, a, reason="behaviour")
    new = open_one(m2, b, reason="dice")
    Dispute.objects.filter(pk=old.pk).update(opened_at=old.opened_at - timedelta(days=4))
    settled = open_one(m1, b, reason="other")
    services.dispute_settle(dispute_id=settled.pk, moderator=moderator, uphold=False, reason="no")
    c = client_for(moderator)

    def listed(query: str = "") -> list[int]:
        response = c.get(reverse("disputes:queue") + query)
        assert response.status_code == 200
        return [d.pk for d in response.context["disputes"]]

    assert listed() == [old.pk, new.pk]
    assert listed("?reason=dice") == [new.pk]
    assert listed("?age=3") == [old.pk]
    assert listed("?status=rejected") == [settled.pk]
    assert listed("?status=all") == [old.pk, new.pk, settled.pk]


# ---------------------------------------------------------------------------- statistics


def test_chi_square_against_known_values() -> None:
    # The 5% and 1% critical values of chi-square with 5 degrees of freedom (tables).
    assert review.chi_square_p(11.0705) == pytest.approx(0.05, abs=1e-5)
    assert review.chi_square_p(15.0863) == pytest.approx(0.01, abs=1e-5)
    assert review.chi_square_p(1.0) == pytest.approx(0.962566, abs=1e-6)
    assert review.chi_square_p(0) == 1.0
    stats = review.dice_stats([1] * 10 + [2] * 10 + [3] * 10 + [4] * 10 + [5] * 10 + [6] * 10)
    assert stats.counts == [10] * 6 and stats.chi2 == 0 and stats.p == 1.0
    # 60 rolls: 20 sixes, 8 of each other face: chi2 = (100 + 5 * 4) / 10 = 12.
    skewed = review.dice_stats([6] * 20 + [f for f in range(1, 6) for _ in range(8)])
    assert skewed.chi2 == pytest.approx(12.0)
    assert skewed.p == pytest.approx(0.034788, abs=1e-6)
    assert not skewed.suspicious
    assert review.dice_stats([6] * 30).suspicious
    assert review.dice_stats([]).p is None


def test_recent_rolls_are_the_players_own_latest(make_user: Make) -> None:
    a, b = make_user(), make_user()
    match = play(ranked_match("classic", [a, b]), random.Random(2), actions=40)
    corner_a = Seat.objects.get(match=match, user=a).corner
    mine = list(
        match.rolls.filter(corner=corner_a).order_by("-at", "-id").values_list("face", flat=True)
    )
    assert review.recent_faces(a) == mine
    assert review.recent_faces(a, limit=3) == mine[:3]


def test_the_timeline_has_timeouts_disconnects_and_reconnects(
    make_user: Make, moderator: User, settings: Any
) -> None:
    settings.LUDO_TIME_SCALE = 0.0  # deadlines fall due at once
    a, b = make_user(), make_user()
    match = ranked_match("classic", [a, b])
    corner_a = Seat.objects.get(match=match, user=a).corner
    audit.record(
        action="seat.disconnected", actor=a, ip="192.0.2.44", obj=match, extra={"corner": corner_a}
    )
    audit.record(
        action="seat.connected", actor=a, ip="192.0.2.45", obj=match, extra={"corner": corner_a}
    )
    match.refresh_from_db()
    games.match_timeout(match_id=match.pk, turn_seq=match.turn_seq)
    match = finish(match, [a, b])
    dispute = open_one(match, b, reason="timer")
    data = review.review(dispute)
    flags = [(m.flag, m.what, m.ip) for m in data["timeline"]]
    assert ("disconnect", "disconnected", "192.0.2.44") in flags
    assert ("reconnect", "connected", "192.0.2.45") in flags
    assert any(f == "timeout" and "timed out" in w for f, w, _ in flags)
    times = [m.at for m in data["timeline"]]
    assert times == sorted(times)
    seat_a = next(s for s in data["seats"] if s["seat"].user_id == a.pk)
    assert {"192.0.2.44", "192.0.2.45"} <= set(seat_a["ips"])
    page = client_for(moderator).get(reverse("disputes:review", args=[dispute.pk]))
    assert "192.0.2.44" in page.content.decode()
    # Addresses are for staff only: the player's own dispute page never shows them.
    mine = client_for(b).get(reverse("disputes:detail", args=[dispute.pk])).content.decode()
    assert "192.0.2.4" not in mine


def test_the_timeline_shows_the_computer_taking_an_away_seat(
    make_user: Make, settings: Any
) -> None:
    a, b = make_user(), make_user()
    match = games.match_create(ruleset="mensch", players=2, mode="friendly", host=a)
    games.match_join(code=match.code, user=b)
    corner_b = Seat.objects.get(match=match, user=b).corner
    games.seat_set_connected(match_id=match.pk, user=b, connected=True)
    games.seat_set_connected(match_id=match.pk, user=b, connected=False)
    settings.LUDO_TIME_SCALE = 0.0  # the grace runs out at once
    assert games.seat_grace_expired(match_id=match.pk, corner=corner_b) == "away"
    match = finish(match, [a, b])
    data = review.review(open_one(match, a, reason="timer"))
    moments = [(m.flag, m.what, m.corner) for m in data["timeline"]]
    what = "the computer plays the seat while the player is away"
    assert ("disconnect", what, corner_b) in moments
    assert any(e["entry"].action == "seat.away" for e in data["entries"])


@pytest.mark.django_db(transaction=True)
def test_two_moderators_settling_at_once_settle_it_once(
    make_user: Make, moderator: User, settings: Any
) -> None:
    """The row lock: two settlements racing, one wins and the other is refused (PostgreSQL;
    SQLite serialises writers by itself). Upholding here voids at once (no second approval),
    so both calls settle and only the lock decides which one does."""
    settings.DISPUTE_VOID_APPROVAL = False
    from django.db import connection

    if connection.vendor != "postgresql":
        pytest.skip("row locks are PostgreSQL's; SQLite runs one writer at a time")
    import threading

    from django.db import connections

    a, b = make_user(), make_user()
    match = finish(ranked_match("duel", [a, b]), [a, b])
    dispute = open_one(match, b)
    barrier = threading.Barrier(2)
    outcomes: list[str] = []

    def settle(uphold: bool) -> None:
        try:
            barrier.wait()
            services.dispute_settle(
                dispute_id=dispute.pk, moderator=moderator, uphold=uphold, reason="race"
            )
            outcomes.append("settled")
        except DisputeError as e:
            outcomes.append(e.code)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=settle, args=(flag,)) for flag in (True, False)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(outcomes) == ["already_settled", "settled"]
    assert AuditEntry.objects.filter(action="dispute.settled").count() == 1
    assert chain.verify() is None
