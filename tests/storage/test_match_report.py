"""A finished match's report (issue 31): made once by the beat task or `analyse_match`, never
changed, and carried by the replay API as `report`."""

from __future__ import annotations

import pytest
from django.core.management import call_command
from django.test import Client

from games.management.commands.simulate_match import simulate
from games.models import MatchReport, Status
from games.services import analysis
from games.services.void import match_void
from games.tasks import analyse_finished


@pytest.mark.django_db
def test_the_replay_says_pending_then_carries_the_report_made_once(make_user) -> None:
    match = simulate(ruleset="duel", players=2, seed="report")
    assert match.status == Status.FINISHED
    client = Client()
    record = client.get(f"/api/matches/{match.code}/replay").json()
    assert record["report"] == {"state": "pending", "voided": False}

    assert analyse_finished() == 1
    assert analyse_finished() == 0  # nothing left: a report is made once
    stored = MatchReport.objects.get(match=match)
    record = client.get(f"/api/matches/{match.code}/replay").json()
    report = record["report"]
    assert report["state"] == "ready" and report["voided"] is False
    rolls = record["rolls"]
    seats = report["seats"]
    assert set(seats) == {"0", "2"}
    for corner, seat in seats.items():
        mine = [r for r in rolls if r["corner"] == int(corner) and r["bonus"] != "control"]
        assert seat["rolls"] == len(mine)
        assert seat["sixes"] == sum(1 for r in mine if r["face"] == 6)
        assert seat["expected_sixes"] == pytest.approx(len(mine) / 6, abs=0.01)
        for key in ("luck", "best_share", "lost", "costliest", "longest_wait"):
            assert key in seat
        for costly in seat["costliest"]:
            assert {"seq", "played", "better", "lost", "why"} <= set(costly)
            assert costly["seq"] in {m["seq"] for m in record["moves"]}
    assert report["chances"][-1]["chances"][report["placings"][0]] == 1.0

    # A voided match keeps the report made when it finished, and says it was voided.
    moderator = make_user("mod")
    match_void(match_id=match.pk, reason="test", actor=moderator)
    report = client.get(f"/api/matches/{match.code}/replay").json()["report"]
    assert report["voided"] is True and report["seats"] == seats
    assert MatchReport.objects.get(match=match).created_at == stored.created_at


@pytest.mark.django_db
def test_analyse_match_command_runs_the_same_service(capsys) -> None:
    match = simulate(ruleset="duel", players=2, seed="report-cmd")
    call_command("analyse_match", match.code)
    out = capsys.readouterr().out
    assert out.startswith(f"{match.code}: duel,")
    stored = MatchReport.objects.get(match=match)
    assert analysis.analyse_match(match.pk).pk == stored.pk
    assert analysis.pending(10) == []


@pytest.mark.django_db
def test_the_practice_hint_names_the_best_move_and_why(make_user) -> None:
    from games import services
    from games.engine import dumps, roll, rules_from_name, setup

    ann = make_user("ann")
    client = Client()
    client.force_login(ann)
    match = services.match_create(
        ruleset="classic", players=2, mode="practice", host=ann, bots={2: "easy"}, first=0
    )
    match.refresh_from_db()
    answer = client.get(f"/api/matches/{match.code}/hint")
    assert answer.status_code == 200 and answer.json()["move"] is None  # roll first
    # A position with a capture for Red's roll in hand (Yellow's progress 1 is Red's 27).
    state = setup(rules_from_name("classic"), {0: [24, 5, -1, -1], 2: [1, -1, -1, -1]}, 0)
    state, _ = roll(state, 3)
    match.snapshot = {**match.snapshot, "notation": dumps(state)}
    match.save(update_fields=["snapshot"])
    body = client.get(f"/api/matches/{match.code}/hint").json()
    assert body["move"] == {"corner": 0, "pawn": 0, "from": 24, "to": 27}
    assert body["why"].startswith("captures Yellow's pawn with pawn 1")
    other = Client()
    other.force_login(make_user("bob"))
    assert other.get(f"/api/matches/{match.code}/hint").json()["code"] == "not_your_turn"


@pytest.mark.django_db
def test_a_profile_sums_up_luck_and_decisions_for_every_reader(
    make_user,
) -> None:
    from games.match.reports import player_reports
    from games.models import Seat

    ann = make_user("ann")
    lucks = []
    for n in range(3):
        match = simulate(ruleset="duel", players=2, seed=f"profile-{n}")
        Seat.objects.filter(match=match, corner=0).update(user=ann, bot=None)
        data = analysis.analyse_match(match.pk).data["seats"]["0"]
        lucks.append(data["luck"])
    voided = simulate(ruleset="duel", players=2, seed="profile-void")
    Seat.objects.filter(match=voided, corner=0).update(user=ann, bot=None)
    analysis.analyse_match(voided.pk)
    match_void(match_id=voided.pk, reason="test", actor=make_user("mod"))

    summary = player_reports(ann)
    assert len(summary.matches) == 3  # the voided match is left out
    assert [r.luck for r in reversed(summary.matches)] == pytest.approx(lucks)
    assert summary.luck == pytest.approx(sum(lucks) / 3)
    assert summary.running == [
        (1, pytest.approx(lucks[0])),
        (2, pytest.approx((lucks[0] + lucks[1]) / 2)),
    ]
    assert summary.swing == pytest.approx(max(abs(x) for x in lucks))
    choices = sum(r.choices for r in summary.matches)
    assert choices > 0 and 0.0 <= summary.best_share <= 1.0

    others = Client().get(f"/players/{ann.username}/").content.decode()
    assert 'id="luck-report"' in others and "Luck evens out" in others
    # Each match's luck is public on its replay, so the list is too (tests/web/test_luck_public.py).
    assert 'id="luck-matches"' in others
    own = Client()
    own.force_login(ann)
    page = own.get(f"/players/{ann.username}/").content.decode()
    assert page.count('#match-report">') == 3
