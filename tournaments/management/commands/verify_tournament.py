"""``manage.py verify_tournament CODE``: recompute an event's standings from its stored games
and their dice proofs, compare them with the published ones; exit status 1 on a mismatch."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from tournaments.models import Player, Tournament
from tournaments.verify import verify_tournament


class Command(BaseCommand):
    help = "Recompute a tournament's standings from its stored games and compare."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("code")

    def handle(self, *args: Any, **options: Any) -> None:
        code = str(options["code"]).strip().upper()
        t = Tournament.objects.filter(code=code).first()
        if t is None:
            raise CommandError(f"no tournament {code}")
        report = verify_tournament(t)
        for line in report.problems:
            self.stderr.write(line)
        if not report.ok:
            raise CommandError(report.line)
        names = dict(Player.objects.filter(tournament=t).values_list("user_id", "user__username"))
        for row in report.rows:
            self.stdout.write(
                f"#{row.rank} {names.get(row.user, row.user)}: {row.score} points, "
                f"{row.games} games, {row.wins} won, Buchholz {row.buchholz}"
            )
        self.stdout.write(report.line)
