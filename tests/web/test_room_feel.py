"""The server side of a room that feels alive: reactions (a fixed set, stored as match events,
rate-limited, never making an action stale), rematch, distinct bot names, what the snapshot
adds (grace, turn clock, rating change, disconnect time), a wrong room code answered on the
form, the styled 404 page and the result panel's ways on."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from accounts.models import User
from games import services
from games.live.wire import WireError, parse
from games.match.errors import ServiceError
from games.match.selectors import snapshot_for
from games.models import Match, MatchEvent, Seat
from games.services import reactions
from games.services.deadlines import room_clocks
from games.services.rematch import match_rematch, rematch_code
from tests.ranked.matches import finish, ranked_match

pytestmark = pytest.mark.django_db


def make(name: str) -> User:
    return User.objects.create(username=name)


def friend_room(a: User, b: User) -> Match:
    match = services.match_create(ruleset="classic", players=2, mode="friendly", host=a, first=0)
    services.match_join(code=match.code, user=b)
    return Match.objects.get(pk=match.pk)


def test_a_reaction_is_a_stored_event_from_a_fixed_set() -> None:
    a, b, c = make("a"), make("b"), make("c")
    match = friend_room(a, b)
    wire = reactions.match_react(match_id=match.pk, user=b, reaction="gg")
    assert wire["kind"] == "reaction" and wire["corner"] == 2 and wire["r"] == "gg"
    stored = MatchEvent.objects.get(match=match, kind="reaction")
    assert stored.seq == Match.objects.get(pk=match.pk).seq == match.seq + 1
    with pytest.raises(ServiceError) as refused:
        reactions.match_react(match_id=match.pk, user=a, reaction="you are bad")
    assert refused.value.code == "bad_request"
    with pytest.raises(ServiceError) as watcher:
        reactions.match_react(match_id=match.pk, user=c, reaction="gg")
    assert watcher.value.code == "not_seated"


def test_reactions_are_rate_limited_per_seat() -> None:
    a, b = make("a"), make("b")
    match = friend_room(a, b)
    reactions.match_react(match_id=match.pk, user=a, reaction="thumbs")
    with pytest.raises(ServiceError) as fast:
        reactions.match_react(match_id=match.pk, user=a, reaction="thumbs")
    assert fast.value.code == "rate_limited"
    reactions.match_react(match_id=match.pk, user=b, reaction="wow")  # another seat may
    # Two seconds later (the stored time moved back), a's next one goes.
    MatchEvent.objects.filter(match=match, kind="reaction").update(
        at=MatchEvent.objects.get(match=match, kind="reaction", data__corner=0).at
        - timedelta(seconds=3)
    )
    reactions.match_react(match_id=match.pk, user=a, reaction="nice")
    assert MatchEvent.objects.filter(match=match, kind="reaction").count() == 3


def test_practice_and_local_games_have_no_reactions() -> None:
    a = make("a")
    match = services.match_create(ruleset="classic", players=2, mode="practice", host=a, bots=[2])
    with pytest.raises(ServiceError) as refused:
        reactions.match_react(match_id=match.pk, user=a, reaction="gg")
    assert refused.value.code == "bad_request"


def test_a_roll_made_before_a_reaction_arrived_still_counts() -> None:
    a, b = make("a"), make("b")
    match = friend_room(a, b)
    seen = match.seq
    reactions.match_react(match_id=match.pk, user=b, reaction="gl")
    result = services.match_roll(match_id=match.pk, user=a, seq=seen, action_id="r1")
    assert any(e["kind"] == "rolled" for e in result.events)
    # A real change in between still makes an action stale.
    state = Match.objects.get(pk=match.pk)
    with pytest.raises(ServiceError) as stale:
        services.match_roll(match_id=match.pk, user=a, seq=seen, action_id="r2")
    assert stale.value.code in ("stale", "not_your_turn", "illegal") and state.seq > seen


def test_the_react_frame_parses() -> None:
    assert parse('{"t": "react", "d": {"r": "gg"}}').reaction == "gg"
    for bad in ('{"t": "react"}', '{"t": "react", "d": {"r": 5}}', '{"t": "react", "d": []}'):
        with pytest.raises(WireError):
            parse(bad)


def test_rematch_opens_one_new_room_that_the_others_join() -> None:
    a, b = make("a"), make("b")
    match = friend_room(a, b)
    services.match_resign(match_id=match.pk, user=a)
    new = match_rematch(match_id=match.pk, user=b)
    assert new.pk != match.pk and new.ruleset == "classic" and new.mode == "friendly"
    assert rematch_code(match) == new.code
    event = MatchEvent.objects.get(match=match, kind="rematch")
    assert event.data == {"code": new.code, "by": 2}
    again = match_rematch(match_id=match.pk, user=a)
    assert again.pk == new.pk
    assert set(Seat.objects.filter(match=new).values_list("user", flat=True)) == {a.pk, b.pk}
    assert Match.objects.get(pk=new.pk).status == 20  # every seat taken: it started
    # Only its players, and only once it is over.
    with pytest.raises(ServiceError):
        match_rematch(match_id=match.pk, user=make("c"))
    live = friend_room(make("d"), make("e"))
    with pytest.raises(ServiceError):
        match_rematch(match_id=live.pk, user=live.seats.first().user)


def test_a_practice_rematch_keeps_its_bots() -> None:
    a = make("a")
    match = services.match_create(
        ruleset="family", players=2, mode="practice", host=a, bots={2: "hard"}
    )
    services.match_resign(match_id=match.pk, user=a)
    new = match_rematch(match_id=match.pk, user=a)
    bots = dict(Seat.objects.filter(match=new, bot__isnull=False).values_list("corner", "bot"))
    assert bots == {2: "hard"} and new.status == 20


def test_a_ranked_match_has_no_rematch_but_queue_again_and_rating_changes() -> None:
    a, b = make("ra"), make("rb")
    match = finish(ranked_match("duel", [a, b]), [a, b])
    with pytest.raises(ServiceError):
        match_rematch(match_id=match.pk, user=a)
    snap = snapshot_for(match, viewer_user=a)
    changes = [s["rating_change"] for s in snap["seats"]]
    assert all(isinstance(c, float) for c in changes) and changes[0] > 0 > changes[1]
    client = Client()
    client.force_login(a)
    page = client.get(reverse("room", args=[match.code])).content.decode()
    assert 'id="queue-again"' in page and reverse("play-ranked") in page
    assert 'id="rematch"' not in page and "Ranked · Duel" in page


def test_bots_have_distinct_names_and_stay_labelled() -> None:
    a = make("a")
    match = services.match_create(
        ruleset="classic",
        players=4,
        mode="practice",
        host=a,
        bots={1: "easy", 2: "easy", 3: "hard"},
    )
    seats = snapshot_for(match, viewer_user=a)["seats"]
    names = [s["name"] for s in seats if s["bot"]]
    assert len(set(names)) == 3 and all(s["label"] == "BOT" for s in seats if s["bot"])
    assert names[0].endswith("easy bot") and names[2].endswith("hard bot")


def test_the_snapshot_carries_the_clocks_a_room_draws(settings: Any) -> None:
    settings.LUDO_TIME_SCALE = 0.5
    a, b = make("a"), make("b")
    match = friend_room(a, b)
    assert room_clocks(match) == {"turn_seconds": 10.0, "grace_seconds": 30.0}
    snap = snapshot_for(match, viewer_user=a)
    assert {"disconnected_at", "rating_change", "level"} <= set(snap["seats"][0])
    page = Client()
    page.force_login(a)
    html = page.get(reverse("room", args=[match.code])).content.decode()
    assert '"turn_seconds": 10.0' in html and '"grace_seconds": 30.0' in html
    practice = services.match_create(
        ruleset="classic", players=2, mode="practice", host=a, bots=[2]
    )
    assert room_clocks(practice) == {"turn_seconds": None, "grace_seconds": 60.0 * 0.5}


def test_a_wrong_room_code_is_answered_on_the_form(client: Client) -> None:
    page = client.get("/join/", {"code": "ZZZ-999"})
    assert page.status_code == 200
    html = page.content.decode()
    assert 'id="join-error"' in html and "There is no room with the code ZZZ-999" in html
    assert 'value="ZZZ-999"' in html


def test_the_404_page_is_the_sites(client: Client) -> None:
    page = client.get("/r/ZZZZZZ/")
    assert page.status_code == 404
    html = page.content.decode()
    assert "We could not find that page" in html and 'class="site-header"' in html
    assert "Join by code" in html
