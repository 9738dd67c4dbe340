"""Recomputing a tournament's standings from its stored games and their proofs, and comparing
them with what was published (`manage.py verify_tournament CODE` and the event's verify
page).

For every game: its match is checked by `games.match.verify.verify_match` (the event
stream, the dice re-derived from the revealed seeds, the replay through the engine, the
seats' places, the audit entries); it must be a ranked match without bots, seating exactly
the game's players; its result comes from the verified places (none if the match is void).
The standings are computed again from those results (`tournaments.pairing.standings`) and
every published row (score, games, wins, streak, byes, Buchholz, rank) must equal them.

The page serves `verified`: the report made once per change of the event (its games, their
matches' revisions, the published rows), kept in the cache, so an anonymous visitor cannot
make the server re-verify every game on each request; the command recomputes every time.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

from django.core.cache import cache
from django.db import connection

from games.match.verify import verify_match
from games.models import Mode, Status

from . import pairing, services
from .models import Game, Player, Tournament


@dataclass
class Report:
    code: str
    ok: bool = True
    games: int = 0
    matches_ok: int = 0
    problems: list[str] = field(default_factory=list)
    rows: list[pairing.Row] = field(default_factory=list)

    def fail(self, line: str) -> None:
        self.ok = False
        self.problems.append(line)

    @property
    def line(self) -> str:
        if self.ok:
            return (
                f"tournament {self.code} ok: {self.games} games ({self.matches_ok} matches "
                f"verified), standings of {len(self.rows)} players recomputed and equal"
            )
        return f"tournament {self.code} FAILED: {self.problems[0]}"


def _derived(game: Game, report: Report) -> pairing.Game | None:
    """The game's result as its stored match proves it (None when it is still playing)."""
    if game.status == Game.Status.BYE:
        if game.match_id is not None or len(game.users) != 1:
            report.fail(f"game {game.pk}: a bye has one player and no match")
        return pairing.Game(users=tuple(int(u) for u in game.users), places=None, bye=True)
    match = game.match
    if match is None:
        report.fail(f"game {game.pk}: no match stored")
        return None
    checked = verify_match(match)
    if not checked.ok:
        report.fail(f"game {game.pk}: {checked.line}")
        return None
    report.matches_ok += 1
    seats = list(match.seats.all())
    if match.mode != Mode.RANKED or any(s.bot for s in seats):
        report.fail(f"game {game.pk}: match {match.code} is not a ranked match of people")
    seated = sorted(s.user_id for s in seats if s.user_id is not None)
    if seated != sorted(int(u) for u in game.users):
        report.fail(f"game {game.pk}: match {match.code} seats {seated}, the game {game.users}")
    if match.status in (Status.WAITING, Status.ACTIVE):
        if game.status != Game.Status.PLAYING:
            report.fail(f"game {game.pk}: stored {game.status} but match {match.code} is playing")
        return None
    counts = match.status == Status.FINISHED
    places = {s.user_id: int(s.place) for s in seats if s.user_id and s.place} if counts else None
    want = Game.Status.DONE if counts else Game.Status.VOID
    if game.status != want:
        report.fail(f"game {game.pk}: stored {game.status}, match {match.code} says {want}")
    stored = (
        {int(u): int(p) for u, p in game.places.items()}
        if counts and game.places is not None
        else None
    )
    if counts and stored != places:
        report.fail(f"game {game.pk}: stored places {stored}, match {match.code} gives {places}")
    return pairing.Game(users=tuple(int(u) for u in game.users), places=places, round=game.round)


def verify_tournament(t: Tournament) -> Report:
    report = Report(t.code)
    games = []
    for game in (
        Game.objects.filter(tournament=t)
        .select_related("match")
        .prefetch_related("match__seats")
        .order_by("ended_at", "pk")
    ):
        report.games += 1
        derived = _derived(game, report)
        if derived is not None:
            games.append(derived)
    report.rows = services.compute(t, games)
    published = {p.user_id: p for p in Player.objects.filter(tournament=t)}
    for row in report.rows:
        player = published.get(row.user)
        if player is None:
            report.fail(f"user {row.user} played but has no standings row")
            continue
        want = row.as_dict()
        for name in services.PUBLISHED:
            if getattr(player, name) != want[name]:
                report.fail(
                    f"player row {player.pk} (user {row.user}): published {name} "
                    f"{getattr(player, name)}, recomputed {want[name]}"
                )
    return report


VERIFIED_FOR = 7 * 24 * 3600  # seconds a report is kept; a change makes a new one at once


def fingerprint(t: Tournament) -> str:
    """What the report depends on, in one cheap read: every game (status, places, its match's
    status and revision) and every published row. Any change to the event changes it."""
    games = list(
        Game.objects.filter(tournament=t)
        .order_by("pk")
        .values_list(
            "pk", "status", "places", "users", "match_id", "match__status", "match__revision"
        )
    )
    rows = list(
        Player.objects.filter(tournament=t)
        .order_by("user_id")
        .values_list("user_id", *services.PUBLISHED)
    )
    seen = repr((connection.settings_dict["NAME"], t.pk, t.code, t.state, games, rows))
    return hashlib.sha256(seen.encode()).hexdigest()


def verified(t: Tournament) -> Report:
    """The event's report as of its last change: made once per change, then served from the
    cache."""
    key = f"tournament-verify:{t.pk}:{fingerprint(t)}"
    report = cache.get(key)
    if not isinstance(report, Report):
        report = verify_tournament(t)
        cache.set(key, report, VERIFIED_FOR)
    return report
