"""``manage.py evaluator_check``: the winning-chances evaluator fitted, calibrated and checked
against rollouts on bot games (no database)."""

from __future__ import annotations

import math
import random
import time
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from games.bots import BOTS, calibrate
from games.bots.analysis import analyse
from games.bots.chances import FALLBACK, FITTED, params_for
from games.engine import legal_moves, move, new_game, roll, rules_from_name


class Command(BaseCommand):
    help = (
        "Check the winning-chances evaluator (games.bots.chances) on bot games it was not "
        "fitted to: the log loss per table against even chances, a calibration table (bins "
        "of predicted chance against the share that won) and a rollout check on held-back "
        "positions. --fit refits the prices on other games and prints them for FITTED."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--games", type=int, default=600, help="checking games a table")
        parser.add_argument("--seed", type=int, default=2, help="seed of the checking games")
        parser.add_argument("--tables", default="", help="name:players,... (default: all)")
        parser.add_argument("--positions", type=int, default=20, help="rollout positions")
        parser.add_argument("--rollouts", type=int, default=100, help="games a position")
        parser.add_argument("--fit", action="store_true", help="refit and print FITTED")
        parser.add_argument("--fit-games", type=int, default=60)
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
        if options["timing"]:
            self._timing(options["seed"])
            return
        if options["fit"]:
            for name, players in tables:
                start = time.process_time()
                data = calibrate.samples(
                    name, players, options["fit_games"], options["fit_seed"], every=15
                )
                fitted = calibrate.fit(data, FITTED.get((name, players), FALLBACK), 40)
                FITTED[(name, players)] = fitted
                rounded = ", ".join(f"{v:.3f}" for v in fitted)
                self.stdout.write(
                    f'    ("{name}", {players}): Params({rounded}),  # {len(data)} positions, '
                    f"{time.process_time() - start:.0f} s"
                )
        pooled: list[calibrate.Sample] = []
        games = 0
        for name, players in tables:
            start = time.process_time()
            data = calibrate.samples(name, players, options["games"], options["seed"], every=8)
            games += options["games"]
            loss = calibrate.log_loss(data, params_for(data[0].state)) if data else 0.0
            even = sum(math.log(len(s.found)) for s in data) / max(1, len(data))
            self.stdout.write(
                f"{name}:{players}: {len(data)} positions of {options['games']} games, log loss "
                f"{loss:.3f} (even chances {even:.3f}), {time.process_time() - start:.0f} s CPU"
            )
            pooled += data
        self.stdout.write(
            f"\ncalibration: {len(pooled)} positions of {games} games (seed {options['seed']}, "
            "not the fitting games), every side of each"
        )
        self.stdout.write("  predicted      sides   mean predicted   won")
        for b in calibrate.calibration(pooled):
            if b.count:
                self.stdout.write(
                    f"  {b.low:4.0%}-{b.high:4.0%}  {b.count:>8}   {b.predicted / b.count:8.1%}"
                    f"       {b.won / b.count:6.1%}"
                )
        if options["positions"] > 0 and pooled:
            start = time.process_time()
            found = calibrate.rollouts(
                pooled, options["positions"], options["rollouts"], options["seed"]
            )
            error = sum(abs(p - w) for p, w in found) / len(found)
            self.stdout.write(
                f"\nrollouts: {len(found)} held-back positions, {options['rollouts']} games "
                f"each: mean |evaluator - rollouts| {error:.1%} "
                f"({time.process_time() - start:.0f} s CPU)"
            )
            for p, w in sorted(found):
                self.stdout.write(f"  evaluator {p:6.1%}  rollouts {w:6.1%}")

    def _timing(self, seed: int) -> None:
        """The analysis of one whole game of hard bots per table of four (duel: two)."""
        rng = random.Random(f"{seed}:timing")
        for name in ("classic", "family", "duel", "mensch", "party", "party+pairs+power"):
            rules = rules_from_name(name)
            players = rules.max_players
            start = new_game(rules, players, first=rules.seats_for(players)[0])
            state, actions, seq = start, [], 0
            while state.phase != "over":
                bot = BOTS["hard"]
                bonus = bot.choose_bonus(state, rng) if rules.power else ""
                face = bot.choose_face(state, rng) if bonus == "control" else rng.randint(1, 6)
                seq += 1
                actions.append(("roll", seq, face, bonus))
                state, _ = roll(state, face, bonus=bonus)
                if state.phase == "move" and legal_moves(state):
                    chosen, _ = bot.choose(state, rng)
                    seq += 1
                    actions.append(("move", seq, chosen, False))
                    state, _ = move(state, chosen)
            began = time.process_time()
            analyse(start, actions)
            spent = time.process_time() - began
            rolls = sum(1 for a in actions if a[0] == "roll")
            self.stdout.write(
                f"{name}:{players}: {rolls} rolls analysed in {spent:.2f} s CPU "
                f"({spent / rolls * 400:.2f} s per 400 rolls)"
            )
