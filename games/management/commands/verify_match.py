"""python manage.py verify_match CODE: replay a stored match through the engine, re-derive its
rolls from the revealed seed and check its audit entries. Exit 0 with a one-line summary, or 1
naming the first row that does not agree."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from games.match.errors import ServiceError
from games.match.selectors import match_by_code
from games.match.verify import verify_match


class Command(BaseCommand):
    help = "Replay and check a stored match; exit 1 naming the first row that does not agree."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("code", help="the match's room code")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            match = match_by_code(options["code"])
        except ServiceError as exc:
            raise CommandError(exc.message, returncode=2) from exc
        report = verify_match(match)
        if not report.ok:
            raise CommandError(report.line, returncode=1)
        self.stdout.write(report.line)
