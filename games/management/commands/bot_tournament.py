"""``manage.py bot_tournament``: bots play each other on the engine alone (no database)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from games.bots.tournament import POLICIES, report, run
from games.engine import IllegalAction, rules_from_name


class Command(BaseCommand):
    help = (
        "Play bot against bot on the engine (no database) and print each side's win rate "
        "with a 95% interval, games per second and the time per move. Side A takes one seat, "
        "rotating every game; side B takes the others."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--ruleset",
            default="duel",
            help="a preset, with options joined by + (party+pairs+power)",
        )
        parser.add_argument("--a", default="expert", choices=sorted(POLICIES))
        parser.add_argument("--b", default="hard", choices=sorted(POLICIES))
        parser.add_argument("--games", type=int, default=200)
        parser.add_argument("--seed", type=int, default=1)
        parser.add_argument("--players", type=int, default=None, help="default: the fewest")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            rules = rules_from_name(options["ruleset"])
        except IllegalAction as exc:
            raise CommandError(str(exc)) from exc
        players = options["players"] or (4 if rules.pairs else rules.min_players)
        try:
            rules.seats_for(players)
        except ValueError as exc:
            raise CommandError(str(exc)) from exc
        if options["games"] < 1:
            raise CommandError("--games must be at least 1")
        result = run(rules, options["a"], options["b"], options["games"], options["seed"], players)
        self.stdout.write("\n".join(report(result)))
