"""python manage.py analyse_match CODE: make (or show) a finished match's report, the same
code the Celery task runs."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from games.match.errors import ServiceError
from games.match.selectors import match_by_code
from games.services.analysis import analyse_match


class Command(BaseCommand):
    help = "Analyse a finished match at once (dice luck and decisions per seat) and store it."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("code", help="the match's room code")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            match = match_by_code(options["code"])
            report = analyse_match(match.pk)
        except ServiceError as exc:
            raise CommandError(exc.message, returncode=2) from exc
        data = report.data
        self.stdout.write(
            f"{match.code}: {match.options.get('rules', match.ruleset)}, "
            f"{sum(s['rolls'] for s in data['seats'].values())} rolls, analysed in "
            f"{report.seconds:.2f} s CPU"
        )
        for corner, s in data["seats"].items():
            share = "-" if s["best_share"] is None else f"{s['best_share']:.0%}"
            self.stdout.write(
                f"  {s['colour']:<7} (corner {corner}): dice {s['luck']:+.1%}, sixes "
                f"{s['sixes']} of {s['expected_sixes']:.1f} expected "
                f"[{s['sixes_interval'][0]:.0f}-{s['sixes_interval'][1]:.0f}], longest wait "
                f"{s['longest_wait']}; best moves {share}, lost {s['lost']:.1%}"
            )
            for c in s["costliest"]:
                self.stdout.write(
                    f"    seq {c['seq']}: {c['played']}; better {c['better']} "
                    f"(-{c['lost']:.1%}): {c['why']}"
                )
