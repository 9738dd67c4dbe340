"""``manage.py bot_tournament``: bots play each other on the engine alone (no database)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from games import bots
from games.bots.tournament import (
    POLICIES,
    TABLES,
    ladder,
    ladder_data,
    ladder_report,
    out_of_order,
    report,
    run,
    summary,
)
from games.engine import IllegalAction, rules_from_name

LADDER_FILE = Path(bots.__file__).with_name("ladder.json")


class Command(BaseCommand):
    help = (
        "Play bot against bot on the engine (no database) and print each side's win rate "
        "with a 95% interval, games per second and the time per move. Side A takes one seat, "
        "rotating every game; side B takes the others. --players 4 without --ruleset plays a "
        "table of every preset; --ladder measures every level against a random mover and "
        "stores the ladder the level picker shows."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--ruleset",
            default=None,
            help="a preset, with options joined by + (party+pairs+power); default: duel, or "
            "with --players 4 every four-player table: " + ", ".join(TABLES),
        )
        parser.add_argument("--a", default="expert", choices=sorted(POLICIES))
        parser.add_argument("--b", default="hard", choices=sorted(POLICIES))
        parser.add_argument("--games", type=int, default=200, help="games a table (or a level)")
        parser.add_argument("--seed", type=int, default=1)
        parser.add_argument("--players", type=int, default=None, help="default: the fewest")
        parser.add_argument(
            "--jobs",
            type=int,
            default=1,
            help="play the games in this many processes (the same games and figures; the "
            "times per move are CPU times, so they stay comparable while the cores are free)",
        )
        parser.add_argument(
            "--ladder",
            action="store_true",
            help="every level of games.bots.BOTS against a random mover in duel; stores the "
            "result for the level picker",
        )
        parser.add_argument(
            "--ladder-file", default=str(LADDER_FILE), help="where --ladder stores the ladder"
        )
        parser.add_argument(
            "--levels",
            default="",
            help="with --ladder: measure only these levels (comma-separated) after a policy "
            "changed, keeping the stored rows of the others (same --games and --seed)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        if options["games"] < 1:
            raise CommandError("--games must be at least 1")
        if options["jobs"] < 1:
            raise CommandError("--jobs must be at least 1")
        if options["ladder"]:
            self._ladder(options)
            return
        names = [options["ruleset"]] if options["ruleset"] else None
        if names is None:
            names = list(TABLES) if options["players"] == 4 else ["duel"]
        results = []
        for name in names:
            try:
                rules = rules_from_name(name)
            except IllegalAction as exc:
                raise CommandError(str(exc)) from exc
            players = options["players"] or (4 if rules.pairs else rules.min_players)
            try:
                rules.seats_for(players)
            except ValueError as exc:
                raise CommandError(str(exc)) from exc
            result = run(
                rules,
                options["a"],
                options["b"],
                options["games"],
                options["seed"],
                players,
                options["jobs"],
            )
            results.append(result)
            self.stdout.write("\n".join(report(result)))
        if len(results) > 1:
            self.stdout.write(f"summary, seed {options['seed']}:")
            self.stdout.write("\n".join(summary(results)))

    def _ladder(self, options: dict[str, Any]) -> None:
        games, seed = options["games"], options["seed"]
        path = Path(options["ladder_file"])
        only = [name for name in options["levels"].split(",") if name]
        unknown = sorted(set(only) - set(bots.BOTS))
        if unknown:
            raise CommandError(f"no such level: {', '.join(unknown)}")
        kept: dict[str, Any] = {}
        if only:
            try:
                old = json.loads(path.read_text())
            except (OSError, ValueError) as exc:
                raise CommandError(f"--levels needs a stored ladder in {path}: {exc}") from exc
            if old.get("seed") != seed or {r["games"] for r in old["levels"]} != {games}:
                raise CommandError(
                    f"the stored ladder was measured with --games "
                    f"{old['levels'][0]['games']} --seed {old.get('seed')}: use the same"
                )
            kept = {row["level"]: row for row in old["levels"]}
        measured = {r.a: r for r in ladder(games, seed, only or None, options["jobs"])}
        data = ladder_data([measured[name] for name in measured], seed)
        rows = {row["level"]: row for row in data["levels"]}  # type: ignore[attr-defined]
        missing = [name for name in bots.BOTS if name not in rows and name not in kept]
        if missing:
            raise CommandError(f"no stored row for {', '.join(missing)}: measure every level")
        data["levels"] = [rows.get(name) or kept[name] for name in bots.BOTS]
        self.stdout.write("\n".join(ladder_report(data)))
        path.write_text(json.dumps(data, indent=2) + "\n")
        self.stdout.write(f"stored in {path}")
        wrong = out_of_order(data)
        if wrong:
            raise CommandError(
                "the levels are not in increasing strength; reorder games.bots.BOTS or change "
                "a policy: " + "; ".join(wrong)
            )
