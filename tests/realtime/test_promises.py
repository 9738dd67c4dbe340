"""The product descriptions' promises about clocks, absent players and the first player
(issue 16, items 1-6), run through the services with short clocks."""

from __future__ import annotations

import time
from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from accounts.models import User
from games import services
from games.clocks import sweeps as clock
from games.engine import roll as engine_roll
from games.engine import setup
from games.match import dice
from games.match.errors import ServiceError
from games.match.replay import snapshot_of
from games.match.selectors import snapshot_for
from games.match.verify import verify_match
from games.models import Match, MatchEvent, Roll, Seat

from .conftest import two_player


@pytest.fixture
def players(db: None) -> tuple[User, User]:
    return User.objects.create(username="ann"), User.objects.create(username="ben")


def kinds(match: Match, since: int = 0) -> list[str]:
    return list(
        MatchEvent.objects.filter(match=match, seq__gt=since)
        .order_by("seq")
        .values_list("kind", flat=True)
    )


def act(match: Match, user: User, n: int) -> Match:
    """`user` takes one step: a roll, or the first legal move."""
    match.refresh_from_db()
    state = match.state()
    assert state is not None
    if state.phase == "roll":
        services.match_roll(match_id=match.pk, user=user, seq=match.seq, action_id=f"r{n}")
    else:
        pawn = state.legal[0].pawn
        services.match_move(
            match_id=match.pk, user=user, seq=match.seq, action_id=f"m{n}", pawn=pawn
        )
    match.refresh_from_db()
    return match


def play_turn(match: Match, user: User, corner: int, start: int = 0) -> Match:
    """`user` plays the whole of corner `corner`'s turn."""
    for n in range(start, start + 50):
        match.refresh_from_db()
        state = match.state()
        assert state is not None
        if state.phase == "over" or state.to_play != corner:
            return match
        act(match, user, n)
    pytest.fail("a turn of 50 steps")


# ---------------------------------------------------------------------------- 1


def test_one_deadline_covers_the_roll_and_the_move(
    players: tuple[User, User], settings: Any
) -> None:
    """Item 1: "20 seconds for each turn": the roll does not restart the clock;
    an extra roll (a six, a capture, a pawn home) starts a fresh one."""
    settings.LUDO_TIME_SCALE = 1  # nothing falls due while the test plays
    ann, ben = players
    match = two_player(ann, ben)
    user = {0: ann, 2: ben}
    checked_roll = checked_extra = False
    for n in range(600):
        match.refresh_from_db()
        state = match.state()
        assert state is not None and state.phase != "over"
        before = match.turn_deadline
        assert before is not None
        after = act(match, user[state.to_play], n)
        new = after.state()
        assert new is not None
        if state.phase == "roll" and new.phase == "move" and len(new.legal) > 1:
            assert after.turn_deadline == before, "the roll restarted the turn's clock"
            checked_roll = True
        if state.phase == "move" and new.phase == "roll" and new.to_play == state.to_play:
            # An extra roll: a fresh deadline, the full 20 s from now.
            assert after.turn_deadline is not None and after.turn_deadline > before
            left = after.turn_deadline - timezone.now()
            assert timedelta(seconds=19) < left <= timedelta(seconds=20)
            checked_extra = True
        if checked_roll and checked_extra:
            break
    else:
        pytest.fail("no roll with a choice and no extra roll in 600 steps")


# ---------------------------------------------------------------------------- 2


def test_after_two_missed_turns_the_player_gets_a_window_to_tap(
    players: tuple[User, User], settings: Any
) -> None:
    """Item 2: after two missed turns the bot keeps playing "until you tap the die at
    the start of your turn": each of their turns opens with a window (a setting) to do so."""
    settings.LUDO_TIME_SCALE = 0.001  # a 30 ms turn
    settings.LUDO_BOT_DELAY = 0.0
    settings.LUDO_RECLAIM_SECONDS = 2.0  # long enough for a loaded test machine
    ann, ben = players
    match = two_player(ann, ben, ruleset="party")
    for _ in range(2):  # ann misses two turns; ben plays his
        time.sleep(0.05)
        assert clock.sweep() == 1
        match = play_turn(match, ben, 2, start=100 * _)
    seat = Seat.objects.get(match=match, corner=0)
    assert seat.missed_turns == 2
    match.refresh_from_db()
    state = match.state()
    assert state is not None and state.to_play == 0 and state.phase == "roll"
    # The window, not the bot's pause: nothing is due for a while.
    assert match.turn_deadline is not None
    assert match.turn_deadline - timezone.now() > timedelta(seconds=1)
    time.sleep(0.05)
    assert clock.sweep() == 0
    # Not tapped: when the window closes the bot plays her turn.
    time.sleep(max((match.turn_deadline - timezone.now()).total_seconds(), 0) + 0.05)
    before = match.seq
    assert clock.sweep() == 1
    assert kinds(match, before)[0] == "timeout"
    assert Seat.objects.get(match=match, corner=0).missed_turns == 3
    match = play_turn(match, ben, 2, start=300)
    match.refresh_from_db()
    # Her next turn opens with the window again; she taps the die in it and has her seat back,
    # with the whole turn's clock.
    assert match.turn_deadline - timezone.now() > timedelta(seconds=1)
    services.match_roll(match_id=match.pk, user=ann, seq=match.seq, action_id="tap")
    assert Seat.objects.get(match=match, corner=0).missed_turns == 0
    match.refresh_from_db()
    state = match.state()
    if state is not None and state.phase == "move" and len(state.legal) > 1:
        assert match.turn_deadline - timezone.now() <= timedelta(seconds=0.03)


def test_the_snapshot_says_the_seat_can_be_taken_back(
    players: tuple[User, User], settings: Any
) -> None:
    """Item 2: the die shows the window: the seat to play has missed two turns."""
    settings.LUDO_TIME_SCALE = 0.001
    settings.LUDO_RECLAIM_SECONDS = 5
    ann, ben = players
    match = two_player(ann, ben, ruleset="party")
    for _ in range(2):
        time.sleep(0.05)
        clock.sweep()
        match = play_turn(match, ben, 2, start=100 * _)
    snap = snapshot_for(Match.objects.get(pk=match.pk), ann)
    assert snap["reclaim"] is True
    assert snapshot_for(Match.objects.get(pk=match.pk), ben)["reclaim"] is True


# ---------------------------------------------------------------------------- 3


def three_player_party(ann: User, ben: User, carol: User) -> Match:
    match = services.match_create(ruleset="party", players=3, mode="friendly", host=ann, first=0)
    services.match_join(code=match.code, user=ben)
    services.match_join(code=match.code, user=carol)
    return Match.objects.get(pk=match.pk)


def test_a_leaver_who_never_returns_is_placed_below_everyone_still_playing(
    players: tuple[User, User], settings: Any
) -> None:
    """Item 3: one who leaves "can come back while the game runs; otherwise they
    lose". Their bot never places them ahead of anyone still playing: where it would bring
    the last pawn home, the seat is out instead."""
    settings.LUDO_TIME_SCALE = 1
    settings.LUDO_BOT_DELAY = 0.0
    ann, ben = players
    carol = User.objects.create(username="carol")
    match = three_player_party(ann, ben, carol)
    services.match_resign(match_id=match.pk, user=ann)  # a bot plays on in her seat
    seat = Seat.objects.get(match=match, corner=0)
    assert seat.away and seat.gone and not seat.left
    # Her bot is one step from bringing her last pawn home: three home, one a pip away.
    rules = match.rules
    state = setup(rules, {0: [56, 56, 56, 55], 1: [-1] * 4, 2: [-1] * 4}, to_play=0)
    state, _ = engine_roll(state, 1)
    assert [m.to for m in state.legal] == [56]
    snap = match.snapshot
    Match.objects.filter(pk=match.pk).update(
        snapshot=snapshot_of(state, rolls=snap["rolls"], turn=snap["turn"]),
        turn_deadline=timezone.now() - timedelta(seconds=1),
    )
    assert clock.sweep() == 1
    match.refresh_from_db()
    after = match.state()
    assert after is not None
    assert after.out == (0,) and 0 not in after.placings and after.phase != "over"
    leave = MatchEvent.objects.get(match=match, kind="leave")
    assert leave.data == {"corner": 0, "reason": "left", "forfeit": True}
    assert Seat.objects.get(match=match, corner=0).left


def test_a_leaver_who_comes_back_plays_on(players: tuple[User, User]) -> None:
    """Item 3: coming back while the game runs clears the mark: the seat is theirs again."""
    ann, ben = players
    carol = User.objects.create(username="carol")
    match = three_player_party(ann, ben, carol)
    services.match_resign(match_id=match.pk, user=ann)
    services.seat_set_connected(match_id=match.pk, user=ann, connected=True)
    seat = Seat.objects.get(match=match, corner=0)
    assert not seat.away and not seat.gone and not seat.left


# ---------------------------------------------------------------------------- 4


def test_mensch_waits_for_a_lost_connection_then_the_computer_plays(
    players: tuple[User, User], settings: Any
) -> None:
    """Item 4: "the game waits 45 seconds for them, then the computer plays for them
    until they are back": no auto-move while it waits, and nobody forfeits for it."""
    settings.LUDO_TIME_SCALE = 0.04  # a 0.8 s turn, a 1.8 s wait
    settings.LUDO_BOT_DELAY = 0.0
    ann, ben = players
    match = two_player(ann, ben, ruleset="mensch")
    services.seat_set_connected(match_id=match.pk, user=ann, connected=True)
    services.seat_set_connected(match_id=match.pk, user=ann, connected=False)
    match.refresh_from_db()
    assert match.turn_deadline is None  # her turn waits
    before = match.seq
    time.sleep(1.0)  # past her 0.8 s turn clock
    assert clock.sweep() == 0
    assert kinds(match, before) == []
    gone = Seat.objects.get(match=match, corner=0).disconnected_at
    assert gone is not None
    time.sleep(max((gone + timedelta(seconds=1.85) - timezone.now()).total_seconds(), 0))
    clock.sweep()  # the grace ran out: the computer takes her seat
    assert Seat.objects.get(match=match, corner=0).away
    for _ in range(30):
        clock.sweep()
    assert Roll.objects.filter(match=match, corner=0, by="bot").exists()
    timeouts = MatchEvent.objects.filter(match=match, kind="timeout")
    assert 0 not in [e.data["corner"] for e in timeouts]  # ben idles; she is never timed out
    seat = Seat.objects.get(match=match, corner=0)
    assert not seat.left and seat.missed_turns == 0


def test_mensch_gives_the_rest_of_the_turn_back_when_the_player_is_back(
    players: tuple[User, User], settings: Any
) -> None:
    """Item 4: back within the wait, the player's turn runs on their own clock again, with the
    time they had left (a dropped connection waits; it does not buy a fresh clock)."""
    settings.LUDO_TIME_SCALE = 1
    ann, ben = players
    match = two_player(ann, ben, ruleset="mensch")
    services.seat_set_connected(match_id=match.pk, user=ann, connected=True)
    time.sleep(1.0)  # a second of her 20 s goes by
    services.seat_set_connected(match_id=match.pk, user=ann, connected=False)
    assert Match.objects.get(pk=match.pk).turn_deadline is None
    assert 18.5 < Seat.objects.get(match=match, corner=0).clock_left < 19.5  # type: ignore[operator]
    time.sleep(0.5)  # the wait does not count against her
    services.seat_set_connected(match_id=match.pk, user=ann, connected=True)
    deadline = Match.objects.get(pk=match.pk).turn_deadline
    assert deadline is not None
    assert timedelta(seconds=18.5) < deadline - timezone.now() < timedelta(seconds=19.5)
    assert Seat.objects.get(match=match, corner=0).clock_left is None


# ---------------------------------------------------------------------------- 5


def roll_until_the_die_passes(match: Match, users: dict[int, User]) -> tuple[Match, int]:
    """Play until a roll no pawn can use passes the die; returns the match and who rolled."""
    for n in range(600):
        match.refresh_from_db()
        state = match.state()
        assert state is not None and state.phase != "over"
        corner = state.to_play
        before = match.seq
        act(match, users[corner], n)
        new = kinds(match, before)
        if state.phase == "roll" and "turn_passed" in new and not {"moved", "released"} & set(new):
            return match, corner
    pytest.fail("no roll passed the die in 600 steps")


def test_a_roll_with_no_move_pauses_before_the_die_passes(
    players: tuple[User, User], settings: Any
) -> None:
    """Item 5: when a roll has no move, "the game says so, pauses, passes the die":
    the next player can roll only after the pause, and their clock starts from there."""
    settings.LUDO_TIME_SCALE = 1
    settings.LUDO_PASS_PAUSE = 1.0
    ann, ben = players
    match = two_player(ann, ben)
    users = {0: ann, 2: ben}
    match, corner = roll_until_the_die_passes(match, users)
    assert match.pause_until is not None
    nxt = match.state().to_play  # type: ignore[union-attr]
    assert nxt != corner
    with pytest.raises(ServiceError) as refused:
        services.match_roll(match_id=match.pk, user=users[nxt], seq=match.seq, action_id="soon")
    assert refused.value.code == "pause"
    assert match.turn_deadline == match.pause_until + timedelta(seconds=20)
    assert snapshot_for(match, users[nxt])["pause_until"] == match.pause_until.isoformat()
    time.sleep(max((match.pause_until - timezone.now()).total_seconds(), 0) + 0.05)
    services.match_roll(match_id=match.pk, user=users[nxt], seq=match.seq, action_id="later")


def test_the_pause_holds_a_bot_and_a_one_device_game_too(
    players: tuple[User, User], settings: Any
) -> None:
    """Item 5, local play: the person after the pause rolls only after it; a bot's step is due
    no sooner than the die passes."""
    settings.LUDO_PASS_PAUSE = 2.0  # long enough for a loaded test machine
    settings.LUDO_BOT_DELAY = 0.0
    ann, _ben = players
    match = services.match_create(ruleset="family", players=2, mode="local", host=ann)
    match = Match.objects.get(pk=match.pk)
    match, corner = roll_until_the_die_passes(match, {0: ann, 2: ann})
    with pytest.raises(ServiceError) as refused:
        act(match, ann, 999)
    assert refused.value.code == "pause"
    bots = services.match_create(
        ruleset="family", players=2, mode="practice", host=ann, bots={2: "beginner"}
    )
    bots = Match.objects.get(pk=bots.pk)
    for n in range(600):
        bots.refresh_from_db()
        state = bots.state()
        assert state is not None
        if state.to_play == 2:
            clock.sweep()
            continue
        if bots.pause_until is not None and bots.pause_until > timezone.now():
            time.sleep((bots.pause_until - timezone.now()).total_seconds() + 0.01)
        before = bots.seq
        act(bots, ann, n)
        passed = "turn_passed" in kinds(bots, before) and bots.pause_until is not None
        if passed and bots.pause_until > timezone.now() and bots.state().to_play == 2:  # type: ignore[union-attr, operator]
            assert bots.turn_deadline is not None
            assert bots.turn_deadline >= bots.pause_until  # type: ignore[operator]
            assert clock.sweep() == 0
            return
    pytest.fail("the die never passed to the bot")


# ---------------------------------------------------------------------------- 6


def test_code_rooms_draw_the_first_player_with_the_dice(
    players: tuple[User, User],
) -> None:
    """Item 6: in code rooms "who goes first is drawn at random", from the match's
    dice, so anyone can re-derive it once the seed is revealed; one-device games keep red."""
    ann, ben = players
    firsts = []
    for _ in range(12):
        match = services.match_create(ruleset="mensch", players=2, mode="friendly", host=ann)
        services.match_join(code=match.code, user=ben)
        match = Match.objects.get(pk=match.pk)
        want = dice.draw_first(match.server_seed, match.client_seed, (0, 2))
        assert match.first == want
        firsts.append(match.first)
        services.match_resign(match_id=match.pk, user=ann)  # ends it: the seed is revealed
        report = verify_match(Match.objects.get(pk=match.pk))
        assert report.ok, report.line
    assert set(firsts) == {0, 2}
    local = services.match_create(ruleset="mensch", players=2, mode="local", host=ann)
    assert Match.objects.get(pk=local.pk).first == 0
