"""Reports of players, the desk that groups them, sanctions and their one appeal (issue 33):
every step audited, the player told in plain words."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from django.contrib.auth.models import Group
from django.test import Client
from django.urls import reverse

from accounts.models import User
from audit import actions
from audit.models import AuditEntry
from disputes.models import MODERATORS
from fairplay import services
from fairplay.models import Report, Sanction
from games.models import Seat
from ranked import matchmaking
from ranked.models import Rating
from ranked.ratings import leaderboard
from tests.ranked.matches import finish, ranked_match

from .play import duel

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


def test_a_report_from_a_profile_a_room_and_a_replay() -> None:
    a, b = make(), make()
    match = duel(a, b, ranked=False)
    client = client_of(a)
    room = client.get(reverse("room", args=[match.code])).content.decode()
    link = f"{reverse('fairplay:report', args=[b.username])}?match={match.code}"
    assert link in room
    assert link in client.get(reverse("replay", args=[match.code])).content.decode()
    profile = client.get(reverse("profile", args=[b.username])).content.decode()
    assert reverse("fairplay:report", args=[b.username]) in profile
    form = client.get(link)
    assert form.status_code == 200 and "Losing on purpose" in form.content.decode()
    sent = client.post(link, {"reason": "assisted", "note": "Instant moves", "match": match.code})
    assert sent.status_code == 302
    made = Report.objects.get()
    assert (made.reporter, made.reported, made.reason, made.match) == (a, b, "assisted", match)
    assert audited(actions.PLAYER_REPORTED) == 1
    # No reason, no report; nobody reports themselves (a coded refusal).
    assert client.post(link, {"note": "x"}).status_code == 400
    with pytest.raises(services.FairPlayError) as own:
        services.report(reporter=a, reported=a, reason="abuse")
    assert own.value.code == "reported_self"


def test_the_desk_groups_reports_per_player_with_evidence_and_linked_accounts() -> None:
    mod = moderator()
    x, y, r1, r2 = make("x"), make("y"), make("r"), make("r")
    twin = make("twin")
    services.report(reporter=r1, reported=x, reason="assisted")
    services.report(reporter=r2, reported=x, reason="assisted")
    services.report(reporter=r2, reported=x, reason="accounts")
    services.report(reporter=r1, reported=y, reason="abuse")
    # x and twin were seated from one address: linked accounts.
    m1, m2 = duel(x, r1, ranked=False), duel(twin, r2, ranked=False)
    Seat.objects.filter(match__in=[m1, m2], user__in=[x, twin]).update(ip="203.0.113.5")
    assert client_of(x).get(reverse("fairplay:desk")).status_code == 403
    page = client_of(mod).get(reverse("fairplay:desk")).content.decode()
    assert page.index(f'data-player="{x.username}"') < page.index(f'data-player="{y.username}"')
    assert "Playing with help (a bot or another program): 2" in page and "2 reporters" in page
    player = client_of(mod).get(reverse("fairplay:player", args=[x.pk])).content.decode()
    assert 'id="evidence"' in player and "Median think time" in player
    assert twin.username in player and "203.0.113.5" in player
    assert reverse("disputes:record", args=[x.pk]) in player
    # Closing the reports without a sanction takes the player off the desk.
    assert client_of(mod).post(reverse("fairplay:close", args=[y.pk])).status_code == 302
    assert (
        f'data-player="{y.username}"'
        not in client_of(mod).get(reverse("fairplay:desk")).content.decode()
    )
    assert audited(actions.REPORTS_CLOSED) == 1


def test_a_suspension_its_appeal_to_another_moderator_and_the_decision(settings: Any) -> None:
    giver, other = moderator("giver"), moderator("other")
    near = moderator("near")  # seen at the player's address: never gets the appeal
    player, reporter = make("s"), make("r")
    m1, m2 = duel(player, reporter, ranked=False), duel(near, reporter, ranked=False)
    Seat.objects.filter(match__in=[m1, m2], user__in=[player, near]).update(ip="198.51.100.77")
    services.report(reporter=reporter, reported=player, reason="throwing")
    desk = client_of(giver)
    given = desk.post(
        reverse("fairplay:sanction", args=[player.pk]),
        {"kind": "suspension", "days": "7", "reason": "You lost on purpose to boost a friend."},
    )
    assert given.status_code == 302
    sanction = Sanction.objects.get(user=player)
    assert sanction.kind == "suspension" and sanction.moderator == giver and sanction.expires_at
    assert Report.objects.get().handled_at is not None
    # Told in plain words, and out of ranked play.
    me = client_of(player)
    profile = me.get(reverse("my-profile"), follow=True).content.decode()
    assert "You lost on purpose to boost a friend." in profile
    assert "You cannot join the ranked queues until then" in profile
    with pytest.raises(matchmaking.QueueError) as refused:
        matchmaking.join(user=player, queue="duel")
    assert refused.value.code == "suspended"
    # One appeal, routed to another moderator by the desk's rules.
    assert services.appeal_candidates(sanction) == [other]
    me.post(reverse("fairplay:appeal", args=[sanction.pk]), {"text": "It was my little brother."})
    sanction.refresh_from_db()
    assert sanction.appeal_moderator == other and sanction.appealed_at is not None
    with pytest.raises(services.FairPlayError) as twice:
        services.appeal(user=player, sanction_id=sanction.pk, text="again")
    assert twice.value.code == "appealed"
    # The giver cannot decide it; the moderator it went to can.
    with pytest.raises(services.FairPlayError) as not_theirs:
        services.decide_appeal(moderator=giver, sanction_id=sanction.pk, lift_it=True, note="x")
    assert not_theirs.value.code == "forbidden"
    assert sanction.pk in [s.pk for s in Sanction.objects.filter(appeal_moderator=other)]
    decided = client_of(other).post(
        reverse("fairplay:decide", args=[sanction.pk]),
        {"decision": "lifted", "note": "A first time: lifted, with a warning in mind."},
    )
    assert decided.status_code == 302
    sanction.refresh_from_db()
    assert sanction.lifted_at is not None and sanction.appeal_decision == "lifted"
    profile = me.get(reverse("my-profile"), follow=True).content.decode()
    assert "Your appeal was accepted" in profile and "A first time" in profile
    assert matchmaking.join(user=player, queue="duel").state == "waiting"
    for action in (actions.SANCTION_GIVEN, actions.SANCTION_APPEALED, actions.APPEAL_DECIDED):
        assert audited(action) == 1, action


def test_a_mark_takes_a_player_off_the_leaderboards(settings: Any) -> None:
    settings.RANKED_LEADERBOARD_MIN_GAMES = 1
    mod, a, b = moderator(), make(), make()
    for user, ordinal in ((a, 20.0), (b, 10.0)):
        Rating.objects.create(
            user=user, queue="duel", mu=ordinal + 6, sigma=2, ordinal=ordinal, games=30
        )
    assert [r.user for r in leaderboard("duel")] == [a, b]
    services.sanction(moderator=mod, user=a, kind="mark", reason="Played with an engine.")
    assert [r.user for r in leaderboard("duel")] == [b]


def test_only_moderators_sanction_and_a_suspension_needs_days() -> None:
    a, b, mod = make(), make(), moderator()
    with pytest.raises(services.FairPlayError) as refused:
        services.sanction(moderator=a, user=b, kind="warning", reason="x")
    assert refused.value.code == "forbidden"
    with pytest.raises(services.FairPlayError) as days:
        services.sanction(moderator=mod, user=b, kind="suspension", reason="x")
    assert days.value.code == "bad_request"
    page = client_of(mod).post(
        reverse("fairplay:sanction", args=[b.pk]), {"kind": "suspension", "reason": "x"}
    )
    assert page.status_code == 400 and "Say for how many days." in page.content.decode()


def test_boosting_gives_back_the_rating_honest_opponents_lost() -> None:
    mod, booster, honest, partner = moderator(), make("b"), make("h"), make("f")
    for _ in range(2):
        finish(ranked_match("duel", [booster, honest]), [booster, honest])
        finish(ranked_match("duel", [booster, partner]), [booster, partner])
    assert Rating.objects.get(user=honest, queue="duel").ordinal < 0
    services.sanction(moderator=mod, user=partner, kind="mark", reason="Fed a booster.")
    given = services.sanction(
        moderator=mod, user=booster, kind="mark", reason="Boosted by a partner.", boosting=True
    )
    assert given.given_back == 2
    assert Seat.objects.filter(user=honest, rating_protected=True).count() == 2
    assert not Seat.objects.filter(user=partner, rating_protected=True).exists()
    honest_rating = Rating.objects.get(user=honest, queue="duel")
    assert honest_rating.ordinal == pytest.approx(0.0, abs=1e-6)  # back to the start value
    assert audited(actions.MATCH_RATING_PROTECTED) == 2
