"""Bot seats play the bot policies through the services: Power bonuses too, and a reason in
words whenever they had a choice of moves."""

from __future__ import annotations

from typing import Any

from games import services
from games.match.verify import verify_match
from games.models import Match, MatchEvent, Roll, Status


def play_out(match: Match, limit: int = 5000) -> Match:
    for _ in range(limit):
        match.refresh_from_db()
        if match.status != Status.ACTIVE:
            break
        services.bot_act(match_id=match.pk, turn_seq=match.turn_seq)
    match.refresh_from_db()
    return match


def test_bots_use_power_bonuses_and_say_why(db: Any) -> None:
    match = services.match_create(
        ruleset="party",
        players=4,
        mode="practice",
        options=["power"],
        bots={0: "hard", 1: "expert", 2: "medium", 3: "hard"},
        server_seed="7" * 64,
    )
    match = play_out(match)
    assert match.status == Status.FINISHED
    bonuses = set(
        Roll.objects.filter(match=match).exclude(bonus="").values_list("bonus", flat=True)
    )
    assert bonuses, "no bot spent a Power bonus in a whole game"
    said = MatchEvent.objects.filter(match=match, kind="bot_said")
    assert said.exists()
    assert all(e.data["text"] and e.data["corner"] in (0, 1, 2, 3) for e in said)
    report = verify_match(match)
    assert report.ok, report


def test_each_reason_comes_right_before_its_move(db: Any) -> None:
    match = services.match_create(
        ruleset="duel",
        players=2,
        mode="practice",
        bots={0: "easy", 2: "easy"},
        server_seed="5" * 64,
    )
    match = play_out(match)
    events = list(MatchEvent.objects.filter(match=match).order_by("seq"))
    said = [(e, events[i + 1]) for i, e in enumerate(events) if e.kind == "bot_said"]
    assert said
    for reason, move in said:
        assert move.kind in ("moved", "released") and move.data["corner"] == reason.data["corner"]
    # The bot spoke only when it had a choice: some moves (a lone legal one) come without.
    bot_moves = [e for e in events if e.kind in ("moved", "released")]
    assert len(said) < len(bot_moves)
