"""python manage.py simulate_match --ruleset NAME --players N [--seed S]: play a whole practice
match of bot seats through the services; the room code is printed on the last line."""

from __future__ import annotations

import hashlib
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from games import services
from games.engine import RULESETS
from games.match.errors import ServiceError
from games.models import Match, Status

MAX_STEPS = 100_000


def simulate(
    *, ruleset: str, players: int, seed: str | None = None, level: str = "medium"
) -> Match:
    """Create a practice match of bots and let them play it to its end through `bot_act`.

    `ruleset` may carry party options as in the notation: ``party+pairs+power``.
    """
    name, *opts = ruleset.split("+")
    if name not in RULESETS:
        raise ServiceError("bad_request", f"There is no rule set {name!r}")
    try:
        corners = RULESETS[name].with_options(**{o: True for o in opts}).seats_for(players)
    except (ValueError, TypeError) as exc:
        raise ServiceError("bad_request", str(exc)) from exc
    server_seed = hashlib.sha256(f"simulate:{seed}".encode()).hexdigest() if seed else None
    match = services.match_create(
        ruleset=name,
        players=players,
        mode="practice",
        house_rules=[o for o in opts if o in services.HOUSE_RULES],
        options=[o for o in opts if o not in services.HOUSE_RULES],
        bots={c: level for c in corners},
        server_seed=server_seed,
    )
    match.refresh_from_db()
    turn_seq, seq, status = match.turn_seq, match.seq, match.status
    for _ in range(MAX_STEPS):
        if status != Status.ACTIVE:
            match.refresh_from_db()
            return match
        result = services.bot_act(match_id=match.pk, turn_seq=turn_seq, seq=seq)
        if result is None:
            match.refresh_from_db()
            turn_seq, seq, status = match.turn_seq, match.seq, match.status
            continue
        turn_seq, seq = result.snapshot["turn"], result.seq
        status = Status.ACTIVE if result.snapshot["status"] == "active" else Status.FINISHED
    raise RuntimeError(f"match {match.code} did not end after {MAX_STEPS} steps")


class Command(BaseCommand):
    help = "Play a whole practice match of bots through the services; print its room code last."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--ruleset",
            required=True,
            help="classic, family, duel, mensch, quick, "
            "party (options joined with +, e.g. party+pairs+power)",
        )
        parser.add_argument("--players", type=int, required=True)
        parser.add_argument("--seed", default=None, help="makes the match reproducible")
        parser.add_argument("--level", default="medium", choices=services.BOT_LEVELS)

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            match = simulate(
                ruleset=options["ruleset"],
                players=options["players"],
                seed=options["seed"],
                level=options["level"],
            )
        except ServiceError as exc:
            raise CommandError(exc.message) from exc
        match.refresh_from_db()
        state = match.state()
        placings = state.placings if state is not None else ()
        colours = match.rules.colours
        self.stdout.write(
            f"{match.options['rules']}, {match.players} bots: {match.snapshot.get('rolls')} rolls, "
            f"seq {match.seq}; placings {' '.join(colours[c] for c in placings)}"
        )
        self.stdout.write(match.code)
