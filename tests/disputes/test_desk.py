"""The dispute desk's rules, one test each: conflicts of interest, the second approval of a
ranked void, appeals to another moderator, the re-filing limit, questions to the player,
notes that stay internal, rating protection, the audited un-void, and the audit of rights
and admin sign-ins."""

from __future__ import annotations

import importlib
import time
from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth.models import Group
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.test import Client
from django.urls import reverse

from accounts.models import User
from audit import chain
from audit.models import AuditEntry
from disputes import services
from disputes.models import MODERATORS, CaseEntry, Dispute, DisputeStatus
from disputes.services import DisputeError
from games import services as games
from games.match.verify import verify_match
from games.models import Match, Roll, Seat, Status
from ranked.models import Rating
from tests.ranked.matches import expected, finish, ranked_match

Make = Callable[..., User]


def open_one(match: Match, user: User, **kw: Any) -> Dispute:
    args = {"reason": "timer", "text": "I lost my connection.", "turn": None, **kw}
    return services.dispute_open(match_id=match.pk, user=user, **args)


def client_for(user: User) -> Client:
    c = Client()
    c.force_login(user)
    return c


@pytest.fixture
def make_moderator(make_user: Make) -> Make:
    def make(name: str | None = None) -> User:
        user = make_user(name)
        user.is_staff = True
        user.save()
        user.groups.add(Group.objects.get_or_create(name=MODERATORS)[0])
        return user

    return make


# ---------------------------------------------------------------------------- conflicts


def test_a_moderator_cannot_handle_a_dispute_on_a_match_they_played(
    make_user: Make, make_moderator: Make
) -> None:
    staff, winner, other = make_moderator("staffplayer"), make_user(), make_moderator("other")
    match = finish(ranked_match("duel", [winner, staff]), [winner, staff])
    dispute = open_one(match, staff)  # he lost and disputes it
    for step in (
        lambda: services.dispute_settle(
            dispute_id=dispute.pk, moderator=staff, outcome="uphold", reason="mine"
        ),
        lambda: services.dispute_assign(dispute_id=dispute.pk, moderator=staff),
        lambda: services.dispute_note(dispute_id=dispute.pk, moderator=staff, text="x"),
    ):
        with pytest.raises(DisputeError) as refused:
            step()
        assert refused.value.code == "conflict" and "You played in this match." in (
            refused.value.message
        )
    with pytest.raises(DisputeError) as given:  # nor can another give it to him
        services.dispute_assign(dispute_id=dispute.pk, moderator=other, assignee=staff)
    assert given.value.code == "conflict"
    assert [m.pk for m in services.assignable(dispute)] == [other.pk]  # not even listed
    page = client_for(staff).get(reverse("disputes:review", args=[dispute.pk]))
    assert page.status_code == 403 and "You played in this match." in page.content.decode()
    queue = client_for(staff).get(reverse("disputes:queue")).content.decode()
    assert "Conflict of interest" in queue
    assert reverse("disputes:review", args=[dispute.pk]) not in queue
    match.refresh_from_db()
    assert match.status == Status.FINISHED and Dispute.objects.get(pk=dispute.pk).is_open


def test_a_moderator_sharing_an_address_with_the_filer_is_conflicted(
    make_user: Make, make_moderator: Make
) -> None:
    a, b, mod, clean = make_user(), make_user(), make_moderator("athome"), make_moderator()
    match = finish(ranked_match("duel", [a, b]), [a, b])
    Seat.objects.filter(match=match, user=b).update(ip="198.51.100.20")
    from audit import services as audit

    audit.record(action="user.signed_in", actor=mod, ip="198.51.100.20", obj=mod)
    dispute = open_one(match, b)
    assert [str(why) for why in services.conflicts(dispute, mod)] == [
        f"{b} was seen at one of your addresses."
    ]
    assert services.conflicts(dispute, clean) == []
    assert mod not in services.assignable(dispute)
    with pytest.raises(DisputeError) as refused:
        services.dispute_settle(dispute_id=dispute.pk, moderator=mod, outcome="reject", reason="x")
    assert refused.value.code == "conflict"


# ---------------------------------------------------------------------------- second approval


def test_voiding_a_ranked_match_needs_a_second_moderator(
    make_user: Make, make_moderator: Make, settings: Any
) -> None:
    a, b = make_user(), make_user()
    first, second = make_moderator("first"), make_moderator("second")
    match = finish(ranked_match("duel", [a, b]), [a, b])
    dispute = open_one(match, b)
    proposed = services.dispute_settle(
        dispute_id=dispute.pk, moderator=first, outcome="uphold", reason="Your connection dropped."
    )
    match.refresh_from_db()
    assert proposed.awaiting_approval and match.status == Status.FINISHED
    with pytest.raises(DisputeError) as own:
        services.dispute_approve(dispute_id=dispute.pk, moderator=first, approve=True)
    assert own.value.code == "conflict"
    with pytest.raises(DisputeError) as settle_again:  # nor settled around the proposal
        services.dispute_settle(
            dispute_id=dispute.pk, moderator=second, outcome="reject", reason="no"
        )
    assert settle_again.value.code == "needs_approval"
    # Refused: the dispute stays open, the proposal is gone.
    services.dispute_approve(dispute_id=dispute.pk, moderator=second, approve=False, note="Weak")
    dispute.refresh_from_db()
    assert dispute.is_open and not dispute.awaiting_approval
    assert AuditEntry.objects.filter(action="dispute.proposal_refused").count() == 1
    # Proposed again and approved by the second: void, and the proposer's message is sent.
    services.dispute_settle(
        dispute_id=dispute.pk, moderator=first, outcome="uphold", reason="Your connection dropped."
    )
    services.dispute_approve(dispute_id=dispute.pk, moderator=second, approve=True)
    dispute.refresh_from_db()
    match.refresh_from_db()
    assert dispute.status == DisputeStatus.UPHELD and dispute.settled_by == second
    assert dispute.decision == "Your connection dropped."
    assert match.status == Status.VOID
    # Off (DISPUTE_VOID_APPROVAL): one moderator voids at once.
    settings.DISPUTE_VOID_APPROVAL = False
    other = finish(ranked_match("duel", [a, b]), [b, a])
    one = services.dispute_settle(
        dispute_id=open_one(other, a).pk, moderator=first, outcome="uphold", reason="ok"
    )
    assert one.status == DisputeStatus.UPHELD


# ---------------------------------------------------------------------------- appeals, re-filing


def test_an_appeal_goes_to_another_moderator_once(make_user: Make, make_moderator: Make) -> None:
    a, b = make_user(), make_user()
    decider, other = make_moderator("decider"), make_moderator("zother")
    match = finish(ranked_match("duel", [a, b]), [a, b])
    dispute = open_one(match, b)
    services.dispute_settle(
        dispute_id=dispute.pk, moderator=decider, outcome="reject", reason="The dice were fair."
    )
    with pytest.raises(DisputeError) as refiled:
        open_one(match, b)
    assert refiled.value.code == "refiled"
    c = client_for(b)
    page = c.get(reverse("disputes:detail", args=[dispute.pk])).content.decode()
    assert "Appeal this decision" in page
    c.post(reverse("disputes:appeal", args=[dispute.pk]), {"text": "Look at turn 40 again."})
    appeal = Dispute.objects.get(appeal_of=dispute)
    assert appeal.is_appeal and appeal.is_open and appeal.assignee == other
    assert services.conflicts(appeal, decider) == ["This appeal contests your own decision."]
    with pytest.raises(DisputeError) as own:
        services.dispute_settle(
            dispute_id=appeal.pk, moderator=decider, outcome="reject", reason="still no"
        )
    assert own.value.code == "conflict"
    with pytest.raises(DisputeError) as twice:
        services.dispute_appeal(dispute_id=dispute.pk, user=b, text="again")
    assert twice.value.code == "already_appealed"
    services.dispute_settle(dispute_id=appeal.pk, moderator=other, outcome="reject", reason="no")
    with pytest.raises(DisputeError) as final:
        services.dispute_appeal(dispute_id=appeal.pk, user=b, text="and again")
    assert final.value.code == "not_appealable"
    with pytest.raises(DisputeError) as theirs:  # only the filer appeals
        services.dispute_appeal(dispute_id=dispute.pk, user=a, text="me too")
    assert theirs.value.code == "not_found"
    queue = client_for(other).get(reverse("disputes:queue") + "?status=all").content.decode()
    assert f"Appeal of {dispute.pk}" in queue
    opened = AuditEntry.objects.get(action="dispute.opened", object_id=str(appeal.pk))
    assert opened.extra_data["appeal_of"] == dispute.pk


# ---------------------------------------------------------------------------- the two parts


def test_questions_reach_the_player_and_notes_never_reach_the_public(
    make_user: Make, make_moderator: Make, settings: Any
) -> None:
    settings.DISPUTE_VOID_APPROVAL = False
    a, b = make_user(), make_user()
    mod = make_moderator()
    match = finish(ranked_match("duel", [a, b]), [a, b])
    dispute = open_one(match, b)
    secret = "Both seats were played from the same address 203.0.113.9"
    services.dispute_note(dispute_id=dispute.pk, moderator=mod, text=secret)
    services.dispute_ask(dispute_id=dispute.pk, moderator=mod, question="Which device?")
    player = client_for(b)
    assert "1 new" in player.get("/").content.decode()
    page = player.get(reverse("disputes:detail", args=[dispute.pk])).content.decode()
    assert "Which device?" in page and secret not in page and 'id="answer-form"' in page
    player.post(reverse("disputes:answer", args=[dispute.pk]), {"text": "My phone."})
    assert CaseEntry.objects.filter(dispute=dispute, kind="answer", text="My phone.").exists()
    with pytest.raises(DisputeError) as none_open:
        services.dispute_answer(dispute_id=dispute.pk, user=b, text="more")
    assert none_open.value.code == "no_question"
    review = client_for(mod).get(reverse("disputes:review", args=[dispute.pk])).content.decode()
    assert secret in review and "My phone." in review
    services.dispute_settle(
        dispute_id=dispute.pk,
        moderator=mod,
        outcome="uphold",
        reason="The match was not played fairly.",
        note=secret + " (again)",
    )
    match.refresh_from_db()
    assert match.void_reason == f"{services.PUBLIC_VOID} (dispute {dispute.pk})"
    # Every public view of the match, anonymous and as a player: never a note.
    anonymous = Client()
    public = [
        anonymous.get(reverse("replay", args=[match.code])),
        anonymous.get(reverse("room", args=[match.code])),
        anonymous.get(f"/api/matches/{match.code}"),
        client_for(a).get(reverse("replay", args=[match.code])),
        player.get(reverse("disputes:detail", args=[dispute.pk])),
        player.get(reverse("disputes:mine")),
    ]
    for response in public:
        body = response.content.decode()
        assert response.status_code == 200, response.request["PATH_INFO"]
        assert "203.0.113.9" not in body and "same address" not in body
    replay = public[0].content.decode()
    assert "Voided by a moderator" in replay and "not played fairly" not in replay
    assert "not played fairly" in public[4].content.decode()  # the player reads the message


def test_the_desks_posted_steps_check_their_form_run_the_service_and_say_so(
    make_user: Make, make_moderator: Make, settings: Any
) -> None:
    settings.DISPUTE_VOID_APPROVAL = False
    a, b = make_user(), make_user()
    mod = make_moderator()
    desk = client_for(mod)
    dispute = open_one(finish(ranked_match("duel", [a, b]), [a, b]), b)
    review = reverse("disputes:review", args=[dispute.pk])

    def said(url: str, data: dict[str, str], to: str = review) -> str:
        response = desk.post(reverse(url, args=[dispute.pk]), data, follow=True)
        assert response.redirect_chain[-1][0] == to
        return " ".join(str(m) for m in response.context["messages"])

    # A bad form is refused with what to write; nothing is recorded.
    assert said("disputes:note", {"text": ""}) == "Write the note (up to 4000 characters)."
    assert said("disputes:ask", {"question": ""}) == "Write the question (up to 2000 characters)."
    assert not CaseEntry.objects.filter(dispute=dispute, kind__in=["note", "question"]).exists()
    # A good one runs the service, as this moderator, and says so.
    assert said("disputes:note", {"text": "Same address."}) == "Note added (moderators only)."
    assert said("disputes:ask", {"question": "Which device?"}).startswith("Question sent")
    assert CaseEntry.objects.get(dispute=dispute, kind="note").text == "Same address."
    assert CaseEntry.objects.get(dispute=dispute, kind="question").text == "Which device?"
    # Claimed from the queue, the moderator is back on the queue.
    queue = reverse("disputes:queue")
    assert said("disputes:assign", {"next": "queue"}, queue) == "You claimed the dispute."
    # A service's refusal is said on the review: there is no void to undo yet.
    assert said("disputes:unvoid", {"note": "undo"}) == "This match is not void"
    services.dispute_settle(dispute_id=dispute.pk, moderator=mod, outcome="uphold", reason="ok")
    assert said("disputes:unvoid", {"note": "The log shows no drop."}).startswith("The void")
    assert Match.objects.get(pk=dispute.match_id).status == Status.FINISHED


# ---------------------------------------------------------------------------- remedies


def test_rating_protection_spares_one_player_and_still_rates_the_other(
    make_user: Make, make_moderator: Make
) -> None:
    a, b, c = make_user(), make_user(), make_user()
    mod = make_moderator()
    finish(ranked_match("duel", [a, c]), [a, c])
    disputed = finish(ranked_match("duel", [a, b]), [a, b])
    before_b = Rating.objects.get(user=b, queue="duel")
    assert before_b.games == 1
    dispute = open_one(disputed, b)
    settled = services.dispute_settle(
        dispute_id=dispute.pk, moderator=mod, outcome="protect", reason="The server dropped you."
    )
    assert settled.status == DisputeStatus.PROTECTED
    disputed.refresh_from_db()
    assert disputed.status == Status.FINISHED  # it still counts
    row_b = Rating.objects.get(user=b, queue="duel")
    assert (row_b.mu, row_b.sigma, row_b.games) == (25.0, pytest.approx(25 / 3), 0)
    seat_b = Seat.objects.get(match=disputed, user=b)
    assert seat_b.rating_protected and seat_b.rating_change == 0
    # a's ratings are those of the full history: b still counts as the one a beat.
    want = expected([[a.pk, c.pk], [a.pk, b.pk]], [a.pk, b.pk, c.pk])
    row_a = Rating.objects.get(user=a, queue="duel")
    assert (row_a.mu, row_a.sigma) == pytest.approx(want[a.pk])
    assert AuditEntry.objects.filter(action="match.rating_protected").count() == 1
    assert chain.verify() is None


def test_an_unvoid_is_audited_and_the_match_counts_again(
    make_user: Make, make_moderator: Make, settings: Any
) -> None:
    settings.DISPUTE_VOID_APPROVAL = False
    a, b = make_user(), make_user()
    mod = make_moderator()
    match = finish(ranked_match("duel", [a, b]), [a, b])
    rated = {u.pk: Rating.objects.get(user=u, queue="duel").mu for u in (a, b)}
    dispute = open_one(match, b)
    services.dispute_settle(dispute_id=dispute.pk, moderator=mod, outcome="uphold", reason="ok")
    assert "VOID: voided by a moderator" in verify_match(match).line
    with pytest.raises(DisputeError) as bare:
        services.dispute_unvoid(dispute_id=dispute.pk, moderator=mod, note=" ")
    assert bare.value.code == "bad_request"
    services.dispute_unvoid(dispute_id=dispute.pk, moderator=mod, note="The log shows no drop.")
    match.refresh_from_db()
    assert match.status == Status.FINISHED and match.voided_at is None
    assert sorted(Seat.objects.filter(match=match).values_list("place", flat=True)) == [1, 2]
    assert {u.pk: Rating.objects.get(user=u, queue="duel").mu for u in (a, b)} == pytest.approx(
        rated
    )
    entry = AuditEntry.objects.get(action="match.unvoided")
    assert entry.actor_id == mod.pk and "no drop" in entry.extra_data["reason"]
    report = verify_match(match)
    assert report.ok and "VOID" not in report.line, report.line
    with pytest.raises(DisputeError) as again:
        services.dispute_unvoid(dispute_id=dispute.pk, moderator=mod, note="twice")
    assert again.value.code == "not_void"


# ---------------------------------------------------------------------------- admin and audit


def grant_moderators_view() -> None:
    """Run the migration that gives the moderators group its view permissions, on the
    database as it is now: a test run that flushed the database (a transactional test before
    this one, on the same worker) has dropped the rows the migration made."""
    migration = importlib.import_module("disputes.migrations.0004_moderators_view_permissions")
    name = ("disputes", "0004_moderators_view_permissions")
    state = MigrationExecutor(connection).loader.project_state(name, at_end=True)
    migration.grant(state.apps, None)


def test_moderators_use_the_admin_they_are_shown(make_user: Make, make_moderator: Make) -> None:
    grant_moderators_view()
    mod = make_moderator()
    a, b = make_user("alice_admin"), make_user()
    match = finish(ranked_match("duel", [a, b]), [a, b])
    dispute = open_one(match, b)
    c = client_for(mod)
    assert 'href="/admin/"' in c.get("/").content.decode()
    listing = c.get("/admin/games/match/", {"q": "alice_admin"})
    assert listing.status_code == 200 and match.code in listing.content.decode()
    assert (
        c.get("/admin/games/match/", {"q": "nobody_like_that"}).content.decode().count(match.code)
        == 0
    )
    page = c.get(f"/admin/games/match/{match.pk}/change/").content.decode()
    assert "Voided at" in page and "Void reason" in page
    assert reverse("replay", args=[match.code]) in page
    assert reverse("disputes:review", args=[dispute.pk]) in page
    assert c.get("/admin/disputes/dispute/").status_code == 200
    assert c.get("/admin/games/match/add/").status_code == 403


def test_rights_and_admin_sign_ins_are_in_the_audit_log(make_user: Make, db: Any) -> None:
    boss = User.objects.create_superuser("boss", password="pw-for-tests")
    assert AuditEntry.objects.get(action="user.rights_changed", object_id=str(boss.pk))
    target = make_user("newmod")
    c = client_for(boss)
    moderators = Group.objects.get_or_create(name=MODERATORS)[0]
    target.is_staff = True
    target.save()
    target.groups.add(moderators)
    target.groups.remove(moderators)
    changes = [
        e.extra_data
        for e in AuditEntry.objects.filter(action="user.rights_changed", object_id=str(target.pk))
    ]
    assert [{k: v for k, v in d.items() if k in ("is_staff", "moderators")} for d in changes] == [
        {"is_staff": True},
        {"moderators": True},
        {"moderators": False},
    ]
    # Through the admin: the actor is the one who granted.
    c.post(
        f"/admin/accounts/user/{target.pk}/change/",
        {
            "username": "newmod",
            "is_staff": "",
            "is_active": "on",
            "date_joined_0": "2026-01-01",
            "date_joined_1": "00:00:00",
            "display_name": "",
            "email": "",
            "first_name": "",
            "last_name": "",
        },
        REMOTE_ADDR="192.0.2.7",
    )
    removed = AuditEntry.objects.filter(action="user.rights_changed", object_id=str(target.pk))
    last = removed.order_by("-id").first()
    assert last is not None and last.extra_data.get("is_staff") is False
    assert (last.actor_id, last.ip) == (boss.pk, "192.0.2.7")
    anon = Client()
    anon.post("/admin/login/?next=/admin/", {"username": "boss", "password": "pw-for-tests"})
    signed = AuditEntry.objects.filter(action="user.signed_in", actor_id=boss.pk).last()
    assert signed is not None and signed.extra_data == {"via": "admin"}
    assert chain.verify() is None


# ---------------------------------------------------------------------------- the hooks


def test_think_time_user_agent_and_device_are_stored(make_user: Make) -> None:
    a, b = make_user(), make_user()
    phone = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) Mobile/15E148 Safari/604.1"
    host = client_for(a)
    host.post(
        "/api/matches",
        {"ruleset": "duel", "players": 2, "mode": "friendly"},
        content_type="application/json",
        HTTP_USER_AGENT="python-httpx/0.27",
    )
    match = Match.objects.get(host=a)
    client_for(b).post(f"/api/matches/{match.code}/join", HTTP_USER_AGENT=phone)
    seats = {s.user_id: s for s in Seat.objects.filter(match=match)}
    assert (seats[a.pk].device, seats[a.pk].user_agent) == ("script", "python-httpx/0.27")
    assert (seats[b.pk].device, seats[b.pk].user_agent) == ("phone", phone)
    match.refresh_from_db()
    time.sleep(0.3)
    player = seats[a.pk] if seats[a.pk].corner == match.state().to_play else seats[b.pk]
    games.match_roll(match_id=match.pk, user=player.user, seq=match.seq, action_id="t1")
    roll = Roll.objects.get(match=match)
    assert 300 <= roll.think_ms < 10_000
    # A socket from another browser updates the seat.
    games.seat_set_connected(
        match_id=match.pk, user=b, connected=True, user_agent=b"Mozilla/5.0 (X11; Linux x86_64)"
    )
    seat = Seat.objects.get(match=match, user=b)
    assert seat.device == "desktop" and seat.user_agent.startswith("Mozilla/5.0 (X11")
