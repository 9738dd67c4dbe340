"""Undo in local games: the last person's roll or move is taken back with the computer turns
after it; the withdrawn rows stay, the replay, verify_match and the dice proof still agree."""

from __future__ import annotations

from typing import Any

import pytest

from audit.models import AuditEntry
from games import services
from games.match import dice
from games.match.errors import ServiceError
from games.match.replay import replay_snapshot, steps
from games.match.verify import verify_match
from games.models import Match, MatchEvent, Move, Roll, Status, Turn

from .driver import current

pytestmark = pytest.mark.django_db


def local(host: Any, *, players: int = 2, bots: Any = None, ruleset: str = "family") -> Match:
    """A local game, red (corner 0, the host) first."""
    return services.match_create(
        ruleset=ruleset, players=players, mode="local", host=host, bots=bots, first=0
    )


def run_bots(match: Match) -> Match:
    """Let the computer seats play until a person is to play (or the match is over)."""
    for _ in range(500):
        match = current(match)
        state = match.state()
        if match.status != Status.ACTIVE or state is None:
            return match
        if not match.seats.get(corner=state.to_play).bot:
            if state.phase == "move" and len(state.legal) == 1:
                # The lone move plays itself once its (zero) delay is due.
                services.match_timeout(match_id=match.pk, turn_seq=match.turn_seq)
                continue
            return match
        services.match_timeout(match_id=match.pk, turn_seq=match.turn_seq)
    raise AssertionError("the bots did not hand the turn back")


def person_acts(match: Match, host: Any, n: int, pick: int | None = None) -> None:
    """Red rolls, or moves: legal move `pick`, else a pawn out of the yard if one can come
    out (so that red soon has pawns to choose between), else the first legal move."""
    state = match.state()
    assert state is not None
    common = {"match_id": match.pk, "user": host, "seq": match.seq, "action_id": f"p{n}"}
    if state.phase == "roll":
        services.match_roll(**common)
    else:
        out = [m for m in state.legal if m.frm < 0]
        if pick is not None:
            chosen = state.legal[min(pick, len(state.legal) - 1)]
        else:
            chosen = out[0] if out else state.legal[0]
        services.match_move(**common, pawn=chosen.pawn, pawn_corner=chosen.corner)


def agrees(match: Match) -> None:
    match = current(match)
    assert match.snapshot == replay_snapshot(match)
    report = verify_match(match)
    assert report.ok, report.line


def undone_events(match: Match) -> list[MatchEvent]:
    return list(MatchEvent.objects.filter(match=match, kind="undone").order_by("seq"))


@pytest.mark.parametrize("mode", ["friendly", "ranked", "practice"])
def test_undo_is_refused_outside_local_games(make_user, mode: str) -> None:
    host, guest = make_user(), make_user()
    bots = {2: "easy"} if mode == "practice" else None
    paired = [host, guest] if mode == "ranked" else None  # ranked: only as quick match pairs
    match = services.match_create(
        ruleset="family", players=2, mode=mode, host=host, bots=bots, first=0, paired=paired
    )
    if mode != "practice":
        services.match_join(code=match.code, user=guest)
    match = current(match)
    services.match_roll(match_id=match.pk, user=host, seq=match.seq, action_id="r1")
    before = current(match)
    with pytest.raises(ServiceError) as refused:
        services.match_undo(match_id=match.pk, user=host)
    assert refused.value.code == "no_undo"
    after = current(match)
    assert (after.seq, after.snapshot) == (before.seq, before.snapshot)
    assert not undone_events(match)


def test_nothing_to_undo_refusals(host, make_user) -> None:
    match = local(host, bots={2: "easy"})
    with pytest.raises(ServiceError) as refused:
        services.match_undo(match_id=match.pk, user=host)
    assert refused.value.code == "no_undo"
    with pytest.raises(ServiceError) as refused:
        services.match_undo(match_id=match.pk, user=make_user())
    assert refused.value.code == "not_seated"
    services.match_roll(match_id=match.pk, user=host, seq=current(match).seq, action_id="r")
    with pytest.raises(ServiceError) as refused:
        services.match_undo(match_id=match.pk, user=host, seq=1)
    assert refused.value.code == "stale"


def test_undo_a_roll_keeps_its_row_and_replays_its_face(host) -> None:
    match = local(host, players=2, ruleset="classic")
    match = current(match)
    start = match.snapshot
    services.match_roll(match_id=match.pk, user=host, seq=match.seq, action_id="r1")
    turn = current(match).turn_seq  # 2 if the roll passed the turn to yellow
    result = services.match_undo(match_id=match.pk, user=host, seq=current(match).seq)
    match = current(match)
    assert [e["kind"] for e in result.events] == ["undone"]
    # The same position, red to roll again; the counters move on (one roll drawn, a turn).
    assert match.snapshot["notation"] == start["notation"]
    assert (match.snapshot["rolls"], match.snapshot["turn"], match.turn_seq) == (
        1,
        turn + 1,
        turn + 1,
    )
    undone = undone_events(match)[0]
    # Events: created, two seats joined, started, then the roll at seq 5.
    assert undone.data == {"from": 5, "to": undone.seq - 1, "corner": 0, "turn": turn + 1}
    assert Turn.objects.filter(match=match, n=turn + 1, corner=0, seq=undone.seq).exists()
    audited = AuditEntry.objects.get(action="match.undone", object_id=str(match.pk))
    assert audited.actor_id == host.pk and audited.extra_data["from"] == 5
    # The re-roll is roll 1, and it replays dice number 0, the withdrawn roll's: the same
    # position rolls the same face (roll 0 stays, withdrawn).
    services.match_roll(match_id=match.pk, user=host, seq=match.seq, action_id="r2")
    assert list(Roll.objects.filter(match=match).values_list("n", "die")) == [(0, None), (1, 0)]
    faces = list(
        MatchEvent.objects.filter(match=match, kind="rolled")
        .order_by("seq")
        .values_list("data__face", flat=True)
    )
    assert faces == [dice.roll_face(match.server_seed, match.client_seed, 0)] * 2
    agrees(match)


def red_moves_by_choice(host: Any) -> tuple[Match, str, int, int]:
    """A local game against a bot, played until red has a real choice (two legal moves
    or more) and takes one that passes the turn. Returns the match, the position before the
    move, the rolls stored before it and the match's seq right after it. (A game that ends
    first, a bot winning, is rare: then another game.)"""
    for _game in range(5):
        match = local(host, players=2, bots={2: "easy"})
        for n in range(600):
            match = run_bots(match)
            if match.status != Status.ACTIVE:
                break
            state = match.state()
            if state.phase == "move" and len(state.legal) > 1:
                before_move = match.snapshot["notation"]
                rolls_before = Roll.objects.filter(match=match).count()
                person_acts(match, host, n, pick=1)
                after = current(match)
                if after.state().to_play != 0:
                    return after, before_move, rolls_before, after.seq
            else:
                person_acts(match, host, n)
    raise AssertionError("red never had a choice")


def test_undo_a_move_takes_back_the_computer_turns_after_it(host) -> None:
    # Red presses Undo at once (at `asked_at`), but the bots play first.
    match, before_move, rolls_before, asked_at = red_moves_by_choice(host)
    moved = Move.objects.filter(match=match, corner=0).order_by("seq").last()
    match = run_bots(match)
    bot_rolls = Roll.objects.filter(match=match, seq__gt=moved.seq, by="bot").count()
    assert bot_rolls > 0
    services.match_undo(match_id=match.pk, user=host, seq=asked_at)
    match = current(match)
    assert undone_events(match)[-1].data["from"] == moved.seq
    # The same request again is stale: it never takes back two.
    with pytest.raises(ServiceError) as refused:
        services.match_undo(match_id=match.pk, user=host, seq=asked_at)
    assert refused.value.code == "stale"
    # Red chooses again from the same position, the computer's rolls and moves withdrawn.
    assert match.snapshot["notation"] == before_move
    assert match.state().to_play == 0 and match.state().phase == "move"
    assert Roll.objects.filter(match=match).count() == rolls_before + bot_rolls
    agrees(match)
    # Play on: the rolls after the undo carry on numbering the dice.
    for k in range(12):
        match = run_bots(match)
        if match.status != Status.ACTIVE:
            break
        person_acts(match, host, 1000 + k)
    numbers = list(Roll.objects.filter(match=match).order_by("seq").values_list("n", flat=True))
    assert numbers == list(range(len(numbers)))
    agrees(match)


def test_two_undos_go_further_back_and_a_finished_match_verifies(host) -> None:
    match = local(host, players=2, bots={2: "easy"})
    n = 0
    while Roll.objects.filter(match=match, corner=0).count() < 4:
        match = run_bots(match)
        person_acts(match, host, n)
        n += 1
    match = run_bots(match)
    live = [s.action.seq for s in steps(current(match)) if s.action.row.corner == 0]
    services.match_undo(match_id=match.pk, user=host)
    services.match_undo(match_id=match.pk, user=host)
    match = current(match)
    first, second = undone_events(match)
    # The second undo withdraws the first one too, back to an earlier action of red's.
    assert second.data["from"] < first.data["from"]
    assert second.data["from"] in live
    assert second.data["to"] == first.seq
    agrees(match)
    # End it: red resigns, the seed is revealed and every roll, withdrawn ones included,
    # re-derives from it.
    services.match_resign(match_id=match.pk, user=host)
    match = current(match)
    assert match.status == Status.FINISHED
    rolls = [(r.n, r.face, r.bonus) for r in Roll.objects.filter(match=match)]
    assert not dice.verify(match.commitment, match.server_seed, match.client_seed, rolls)
    report = verify_match(match)
    assert report.ok and "dice verified" in report.line, report.line
    with pytest.raises(ServiceError) as refused:
        services.match_undo(match_id=match.pk, user=host)
    assert refused.value.code == "over"


def test_a_lone_move_is_taken_back_with_its_roll(host) -> None:
    match = local(host, players=2, bots={2: "easy"})
    n = 0
    while True:
        match = run_bots(match)
        assert match.status == Status.ACTIVE and n < 600, "red never had a lone move"
        state = match.state()
        if state.phase == "roll":
            services.match_roll(match_id=match.pk, user=host, seq=match.seq, action_id=f"p{n}")
            n += 1
            state = current(match).state()
            if state.to_play == 0 and state.phase == "move" and len(state.legal) == 1:
                break
        else:
            person_acts(match, host, n)
            n += 1
    match = current(match)
    rolled_at = Roll.objects.filter(match=match).order_by("seq").last().seq
    services.match_timeout(match_id=match.pk, turn_seq=match.turn_seq)  # the lone move plays
    services.match_undo(match_id=match.pk, user=host)
    match = current(match)
    assert undone_events(match)[-1].data["from"] == rolled_at
    assert match.state().phase == "roll" and match.state().to_play == 0
    assert match.turn_deadline is None  # nothing plays by itself: red rolls again
    agrees(match)


def test_no_undo_across_someone_leaving(host) -> None:
    match = local(host, players=3, bots={2: "easy"})
    match = current(match)
    services.match_roll(match_id=match.pk, user=host, seq=match.seq, action_id="r1")
    services.match_forfeit(match_id=match.pk, corner=2, reason="test")
    with pytest.raises(ServiceError) as refused:
        services.match_undo(match_id=match.pk, user=host)
    assert refused.value.code == "no_undo"
    agrees(match)


def test_verify_names_an_undo_that_was_tampered_with(host) -> None:
    match = local(host, players=2, ruleset="classic")
    services.match_roll(match_id=match.pk, user=host, seq=current(match).seq, action_id="r1")
    services.match_undo(match_id=match.pk, user=host)
    agrees(match)
    undone = undone_events(match)[0]
    MatchEvent.objects.filter(pk=undone.pk).update(data={**undone.data, "from": 1})
    report = verify_match(current(match))
    assert not report.ok and f"match_event id {undone.pk}" in report.line, report.line
    Match.objects.filter(pk=match.pk).update(mode="friendly")
    MatchEvent.objects.filter(pk=undone.pk).update(data=undone.data)
    report = verify_match(current(match))
    assert not report.ok and "local games only" in report.line, report.line


def test_undo_over_the_json_api(host, make_user) -> None:
    from django.test import Client

    client = Client()
    client.force_login(host)
    match = local(host, players=2, ruleset="classic")
    url = f"/api/matches/{match.code}/actions"
    rolled = client.post(
        url, {"t": "roll", "v": current(match).seq, "id": "r1"}, content_type="application/json"
    )
    assert rolled.status_code == 200, rolled.content
    undo = client.post(
        url, {"t": "undo", "v": rolled.json()["seq"]}, content_type="application/json"
    )
    assert undo.status_code == 200, undo.content
    assert [e["kind"] for e in undo.json()["events"]] == ["undone"]
    again = client.post(
        url, {"t": "undo", "v": undo.json()["seq"]}, content_type="application/json"
    )
    assert again.status_code == 409 and again.json()["code"] == "no_undo"
    guest = make_user()
    friendly = services.match_create(ruleset="classic", players=2, mode="friendly", host=host)
    services.match_join(code=friendly.code, user=guest)
    refused = client.post(
        f"/api/matches/{friendly.code}/actions",
        {"t": "undo", "v": current(friendly).seq},
        content_type="application/json",
    )
    assert refused.status_code == 409 and refused.json()["code"] == "no_undo"


def test_the_room_page_says_whether_there_is_anything_to_undo(host) -> None:
    """A reloaded local game shows Undo only when the server would take something back."""
    import json

    from django.test import Client

    client = Client()
    client.force_login(host)

    def undo_empty(match: Match) -> bool:
        page = client.get(f"/r/{match.code}/")
        assert page.status_code == 200
        text = page.content.decode()
        start = text.index('id="room-config"')
        config = json.loads(text[text.index(">", start) + 1 : text.index("</script>", start)])
        return bool(config["undo_empty"])

    match = local(host, players=2, ruleset="classic")
    assert undo_empty(match)
    services.match_roll(match_id=match.pk, user=host, seq=current(match).seq, action_id="r1")
    assert not undo_empty(match)
    services.match_undo(match_id=match.pk, user=host)
    assert undo_empty(match)
    # The computer first: its turns are nothing a person can take back.
    bot_first = services.match_create(
        ruleset="classic", players=2, mode="local", host=host, bots={0: "easy"}, first=0
    )
    bot_first = run_bots(bot_first)
    assert current(bot_first).state().to_play == 2
    assert undo_empty(bot_first)


def test_undo_is_for_mistakes_not_for_fishing(host) -> None:
    """Roll, undo, roll again gives the same face: the withdrawn
    roll is replayed, the computer's rolls after an undone move too, and the dice proof
    still re-derives every roll once the seed is revealed."""
    match = local(host, players=2, bots={2: "easy"})
    n = 0
    while Roll.objects.filter(match=match, corner=0).count() < 3:
        match = run_bots(match)
        person_acts(match, host, n)
        n += 1
    match = run_bots(match)
    if match.state().phase != "roll":  # type: ignore[union-attr]
        person_acts(match, host, n)
        match = run_bots(match)
    faces = []
    for tries in range(6):
        match = current(match)
        services.match_roll(match_id=match.pk, user=host, seq=match.seq, action_id=f"fish{tries}")
        faces.append(Roll.objects.filter(match=match).order_by("-seq").first().face)
        services.match_undo(match_id=match.pk, user=host)
    assert len(set(faces)) == 1, faces
    # The bot's rolls after an undone move replay too: the same moves give the same game.
    match = run_bots(current(match))
    for k in range(20):
        person_acts(current(match), host, 1000 + k)
        match = run_bots(current(match))
        if match.status != Status.ACTIVE:
            break
    agrees(match)
    services.match_resign(match_id=match.pk, user=host)
    match = current(match)
    rolls = [(r.dice_number, r.face, r.bonus) for r in Roll.objects.filter(match=match)]
    assert not dice.verify(match.commitment, match.server_seed, match.client_seed, rolls)
    report = verify_match(match)
    assert report.ok and "dice verified" in report.line, report.line
    # A replayed roll's dice number is checked: another one is named.
    replayed = Roll.objects.filter(match=match, die__isnull=False).first()
    Roll.objects.filter(pk=replayed.pk).update(die=replayed.n)
    report = verify_match(current(match))
    assert not report.ok and "dice number" in report.line, report.line
