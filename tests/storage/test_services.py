"""The services against the real database: who may act, when, and what is written."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest

from audit.models import AuditEntry
from games import services
from games.match import dice
from games.match.errors import ServiceError
from games.match.selectors import match_by_code, snapshot_for
from games.models import Match, MatchEvent, Move, Roll, Seat, Status, Turn
from games.services import broadcast

from .driver import current

pytestmark = pytest.mark.django_db


def rows(match: Match) -> tuple[int, ...]:
    return (
        Roll.objects.filter(match=match).count(),
        Move.objects.filter(match=match).count(),
        Turn.objects.filter(match=match).count(),
        MatchEvent.objects.filter(match=match).count(),
        current(match).seq,
    )


def two_player(make_user, ruleset="classic", mode="friendly", **kw):
    alice, bob = make_user("alice"), make_user("bob")
    match = services.match_create(ruleset=ruleset, players=2, mode=mode, host=alice, **kw)
    services.match_join(code=match.code, user=bob)
    return current(match), alice, bob


def to_play_user(match, alice, bob):
    state = current(match).state()
    return (alice, bob) if state.to_play == 0 else (bob, alice)


# ---------------------------------------------------------------------------- creating


def test_create_join_and_start(make_user) -> None:
    alice, bob = make_user("alice"), make_user("bob")
    match = services.match_create(
        ruleset="classic", players=2, mode="friendly", host=alice, ip="198.51.100.7"
    )
    assert match.status == Status.WAITING
    assert len(match.code) == 6 and set(match.code) <= set("ABCDEFGHJKMNPQRSTUVWXYZ23456789")
    assert match.commitment == dice.commitment(match.server_seed)
    assert [(s.corner, s.user) for s in match.seats.all()] == [(0, alice)]
    seat = services.match_join(code=match.code.lower(), user=bob)
    assert seat.corner == 2
    match = current(match)
    assert match.status == Status.ACTIVE
    assert match.started_at is not None and match.turn_seq == 1
    # classic draws the first player with the dice, from the frozen client seeds.
    client = ".".join(s.client_seed for s in match.seats.order_by("corner"))
    assert match.client_seed == client
    assert match.first == dice.draw_first(match.server_seed, client, (0, 2))
    assert match.state().to_play == match.first
    kinds = list(MatchEvent.objects.filter(match=match).values_list("kind", flat=True))
    assert kinds == ["created", "joined", "joined", "started"]
    actions = list(
        AuditEntry.objects.filter(object_id=str(match.pk)).values_list("action", flat=True)
    )
    assert actions == ["match.created", "match.joined", "match.joined", "match.started"]
    created = AuditEntry.objects.get(object_id=str(match.pk), action="match.created")
    assert (created.actor, created.ip) == (alice, "198.51.100.7")
    assert created.extra_data["commitment"] == match.commitment


def test_family_starts_with_red_and_has_no_clock(make_user, settings) -> None:
    settings.LUDO_TIME_SCALE = 1.0
    match, *_ = two_player(make_user, ruleset="family")
    assert match.first == 0
    assert match.turn_deadline is None


def test_clock_runs_from_the_database(make_user, settings) -> None:
    settings.LUDO_TIME_SCALE = 1.0
    match, *_ = two_player(make_user)
    assert match.turn_deadline is not None
    assert match.turn_deadline - match.started_at == timedelta(seconds=20)


def test_ranked_never_seats_a_bot(make_user) -> None:
    alice = make_user()
    with pytest.raises(ServiceError) as err:
        services.match_create(ruleset="classic", players=2, mode="ranked", host=alice, bots=[2])
    assert err.value.code == "ranked_no_bots"
    match = services.match_create(
        ruleset="classic", players=2, mode="ranked", host=alice, paired=[alice]
    )
    with pytest.raises(ServiceError) as err:
        services.match_start(match_id=match.pk, bots_for_empty="easy")
    assert err.value.code == "ranked_no_bots"
    assert not Seat.objects.filter(match=match, bot__isnull=False).exists()


def test_bad_requests(make_user) -> None:
    alice = make_user()
    cases = [
        dict(ruleset="chess", players=2, mode="friendly"),
        dict(ruleset="duel", players=4, mode="friendly"),
        dict(ruleset="classic", players=2, mode="blitz"),
        dict(ruleset="classic", players=2, mode="friendly", options=["pairs"]),
        dict(ruleset="party", players=2, mode="friendly", options=["pairs"]),
        dict(ruleset="classic", players=2, mode="friendly", house_rules=["no_sixes"]),
        dict(ruleset="classic", players=2, mode="friendly", bots={1: "easy"}),
        dict(ruleset="classic", players=2, mode="friendly", bots={2: "grandmaster"}),
        dict(ruleset="classic", players=2, mode="friendly", server_seed="00" * 32),
        dict(ruleset="classic", players=2, mode="local"),
    ]
    for kw in cases:
        with pytest.raises(ServiceError) as err:
            services.match_create(host=alice if kw["mode"] != "local" else None, **kw)
        assert err.value.code == "bad_request", kw
    assert not Match.objects.exists()


def test_join_refusals(make_user) -> None:
    match, alice, bob = two_player(make_user)
    with pytest.raises(ServiceError) as err:
        services.match_join(code=match.code, user=alice)
    assert err.value.code == "already_seated"
    with pytest.raises(ServiceError) as err:
        services.match_join(code=match.code, user=make_user())
    assert err.value.code == "full"
    with pytest.raises(ServiceError) as err:
        services.match_join(code="ZZZZZZ", user=make_user())
    assert err.value.code == "not_found"
    with pytest.raises(ServiceError) as err:
        match_by_code("nope")
    assert err.value.code == "not_found"


def test_a_room_code_is_read_as_people_type_it_everywhere(make_user) -> None:
    """One normaliser (games.match.rooms): any case, spaces or a dash between the groups."""
    match = services.match_create(ruleset="classic", players=2, mode="friendly", host=make_user())
    typed = f" {match.code[:3].lower()}-{match.code[3:].lower()} "
    assert match_by_code(typed).pk == match.pk
    seat = services.match_join(code=typed, user=make_user())
    assert seat.match_id == match.pk


def test_client_seeds_until_the_start(make_user) -> None:
    alice, bob = make_user("alice"), make_user("bob")
    match = services.match_create(ruleset="classic", players=2, mode="friendly", host=alice)
    services.match_set_client_seed(code=match.code, user=alice, seed="alice-lucky_7")
    with pytest.raises(ServiceError) as err:
        services.match_set_client_seed(code=match.code, user=alice, seed="no spaces!")
    assert err.value.code == "bad_request"
    with pytest.raises(ServiceError) as err:
        services.match_set_client_seed(code=match.code, user=bob, seed="x")
    assert err.value.code == "not_seated"
    services.match_join(code=match.code, user=bob, client_seed="bobs")
    match = current(match)
    assert match.client_seed == "alice-lucky_7.bobs"
    with pytest.raises(ServiceError) as err:
        services.match_set_client_seed(code=match.code, user=alice, seed="late")
    assert err.value.code == "bad_request"
    assert current(match).client_seed == "alice-lucky_7.bobs"


def test_start_fills_empty_seats_with_bots_outside_ranked(make_user) -> None:
    alice = make_user()
    match = services.match_create(ruleset="classic", players=4, mode="friendly", host=alice)
    with pytest.raises(ServiceError) as err:
        services.match_start(match_id=match.pk)
    assert err.value.code == "bad_request"
    result = services.match_start(match_id=match.pk, bots_for_empty="easy")
    seats = result.snapshot["seats"]
    assert [s["bot"] for s in seats] == [False, True, True, True]
    assert {s["label"] for s in seats[1:]} == {"BOT"}
    assert current(match).status == Status.ACTIVE


# ---------------------------------------------------------------------------- playing


def test_stale_seq_changes_nothing(make_user) -> None:
    match, alice, bob = two_player(make_user)
    user, _ = to_play_user(match, alice, bob)
    before = rows(match)
    with pytest.raises(ServiceError) as err:
        services.match_roll(match_id=match.pk, user=user, seq=match.seq - 1, action_id="r1")
    assert err.value.code == "stale"
    assert rows(match) == before


def test_only_the_seat_to_play_acts(make_user) -> None:
    match, alice, bob = two_player(make_user)
    user, other = to_play_user(match, alice, bob)
    before = rows(match)
    with pytest.raises(ServiceError) as err:
        services.match_roll(match_id=match.pk, user=other, seq=match.seq, action_id="r1")
    assert err.value.code == "not_your_turn"
    with pytest.raises(ServiceError) as err:
        services.match_roll(match_id=match.pk, user=make_user(), seq=match.seq, action_id="r1")
    assert err.value.code == "not_seated"
    with pytest.raises(ServiceError) as err:
        services.match_move(match_id=match.pk, user=user, seq=match.seq, action_id="m1", pawn=0)
    assert err.value.code == "illegal"
    with pytest.raises(ServiceError) as err:
        services.match_roll(
            match_id=match.pk, user=user, seq=match.seq, action_id="r1", bonus="double"
        )
    assert err.value.code == "illegal"  # Power is not played here
    with pytest.raises(ServiceError) as err:
        services.match_roll(match_id=match.pk, user=user, seq=match.seq, action_id="r1", face=6)
    assert err.value.code == "bad_request"
    assert rows(match) == before


def test_a_repeated_action_id_is_answered_once(make_user) -> None:
    match, alice, bob = two_player(make_user)
    user, _ = to_play_user(match, alice, bob)
    first = services.match_roll(match_id=match.pk, user=user, seq=match.seq, action_id="same")
    assert not first.repeated
    after = rows(match)
    # A retry with the seq it was made against: the same answer, nothing written.
    again = services.match_roll(match_id=match.pk, user=user, seq=match.seq, action_id="same")
    assert again.repeated and again.events == first.events
    assert rows(match) == after
    # The same id sent again against the new seq: still the earlier answer.
    state = current(match).state()
    if state.to_play == (0 if user == alice else 2) and state.phase == "roll":
        third = services.match_roll(
            match_id=match.pk, user=user, seq=current(match).seq, action_id="same"
        )
        assert third.repeated and third.events == first.events
        assert rows(match) == after


def test_a_roll_and_a_move_write_their_rows(make_user) -> None:
    alice = make_user()
    match = services.match_create(ruleset="classic", players=2, mode="local", host=alice, first=0)
    seq = match.seq
    for n in range(60):
        state = current(match).state()
        if state.phase == "move":
            break
        result = services.match_roll(match_id=match.pk, user=alice, seq=seq, action_id=f"r{n}")
        seq = result.seq
    else:
        pytest.fail("no six in 60 rolls")
    roll = Roll.objects.filter(match=match).order_by("-n").first()
    assert roll.face == 6 and roll.by == "player"
    assert roll.face == dice.roll_face(match.server_seed, current(match).client_seed, roll.n)
    snap = snapshot_for(current(match), viewer_user=alice)
    assert snap["phase"] == "move" and snap["die"] == 6
    assert snap["legal"] and {m["from"] for m in snap["legal"]} == {-1}
    assert snapshot_for(current(match))["legal"] == []  # a spectator sees no legal moves
    result = services.match_move(
        match_id=match.pk, user=alice, seq=seq, action_id="m", pawn=snap["legal"][0]["pawn"]
    )
    move = Move.objects.get(match=match)
    assert (move.frm, move.to, move.by, move.pawn_corner) == (-1, 0, "player", state.to_play)
    assert [e["kind"] for e in result.events] == ["released", "extra_roll"]
    assert result.seq == current(match).seq == result.events[-1]["seq"]


def test_local_play_acts_for_the_seat_to_play(make_user) -> None:
    alice = make_user()
    match = services.match_create(ruleset="mensch", players=3, mode="local", host=alice)
    assert match.status == Status.ACTIVE
    corners = set()
    seq = current(match).seq
    for n in range(12):
        state = current(match).state()
        corners.add(state.to_play)
        if state.phase == "roll":
            seq = services.match_roll(match_id=match.pk, user=alice, seq=seq, action_id=f"{n}").seq
        else:
            seq = services.match_move(
                match_id=match.pk, user=alice, seq=seq, action_id=f"{n}", pawn=state.legal[0].pawn
            ).seq
    assert len(corners) > 1


# ---------------------------------------------------------------------------- timers


def test_timeout_does_nothing_when_the_turn_moved_on_or_time_is_left(make_user, settings) -> None:
    settings.LUDO_TIME_SCALE = 1.0
    match, alice, bob = two_player(make_user)
    before = rows(match)
    assert services.match_timeout(match_id=match.pk, turn_seq=match.turn_seq) is None  # 20 s left
    assert services.match_timeout(match_id=match.pk, turn_seq=match.turn_seq + 5) is None
    assert rows(match) == before


def test_three_timeouts_in_a_row_forfeit(make_user) -> None:
    match, alice, bob = two_player(make_user)
    sleeper = current(match).state().to_play
    missed = []
    for _ in range(200):
        match = current(match)
        if match.status != Status.ACTIVE:
            break
        state = match.state()
        if state.to_play == sleeper:
            result = services.match_timeout(match_id=match.pk, turn_seq=match.turn_seq)
            assert result is not None
            missed += [e["missed"] for e in result.events if e["kind"] == "timeout"]
        else:  # the other player acts
            user = alice if state.to_play == 0 else bob
            kw = dict(match_id=match.pk, user=user, seq=match.seq, action_id=f"{match.seq}")
            if state.phase == "roll":
                services.match_roll(**kw)
            else:
                services.match_move(**kw, pawn=state.legal[0].pawn)
    match = current(match)
    assert missed[:3] == [1, 2, 3]
    assert match.status == Status.FINISHED
    state = match.state()
    assert state.out == (sleeper,) and state.winner != sleeper
    assert Seat.objects.get(match=match, corner=sleeper).left
    assert Roll.objects.filter(match=match, by="timeout", corner=sleeper).exists()
    assert AuditEntry.objects.filter(object_id=str(match.pk), action="match.forfeited").exists()


def test_bots_act_on_their_turn_only(make_user) -> None:
    alice = make_user()
    match = services.match_create(
        ruleset="classic", players=2, mode="practice", host=alice, bots={2: "easy"}, first=2
    )
    match = current(match)
    assert match.status == Status.ACTIVE and match.state().to_play == 2
    assert match.turn_deadline is not None  # the bot's act-at time
    assert services.bot_act(match_id=match.pk, turn_seq=match.turn_seq + 1) is None
    assert services.bot_act(match_id=match.pk, turn_seq=match.turn_seq, seq=match.seq + 1) is None
    for _ in range(100):
        match = current(match)
        if match.state().to_play != 2:
            break
        result = services.bot_act(match_id=match.pk, turn_seq=match.turn_seq)
        assert result is not None
    else:
        pytest.fail("the bot never passed the turn")
    assert services.bot_act(match_id=match.pk, turn_seq=match.turn_seq) is None
    assert Roll.objects.filter(match=match, by="bot").exists()
    snap = snapshot_for(match, viewer_user=alice)
    bot_seat = snap["seats"][1]
    assert bot_seat["bot"] and bot_seat["label"] == "BOT" and bot_seat["name"] == "Kai, easy bot"


# ---------------------------------------------------------------------------- leaving


def test_resign_ends_a_two_player_match_and_reveals_the_seed(make_user) -> None:
    match, alice, bob = two_player(make_user)
    result = services.match_resign(match_id=match.pk, user=bob)
    match = current(match)
    assert match.status == Status.FINISHED and match.finished_at is not None
    assert match.turn_deadline is None
    ended = result.events[-1]
    assert ended["kind"] == "ended" and ended["placings"] == [0, 2]
    assert ended["server_seed"] == match.server_seed
    places = dict(Seat.objects.filter(match=match).values_list("corner", "place"))
    assert places == {0: 1, 2: 2}
    finished = AuditEntry.objects.get(object_id=str(match.pk), action="match.finished")
    assert finished.extra_data["server_seed"] == match.server_seed
    with pytest.raises(ServiceError) as err:
        services.match_roll(match_id=match.pk, user=alice, seq=match.seq, action_id="late")
    assert err.value.code == "over"
    with pytest.raises(ServiceError) as err:
        services.match_resign(match_id=match.pk, user=alice)
    assert err.value.code == "over"


def test_the_server_seed_stays_secret_until_the_end(make_user) -> None:
    """Not in any snapshot, event, broadcast or error before the end; revealed at the end."""
    alice, bob, carol = make_user("alice"), make_user("bob"), make_user("carol")
    match = services.match_create(ruleset="classic", players=3, mode="friendly", host=alice)
    seed = match.server_seed
    users = {0: alice, 1: bob, 2: carol}
    services.match_join(code=match.code, user=bob)
    seen: list[str] = []
    services.match_join(code=match.code, user=carol)
    for n in range(40):
        match = current(match)
        state = match.state()
        user = users[state.to_play]
        for viewer in (None, alice, bob, carol):
            seen.append(json.dumps(snapshot_for(match, viewer_user=viewer)))
        try:  # an error on the way
            services.match_roll(match_id=match.pk, user=user, seq=match.seq - 1, action_id="x")
        except ServiceError as exc:
            seen.append(exc.message)
        kw = dict(match_id=match.pk, user=user, seq=match.seq, action_id=f"a{n}")
        if state.phase == "roll":
            result = services.match_roll(**kw)
        else:
            result = services.match_move(**kw, pawn=state.legal[-1].pawn)
        seen.append(json.dumps(result.events))
        seen.append(json.dumps(result.snapshot))
    seen.append(json.dumps(list(MatchEvent.objects.filter(match=match).values("data"))))
    seen.append(json.dumps(list(AuditEntry.objects.values("extra_data"))))
    assert not [text for text in seen if seed in text]
    result = services.match_resign(match_id=match.pk, user=alice)
    result = services.match_resign(match_id=match.pk, user=bob)
    assert seed in json.dumps(result.events)  # revealed with the end
    assert seed not in json.dumps(result.snapshot)


# ---------------------------------------------------------------------------- broadcast


def test_changes_are_broadcast_after_commit(
    make_user, monkeypatch, django_capture_on_commit_callbacks
) -> None:
    sent = []
    monkeypatch.setattr(broadcast, "match_changed", lambda *args, **_view: sent.append(args))
    alice = make_user()
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        match = services.match_create(ruleset="duel", players=2, mode="local", host=alice)
    assert sent == []  # nothing before the commit
    for callback in callbacks:
        callback()
    ((match_id, seq, events),) = sent
    assert (match_id, seq) == (match.pk, current(match).seq)
    assert [e["seq"] for e in events] == list(range(1, seq + 1))


def test_a_failing_channel_layer_never_breaks_a_service(
    make_user, monkeypatch, django_capture_on_commit_callbacks
) -> None:
    class Broken:
        async def group_send(self, group, message):
            raise ConnectionError("redis is down")

    monkeypatch.setattr(broadcast, "get_channel_layer", lambda: Broken())
    alice = make_user()
    with django_capture_on_commit_callbacks(execute=True):
        match = services.match_create(ruleset="duel", players=2, mode="local", host=alice)
    assert current(match).status == Status.ACTIVE


def test_broadcast_message_shape(monkeypatch) -> None:
    got = []

    class Layer:
        async def group_send(self, group, message):
            got.append((group, message))

    monkeypatch.setattr(broadcast, "get_channel_layer", lambda: Layer())
    broadcast.match_changed(7, 12, [{"seq": 12, "kind": "rolled"}])
    assert got == [
        ("match.7", {"type": "match.update", "v": 12, "events": [{"seq": 12, "kind": "rolled"}]})
    ]
