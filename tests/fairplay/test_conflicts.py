"""The fair play desk keeps the dispute desk's conflict rules (`moderation.conflicts`), tried
as an insider would: a moderator who is also a player, reported by someone, losing to
someone, disputed by someone. Each route and service of the desk, without a browser."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from django.contrib.auth.models import Group
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from accounts.models import User
from accounts.rights import MODERATORS
from audit import actions
from audit import services as audit
from audit.models import AuditEntry
from disputes import services as disputes
from disputes.models import Dispute
from fairplay import services
from fairplay.models import Report, Sanction
from games.models import Seat
from moderation.conflicts import Conflicts, barred_from_dispute, barred_from_player
from ranked.models import Rating
from ranked.ratings import leaderboard
from tests.ranked.matches import finish, ranked_match

pytestmark = pytest.mark.django_db
_names = itertools.count()


def make(prefix: str = "p") -> User:
    return User.objects.create(username=f"{prefix}{next(_names)}")


def moderator(prefix: str = "mod") -> User:
    user = User.objects.create(username=f"{prefix}{next(_names)}", is_staff=True)
    user.groups.add(Group.objects.get_or_create(name=MODERATORS)[0])
    return user


def client_of(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


def audited(action: str) -> int:
    return AuditEntry.objects.filter(action=action).count()


def listed(user: User, on_desk_of: User) -> bool:
    page = client_of(on_desk_of).get(reverse("fairplay:desk")).content.decode()
    return f'data-player="{user.username}"' in page


def refused(run: Any) -> str:
    with pytest.raises(services.FairPlayError) as error:
        run()
    assert error.value.code == "conflict", error.value.code
    return error.value.message


def test_a_reported_moderator_never_sees_nor_closes_the_reports_about_them() -> None:
    mod, other = moderator(), moderator("other")
    r1, r2 = make("r"), make("r")
    services.report(reporter=r1, reported=mod, reason="abuse", note="Rude reactions")
    services.report(reporter=r2, reported=mod, reason="assisted")
    assert not listed(mod, on_desk_of=mod) and listed(mod, on_desk_of=other)
    page = client_of(mod).get(reverse("fairplay:player", args=[mod.pk]))
    assert page.status_code == 403
    text = page.content.decode()
    assert "This is about you." in text and r1.username not in text and "Rude" not in text
    assert not AuditEntry.objects.filter(action=actions.DISPUTE_RECORD_VIEWED).exists()
    assert client_of(mod).post(reverse("fairplay:close", args=[mod.pk])).status_code == 403
    assert refused(lambda: services.close_reports(moderator=mod, user=mod))
    assert Report.objects.filter(handled_at__isnull=True).count() == 2
    assert audited(actions.REPORTS_CLOSED) == 0
    # Nor do they read who reported them on the dispute desk's player record.
    assert client_of(mod).get(reverse("disputes:record", args=[mod.pk])).status_code == 403
    # Another moderator handles them.
    assert client_of(other).get(reverse("fairplay:player", args=[mod.pk])).status_code == 200
    assert services.close_reports(moderator=other, user=mod) == 2


def test_a_moderator_who_lost_to_a_player_never_gets_their_own_rating_back() -> None:
    mod, winner, honest = moderator(), make("w"), make("h")
    finish(ranked_match("duel", [winner, mod]), [winner, mod])
    finish(ranked_match("duel", [winner, honest]), [winner, honest])
    lost = Rating.objects.get(user=mod, queue="duel").ordinal
    assert lost < 0
    given = services.sanction(
        moderator=mod, user=winner, kind="warning", reason="Boosted.", boosting=True
    )
    assert given.given_back == 1 and given.given_back_seats
    assert not Seat.objects.filter(user=mod, rating_protected=True).exists()
    assert Seat.objects.filter(user=honest, rating_protected=True).count() == 1
    assert Rating.objects.get(user=mod, queue="duel").ordinal == pytest.approx(lost)


def test_a_moderator_who_played_a_player_in_a_reported_match_cannot_sanction_them() -> None:
    mod, other, winner, reporter = moderator(), moderator("other"), make("w"), make("r")
    match = finish(ranked_match("duel", [winner, mod]), [winner, mod])
    services.report(reporter=reporter, reported=winner, reason="throwing", match=match)
    assert not listed(winner, on_desk_of=mod) and listed(winner, on_desk_of=other)
    why = refused(
        lambda: services.sanction(
            moderator=mod, user=winner, kind="warning", reason="Boosted.", boosting=True
        )
    )
    assert "in a match they were reported over" in why
    posted = client_of(mod).post(
        reverse("fairplay:sanction", args=[winner.pk]),
        {"kind": "warning", "reason": "Boosted.", "boosting": "on"},
    )
    assert posted.status_code == 403
    assert not Sanction.objects.exists() and not Seat.objects.filter(rating_protected=True)
    # Nor when the moderator reported the player themselves.
    services.report(reporter=other, reported=winner, reason="abuse")
    assert "You reported" in refused(
        lambda: services.sanction(moderator=other, user=winner, kind="warning", reason="x")
    )


def test_no_retaliation_against_a_player_who_disputed_and_reported_the_moderator() -> None:
    mod, other = moderator(), moderator("other")
    player, witness = make("x"), make("r")
    match = finish(ranked_match("duel", [mod, player]), [mod, player])
    disputes.dispute_open(match_id=match.pk, user=player, reason="timer", text="Lag.")
    services.report(reporter=player, reported=mod, reason="abuse")
    services.report(reporter=witness, reported=player, reason="abuse")
    # Someone else reported the player: the moderator they reported does not see it.
    assert not listed(player, on_desk_of=mod) and listed(player, on_desk_of=other)
    why = refused(
        lambda: services.sanction(
            moderator=mod, user=player, kind="suspension", days=365, reason="Enough."
        )
    )
    assert f"{player} reported you." in why and "disputed a match you played" in why
    assert not Sanction.objects.exists()
    # Nor do they read the player's addresses on the dispute desk's record.
    Seat.objects.filter(user=player).update(ip="203.0.113.9")
    record = client_of(mod).get(reverse("disputes:record", args=[player.pk]))
    assert record.status_code == 403 and "203.0.113.9" not in record.content.decode()
    assert "reported you" in record.content.decode()
    assert not AuditEntry.objects.filter(action=actions.DISPUTE_RECORD_VIEWED).exists()
    seen = client_of(other).get(reverse("disputes:record", args=[player.pk]))
    assert seen.status_code == 200 and "203.0.113.9" in seen.content.decode()
    # A sanction another moderator gives is never appealed to them.
    given = services.sanction(moderator=other, user=player, kind="warning", reason="Rude.")
    assert mod not in services.appeal_candidates(given)
    with pytest.raises(services.FairPlayError) as nobody:
        services.appeal(user=player, sanction_id=given.pk, text="Not me.")
    assert nobody.value.code == "no_moderator"


def test_an_account_seen_at_the_moderators_address_is_someone_elses_case() -> None:
    mod, other, twin, reporter = moderator(), moderator("other"), make("t"), make("r")
    audit.record(action=actions.USER_SIGNED_IN, actor=mod, ip="198.51.100.40", obj=mod)
    audit.record(action=actions.USER_SIGNED_IN, actor=twin, ip="198.51.100.40", obj=twin)
    services.report(reporter=reporter, reported=twin, reason="accounts")
    assert not listed(twin, on_desk_of=mod) and listed(twin, on_desk_of=other)
    page = client_of(mod).get(reverse("fairplay:player", args=[twin.pk]))
    assert page.status_code == 403
    assert "was seen at one of your addresses" in page.content.decode()
    assert refused(lambda: services.sanction(moderator=mod, user=twin, kind="mark", reason="x"))
    given = services.sanction(moderator=other, user=twin, kind="mark", reason="Two accounts.")
    assert refused(lambda: services.lift(moderator=mod, sanction_id=given.pk))
    assert Sanction.objects.get().lifted_at is None


def test_only_the_moderator_an_appeal_went_to_reads_it() -> None:
    giver, judge, third = moderator("giver"), moderator("judge"), moderator("third")
    player = make("s")
    given = services.sanction(moderator=giver, user=player, kind="warning", reason="Rude.")
    services.appeal(user=player, sanction_id=given.pk, text="A private reason.")
    given.refresh_from_db()
    assert given.appeal_moderator == judge  # the fewest waiting, then by name
    url = reverse("fairplay:decide", args=[given.pk])
    for outsider in (giver, third):
        page = client_of(outsider).get(url)
        assert page.status_code == 404 and "A private reason." not in page.content.decode()
        posted = client_of(outsider).post(url, {"decision": "lifted", "note": "x"})
        assert posted.status_code == 404
    assert "A private reason." in client_of(judge).get(url).content.decode()
    given.refresh_from_db()
    assert given.appeal_decided_at is None


def test_an_appeal_lifted_undoes_the_give_back_and_the_mark_audited(settings: Any) -> None:
    settings.RANKED_LEADERBOARD_MIN_GAMES = 1
    giver, judge = moderator("giver"), moderator("judge")
    winner, honest = make("w"), make("h")
    for _ in range(2):
        finish(ranked_match("duel", [winner, honest]), [winner, honest])
    lost = Rating.objects.get(user=honest, queue="duel").ordinal
    assert winner in [r.user for r in leaderboard("duel")]
    given = services.sanction(
        moderator=giver, user=winner, kind="mark", reason="Boosted.", boosting=True
    )
    assert given.given_back == 2
    assert Rating.objects.get(user=honest, queue="duel").ordinal == pytest.approx(0.0, abs=1e-6)
    assert winner not in [r.user for r in leaderboard("duel")]
    services.appeal(user=winner, sanction_id=given.pk, text="They were fair games.")
    decided = client_of(judge).post(
        reverse("fairplay:decide", args=[given.pk]),
        {"decision": "lifted", "note": "Fair games after all."},
    )
    assert decided.status_code == 302
    given.refresh_from_db()
    assert given.lifted_at is not None and given.appeal_decision == "lifted"
    assert not Seat.objects.filter(rating_protected=True).exists()
    assert Rating.objects.get(user=honest, queue="duel").ordinal == pytest.approx(lost)
    assert winner in [r.user for r in leaderboard("duel")]
    assert audited(actions.MATCH_RATING_UNPROTECTED) == 2
    entry = AuditEntry.objects.get(action=actions.APPEAL_DECIDED)
    assert entry.actor == judge and entry.extra_data["taken_back"] == 2


def test_an_appeal_upheld_keeps_the_give_back() -> None:
    giver, judge = moderator("giver"), moderator("judge")
    winner, honest = make("w"), make("h")
    finish(ranked_match("duel", [winner, honest]), [winner, honest])
    given = services.sanction(
        moderator=giver, user=winner, kind="warning", reason="Boosted.", boosting=True
    )
    services.appeal(user=winner, sanction_id=given.pk, text="No.")
    services.decide_appeal(moderator=judge, sanction_id=given.pk, lift_it=False, note="Stands.")
    assert Seat.objects.filter(user=honest, rating_protected=True).count() == 1
    assert audited(actions.MATCH_RATING_UNPROTECTED) == 0


def test_an_appeal_whose_moderator_came_into_a_conflict_is_handed_on() -> None:
    giver, judge, third = moderator("giver"), moderator("judge"), moderator("third")
    player = make("s")
    given = services.sanction(moderator=giver, user=player, kind="warning", reason="Rude.")
    services.appeal(user=player, sanction_id=given.pk, text="Please.")
    given.refresh_from_db()
    assert given.appeal_moderator == judge
    services.report(reporter=player, reported=judge, reason="abuse")
    posted = client_of(judge).post(
        reverse("fairplay:decide", args=[given.pk]), {"decision": "upheld", "note": "No."}
    )
    assert posted.status_code == 302
    given.refresh_from_db()
    assert given.appeal_moderator == third and given.appeal_decided_at is None
    assert audited(actions.SANCTION_APPEALED) == 2
    assert client_of(judge).get(reverse("fairplay:decide", args=[given.pk])).status_code == 404
    services.decide_appeal(moderator=third, sanction_id=given.pk, lift_it=False, note="Stands.")


def test_the_dispute_desk_keeps_the_same_rules() -> None:
    mod, other = moderator(), moderator("other")
    a, b = make("a"), make("b")
    match = finish(ranked_match("duel", [a, b]), [a, b])
    services.report(reporter=b, reported=mod, reason="abuse")
    dispute = disputes.dispute_open(match_id=match.pk, user=b, reason="timer", text="Lag.")
    assert [str(w) for w in disputes.conflicts(dispute, mod)] == [f"{b} reported you."]
    assert disputes.assignable(dispute) == [other]
    # The other side of the match counts too: a void moves their rating.
    audit.record(action=actions.USER_SIGNED_IN, actor=other, ip="192.0.2.77", obj=other)
    audit.record(action=actions.USER_SIGNED_IN, actor=a, ip="192.0.2.77", obj=a)
    assert [str(w) for w in disputes.conflicts(dispute, other)] == [
        f"{a} was seen at one of your addresses."
    ]
    assert disputes.assignable(dispute) == []


def test_the_desk_reads_conflicts_in_the_same_queries_however_many_players() -> None:
    mod, player = moderator(), make("x")
    services.report(reporter=player, reported=mod, reason="abuse")

    def desk_queries() -> int:
        client = client_of(mod)
        with CaptureQueriesContext(connection) as seen:
            assert client.get(reverse("fairplay:desk")).status_code == 200
        return len(seen)

    for _ in range(2):
        services.report(reporter=make("r"), reported=make("y"), reason="abuse")
    few = desk_queries()
    for _ in range(6):
        services.report(reporter=make("r"), reported=make("y"), reason="abuse")
    assert desk_queries() == few


def test_the_rules_read_from_either_side_agree() -> None:
    """`Conflicts` (one moderator, many cases) and `barred_from_*` (one case, every
    moderator) are the same rules read from the two ends."""
    mods = [moderator() for _ in range(5)]
    a, b, c = make("a"), make("b"), make("c")
    played = finish(ranked_match("duel", [mods[0], a]), [mods[0], a])
    other = finish(ranked_match("duel", [b, c]), [b, c])
    services.report(reporter=a, reported=mods[1], reason="abuse")
    services.report(reporter=mods[2], reported=b, reason="abuse")
    services.report(reporter=c, reported=a, reason="throwing", match=played)
    audit.record(action=actions.USER_SIGNED_IN, actor=mods[3], ip="192.0.2.5", obj=mods[3])
    audit.record(action=actions.USER_SIGNED_IN, actor=c, ip="192.0.2.5", obj=c)
    first = disputes.dispute_open(match_id=other.pk, user=b, reason="timer", text="Lag.")
    disputes.dispute_settle(dispute_id=first.pk, moderator=mods[4], outcome="reject", reason="No")
    appeal = disputes.dispute_appeal(dispute_id=first.pk, user=b, text="Please.")
    mine = disputes.dispute_open(match_id=played.pk, user=a, reason="timer", text="Lag.")
    given = services.sanction(moderator=mods[1], user=c, kind="warning", reason="Rude.")
    services.appeal(user=c, sanction_id=given.pk, text="No.")
    for player in (a, b, c, *mods):
        barred = barred_from_player(player)
        for mod in mods:
            assert bool(Conflicts(mod).about(player)) == (mod.pk in barred), (mod, player)
    for dispute in (first, appeal, mine):
        barred = barred_from_dispute(dispute)
        for mod in mods:
            assert bool(Conflicts(mod).of(dispute)) == (mod.pk in barred), (mod, dispute)
    for mod in mods:  # and the admin's filter
        hidden = set(Dispute.objects.filter(Conflicts(mod).hidden_disputes()))
        assert hidden == {d for d in (first, appeal, mine) if Conflicts(mod).of(d)}, mod
    assert mods[3].pk in barred_from_player(c)  # seen at the same address


def test_the_list_of_moderators_a_case_may_go_to_costs_the_same_however_many_there_are() -> None:
    a, b = make("a"), make("b")
    match = finish(ranked_match("duel", [a, b]), [a, b])
    dispute = disputes.dispute_open(match_id=match.pk, user=b, reason="timer", text="Lag.")
    given = services.sanction(moderator=moderator(), user=a, kind="warning", reason="Rude.")

    def queries() -> int:
        with CaptureQueriesContext(connection) as seen:
            disputes.assignable(dispute)
            services.appeal_candidates(given)
        return len(seen)

    few = queries()
    for _ in range(4):
        moderator()
    assert queries() == few


def test_the_dispute_queue_reads_conflicts_in_the_same_queries_however_many_disputes() -> None:
    mod = moderator()

    def disputed() -> None:
        a, b = make("a"), make("b")
        match = finish(ranked_match("duel", [a, b]), [a, b])
        disputes.dispute_open(match_id=match.pk, user=b, reason="timer", text="Lag.")

    def queue_queries() -> int:
        client = client_of(mod)
        with CaptureQueriesContext(connection) as seen:
            assert client.get(reverse("disputes:queue")).status_code == 200
        return len(seen)

    for _ in range(2):
        disputed()
    few = queue_queries()
    for _ in range(3):
        disputed()
    assert queue_queries() == few


def test_the_conflict_page_says_why_in_the_readers_language(settings: Any) -> None:
    mod, reporter = moderator(), make("r")
    services.report(reporter=reporter, reported=mod, reason="abuse")
    audit.record(action=actions.USER_SIGNED_IN, actor=mod, ip="192.0.2.8", obj=mod)
    audit.record(action=actions.USER_SIGNED_IN, actor=reporter, ip="192.0.2.8", obj=reporter)
    client = client_of(mod)
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "de"
    page = client.get(reverse("fairplay:player", args=[reporter.pk])).content.decode()
    assert f"{reporter} hat dich gemeldet." in page
    assert f"{reporter} wurde an einer deiner Adressen gesehen." in page
    assert "Interessenkonflikt" in page


def test_the_admin_keeps_the_rules_and_the_raw_audit_log_is_the_operators() -> None:
    mod, other = moderator(), moderator("other")
    boss = User.objects.create_superuser(f"boss{next(_names)}", password="pw-for-tests")
    player, a, b = make("x"), make("a"), make("b")
    services.report(reporter=player, reported=mod, reason="abuse")
    played = finish(ranked_match("duel", [mod, player]), [mod, player])
    mine = disputes.dispute_open(match_id=played.pk, user=player, reason="timer", text="Lag.")
    disputes.dispute_note(dispute_id=mine.pk, moderator=other, text="An internal note.")
    theirs = finish(ranked_match("duel", [a, b]), [a, b])
    clear = disputes.dispute_open(match_id=theirs.pk, user=b, reason="timer", text="Lag.")

    def rows(user: User, url: str) -> str:
        page = client_of(user).get(url)
        assert page.status_code == 200, (url, page.status_code)
        return page.content.decode()

    listed_for_mod = rows(mod, "/admin/disputes/dispute/")
    assert f"/disputes/{clear.pk}/review/" in listed_for_mod
    assert f"/disputes/{mine.pk}/review/" not in listed_for_mod
    assert f"/disputes/{mine.pk}/review/" in rows(other, "/admin/disputes/dispute/")
    assert client_of(mod).get(f"/admin/disputes/dispute/{mine.pk}/change/").status_code in (
        302,
        404,
    )
    assert "An internal note." not in rows(mod, "/admin/disputes/caseentry/")
    assert "1 case entry" in rows(other, "/admin/disputes/caseentry/")
    # Who reported whom, and every address: the operator's, not a moderator's.
    assert client_of(mod).get("/admin/audit/auditentry/").status_code == 403
    assert client_of(boss).get("/admin/audit/auditentry/").status_code == 200
