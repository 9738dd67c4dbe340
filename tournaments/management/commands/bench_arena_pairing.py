"""``manage.py bench_arena_pairing [--players 1000] [--queue duel]``: how long an arena takes
to pair a crowd whose games have just ended. Makes the players, their entries and an arena
inside one transaction, then times (1) reading the free players and the pure pairing
(`tournaments.services.arena_tables`), (2) the tick beat runs every second: choosing the
tables and opening all their ranked matches through the match services (one batch,
`games.services.ranked_matches_create`), with its query count, and (3) the standings page
and its JSON at that size (time, queries); then rolls everything back (nothing is kept).
Prints the figures with the load average (timings on a shared machine are noisy)."""

from __future__ import annotations

import os
import random
import time
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandParser
from django.db import connection, transaction
from django.test import Client
from django.test.utils import CaptureQueriesContext

from audit.clock import db_now
from games import services as match_services
from tournaments import services
from tournaments.models import Game, Player


class _Rollback(Exception):
    pass


class Command(BaseCommand):
    help = "Time the pairing of an arena's players whose games just ended (rolled back)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--players", type=int, default=1000)
        parser.add_argument("--queue", default="duel", choices=["duel", "classic-2", "classic-4"])
        parser.add_argument("--seed", type=int, default=1)

    def handle(self, *args: Any, **options: Any) -> None:
        n, queue = int(options["players"]), str(options["queue"])
        rng = random.Random(int(options["seed"]))
        try:
            with transaction.atomic():
                self._run(n, queue, rng)
                raise _Rollback
        except _Rollback:
            pass

    def _run(self, n: int, queue: str, rng: random.Random) -> None:
        User = get_user_model()
        tag = f"bench{rng.randrange(10**9)}"
        users = User.objects.bulk_create(
            [User(username=f"{tag}-{i}", password="!") for i in range(n)]
        )
        if connection.vendor == "sqlite":
            users = list(User.objects.filter(username__startswith=f"{tag}-").order_by("pk"))
        t = services.create(
            name="Bench arena",
            kind="arena",
            queue=queue,
            starts_at=db_now() - timedelta(seconds=1),
            minutes=60,
        )
        Player.objects.bulk_create(
            [
                Player(
                    tournament=t,
                    user=u,
                    rating=rng.uniform(-5, 30),
                    score=rng.randrange(30),
                    last_table=[u.pk, users[(i + 1) % n].pk],
                )
                for i, u in enumerate(users)
            ]
        )
        load = os.getloadavg()
        start = time.perf_counter()
        tables = services.arena_tables(t)
        pure = time.perf_counter() - start
        with CaptureQueriesContext(connection) as queries:
            start, cpu = time.perf_counter(), time.process_time()
            opened = services.tick()  # as beat's tick pairs them: all tables, then opened
            ticked, cpu = time.perf_counter() - start, time.process_time() - cpu
        seated = sum(len(g.users) for g in Game.objects.filter(tournament=t))
        self.stdout.write(
            f"arena of {n} players ({queue}), all free: read and pure pairing "
            f"{pure * 1000:.1f} ms ({len(tables)} tables); the tick that pairs them and opens "
            f"{opened} ranked matches through the match services {ticked:.3f} s "
            f"({cpu:.3f} s of this process's CPU) in {len(queries)} queries "
            f"({seated} players seated); {connection.vendor}; "
            f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}"
        )
        self._pages(t, users[0])
        self._game_end(t)

    def _game_end(self, t: Any) -> None:
        """One game of the arena ends: its count and the standings published again (what
        every game's end costs at this size)."""
        game = Game.objects.filter(tournament=t).first()
        if game is None:
            return
        for loser in get_user_model().objects.filter(pk__in=game.users[1:]):
            match_services.match_resign(match_id=game.match_id, user=loser)
        with CaptureQueriesContext(connection) as queries:
            start = time.perf_counter()
            services.game_ended(game.match_id)
            took = time.perf_counter() - start
        self.stdout.write(
            f"a game's end counted and the standings of {t.players.count()} published: "
            f"{took * 1000:.0f} ms, {len(queries)} queries; load average "
            f"{os.getloadavg()[0]:.2f}"
        )

    def _pages(self, t: Any, user: Any) -> None:
        """The standings page, its JSON and one game's end (the standings published again)
        at this size: time and queries, the first request warming up."""
        client = Client(SERVER_NAME=(settings.ALLOWED_HOSTS or ["localhost"])[0].lstrip("."))
        client.force_login(user)
        for label, url, headers in (
            ("standings page", f"/tournaments/{t.code}/", {}),
            ("standings JSON", f"/tournaments/{t.code}/standings.json", {}),
        ):
            client.get(url, headers=headers)
            with CaptureQueriesContext(connection) as queries:
                start = time.perf_counter()
                response = client.get(url, headers=headers)
                took = time.perf_counter() - start
            self.stdout.write(
                f"{label} at {t.players.count()} players: HTTP {response.status_code}, "
                f"{took * 1000:.0f} ms, {len(queries)} queries; load average "
                f"{os.getloadavg()[0]:.2f}"
            )
