"""``manage.py evaluator_check``: the winning-chances evaluator fitted, calibrated and checked
against rollouts on bot games (no database)."""

from __future__ import annotations

import dataclasses
import json
import math
import multiprocessing
import random
import time
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from games.bots import calibrate
from games.bots.analysis import analyse
from games.engine import rules_from_name


class Command(BaseCommand):
    help = (
        "Check the winning-chances evaluator (games.bots.chances) on bot games it was not "
        "fitted to: the log loss per table against even chances, a calibration table (bins "
        "of predicted chance against the share that won) and a rollout check on held-back "
        "positions. --fit refits the prices on other games (seed 1) and prints them for FITTED."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--games", type=int, default=600, help="checking games a table")
        parser.add_argument("--seed", type=int, default=2, help="seed of the checking games")
        parser.add_argument("--tables", default="", help="name:players,... (default: all)")
        parser.add_argument("--positions", type=int, default=20, help="rollout positions")
        parser.add_argument("--rollouts", type=int, default=100, help="games a position")
        parser.add_argument(
            "--fit", action="store_true", help="only refit on other games and print FITTED"
        )
        parser.add_argument("--fit-iterations", type=int, default=60)
        parser.add_argument(
            "--agreement",
            type=int,
            default=0,
            metavar="GAMES",
            help="only count how often the evaluator's best move is the Expert's, in GAMES "
            "games a table",
        )
        parser.add_argument(
            "--luck",
            type=int,
            default=0,
            metavar="GAMES",
            help="only check that dice luck averages zero for every seat and level, and that "
            "a seat's chance is its luck, decisions, the other seats' turns and the rest, in "
            "GAMES games of each preset (--tables to choose; default each preset's largest table)",
        )
        parser.add_argument("--fit-games", type=int, default=60)
        parser.add_argument("--jobs", type=int, default=1, help="tables checked at once")
        parser.add_argument("--save", default="", help="also write the checks to this JSON file")
        parser.add_argument(
            "--load", default="", help="print the checks of --save files (comma-separated)"
        )
        parser.add_argument(
            "--mix",
            type=lambda v: v.split("+"),
            default=list(calibrate.MIX),
            help="the checking games' bots, a level at random per seat (hard+medium+greedy)",
        )
        parser.add_argument("--fit-seed", type=int, default=1)
        parser.add_argument(
            "--timing",
            action="store_true",
            help="only time the report of one bot game of each preset (CPU seconds)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        if options["games"] < 1:
            raise CommandError("--games must be at least 1")
        tables = calibrate.tables()
        if options["tables"]:
            try:
                tables = [
                    (t.split(":")[0], int(t.split(":")[1])) for t in options["tables"].split(",")
                ]
            except (IndexError, ValueError) as error:
                raise CommandError("--tables takes name:players,name:players") from error
        if options["load"]:
            loaded = []
            for name in options["load"].split(","):
                with open(name) as found:
                    for c in json.load(found):
                        c["bins"] = [calibrate.Bin(**b) for b in c["bins"]]
                        c["rollouts"] = [tuple(r) for r in c["rollouts"]]
                        loaded.append(calibrate.TableCheck(**c))
                        self._table_line(loaded[-1])
            self._print(loaded, options)
            return
        if options["timing"]:
            self._timing(options["seed"])
            return
        if options["fit"]:
            self._fit(tables, options)
            return
        if options["agreement"]:
            self._agreement(tables, options)
            return
        if options["luck"]:
            if not options["tables"]:
                tables = [(name, rules_from_name(name).max_players) for name in calibrate.PRESETS]
            self._luck(tables, options)
            return
        checks = self._checks(tables, options)
        if options["save"]:
            with open(options["save"], "w") as out:
                json.dump([dataclasses.asdict(c) for c in checks], out)
        self._print(checks, options)

    def _print(self, checks: list[calibrate.TableCheck], options: dict[str, Any]) -> None:
        games = sum(c.games for c in checks)
        positions = sum(c.positions for c in checks)
        self.stdout.write(
            f"\ncalibration: {positions} positions of {games} games (seed {options['seed']}, "
            f"not the fitting games; bots {'+'.join(options['mix'])}), every side of each"
        )
        by_size = {n: [c for c in checks if c.players == n] for n in (2, 3, 4)}
        by_preset: dict[str, list[calibrate.TableCheck]] = {}
        for c in checks:
            by_preset.setdefault(c.table, []).append(c)
        self._bins("all tables", calibrate.merged(checks))
        for n, group in by_size.items():
            if group:
                self._bins(f"{n} players", calibrate.merged(group))
        for name, group in by_preset.items():
            self._bins(name, calibrate.merged(group))
        for c in checks:
            self._bins(f"{c.table}:{c.players}", c.bins)
        rolled = [r for c in checks for r in c.rollouts]
        if rolled:
            self.stdout.write(
                f"\nrollouts: held-back positions, {options['rollouts']} games played on from "
                "each by the same bots; the side to play's chance"
            )
            self.stdout.write(
                "  table                 positions  mean |evaluator - rollouts|  noise"
            )
            for c in checks:
                if c.rollouts:
                    self._rollout_line(f"{c.table}:{c.players}", c.rollouts, c.rollout_games)
            self._rollout_line("all tables", rolled, checks[0].rollout_games)
            self.stdout.write("  evaluator  rollouts  (every position, by the evaluator)")
            for p, w in sorted(rolled):
                self.stdout.write(f"  {p:8.1%}  {w:8.1%}")

    def _fit(self, tables: list[tuple[str, int]], options: dict[str, Any]) -> None:
        """Refit every table on its own games (not the checking ones) and print the lines of
        `FITTED`: paste them into games/bots/chances.py, then run the check."""
        args = [
            (name, players, options["fit_games"], options["fit_seed"], options["fit_iterations"])
            for name, players in tables
        ]
        for name, players, fitted, positions, seconds in self._map(
            calibrate.fit_table, args, options["jobs"]
        ):
            rounded = ", ".join(f"{v:.3f}" for v in fitted)
            self.stdout.write(
                f'    ("{name}", {players}): Params({rounded}),  # {positions} positions, '
                f"{seconds:.0f} s"
            )
            self.stdout.flush()

    def _agreement(self, tables: list[tuple[str, int]], options: dict[str, Any]) -> None:
        """How often the evaluator's best move is the Expert's (the dispute desk's agreement)."""
        args = [(name, players, options["agreement"], options["seed"]) for name, players in tables]
        seen = agreed = 0
        for name, players, n, same in self._map(calibrate.agreement, args, options["jobs"]):
            seen, agreed = seen + n, agreed + same
            self.stdout.write(f"{name}:{players}: {same} of {n} choices agree ({same / n:.1%})")
            self.stdout.flush()
        self.stdout.write(f"all tables: {agreed} of {seen} ({agreed / max(1, seen):.1%})")

    def _luck(self, tables: list[tuple[str, int]], options: dict[str, Any]) -> None:
        """Dice luck per seat and level (mean and 95% interval of a game's luck, in points of
        chance), and every seat's chance over a game taken apart, table by table."""
        args = [(name, players, options["luck"], options["seed"]) for name, players in tables]
        self.stdout.write(
            f"dice luck: a seat's luck over a whole game, mean and 95% interval, in points of "
            f"chance (seed {options['seed']}; levels {', '.join(calibrate.LUCK_LEVELS)} at "
            "random per seat)"
        )

        def cell(values: list[float]) -> str:
            mean, half = calibrate.mean_interval(values)
            return f"{mean * 100:+5.1f} ± {half * 100:4.1f} ({len(values)})"

        for c in self._map(calibrate.luck_check, args, options["jobs"]):
            seats = "  ".join(f"seat {k}: {cell(v)}" for k, v in c.by_seat.items())
            levels = "  ".join(f"{k}: {cell(v)}" for k, v in c.by_level.items() if v)
            every = [x for v in c.by_seat.values() for x in v]
            n = len(every)
            self.stdout.write(
                f"\n{c.table}:{c.players}, {c.games} games, {c.rolls} rolls, "
                f"{c.seconds:.0f} s CPU\n  every seat: {cell(every)}\n  {seats}\n  {levels}"
                f"\n  a seat's chance over a game, on average: change {c.change / n * 100:+.1f} = "
                f"luck {c.luck / n * 100:+.1f} - decisions {c.lost / n * 100:.1f} + the other "
                f"seats' turns {c.others / n * 100:+.1f} + the rest of its own turns "
                f"{c.own / n * 100:+.1f} (largest gap of a seat's sum: {c.worst_identity:.4f})"
            )
            self.stdout.flush()

    def _map(self, function: Any, args: list[Any], jobs: int) -> Any:
        """`function` over `args`, in order, in `jobs` processes (one: here)."""
        if jobs <= 1:
            yield from map(function, args)
            return
        context = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(jobs, mp_context=context) as pool:
            yield from pool.map(function, args)

    def _checks(
        self, tables: list[tuple[str, int]], options: dict[str, Any]
    ) -> list[calibrate.TableCheck]:
        args = [
            (
                name,
                players,
                options["games"],
                options["seed"],
                options["positions"],
                options["rollouts"],
                tuple(options["mix"]),
            )
            for name, players in tables
        ]
        out: list[calibrate.TableCheck] = []
        for c in self._map(calibrate.check_star, args, options["jobs"]):
            self._table_line(c)
            out.append(c)
        return out

    def _table_line(self, c: calibrate.TableCheck) -> None:
        self.stdout.write(
            f"{c.table}:{c.players}: {c.positions} positions of {c.games} games, log loss "
            f"{c.loss:.3f} (even chances {c.even:.3f}), off by {calibrate.mean_gap(c.bins):.1%} "
            f"on average, worst bin {calibrate.worst_gap(c.bins):.1%}, {c.seconds:.0f} s CPU",
        )
        self.stdout.flush()

    def _bins(self, title: str, bins: list[calibrate.Bin]) -> None:
        gap, mean = calibrate.worst_gap(bins), calibrate.mean_gap(bins)
        self.stdout.write(
            f"\n  {title}: off by {mean:.1%} on average, the worst bin of 200+ sides {gap:.1%}"
        )
        self.stdout.write("    predicted      sides   mean predicted     won")
        for b in bins:
            if b.count:
                self.stdout.write(
                    f"    {b.low:4.0%}-{b.high:4.0%}  {b.count:>8}   {b.predicted / b.count:8.1%}"
                    f"       {b.won / b.count:6.1%}"
                )

    def _rollout_line(self, title: str, found: list[tuple[float, float]], games: int) -> None:
        error = sum(abs(p - w) for p, w in found) / len(found)
        # What the rollouts' own sampling gives on average (|N(0, p(1-p)/games)|).
        noise = sum(math.sqrt(2 / math.pi * p * (1 - p) / games) for p, _ in found) / len(found)
        self.stdout.write(f"  {title:<22}{len(found):>9}  {error:24.1%}  {noise:8.1%}")

    def _timing(self, seed: int) -> None:
        """The analysis of one whole game of hard bots per table of four (duel: two)."""
        rng = random.Random(f"{seed}:timing")
        presets = ("classic", "family", "duel", "mensch", "quick", "party")
        for name in (*presets, "party+power", "party+pairs", "party+pairs+power"):
            rules = rules_from_name(name)
            players = rules.max_players
            start, actions = calibrate.recorded(rules, players, lambda _c: "hard", rng)
            began = time.process_time()
            analyse(start, actions)
            spent = time.process_time() - began
            rolls = sum(1 for a in actions if a[0] == "roll")
            self.stdout.write(
                f"{name}:{players}: {rolls} rolls analysed in {spent:.2f} s CPU "
                f"({spent / rolls * 400:.2f} s per 400 rolls)"
            )
