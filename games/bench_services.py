"""Figures for the storage layer, measured through the services on the configured database.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/ludo python games/bench_services.py

Creates a throwaway database (``<name>_bench_services``), plays four-player classic matches
in local mode through `match_roll` / `match_move` (each its own committed transaction, as in
production), and prints:
- rows and statements written per move and per roll;
- median and p99 time of a roll+move (a roll that leaves a move, then that move);
- the time to replay and to verify (`games.match.verify`) the longest of the matches.
Not a test: the machine's load shows in the numbers; run it on a quiet machine.
"""

from __future__ import annotations

import sys
from pathlib import Path

# Run as a script, this file's folder (games/) comes first on sys.path, where a module named
# like one of the standard library's (there was a games/selectors.py) would shadow it: look
# from the repository root instead.
_HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE]

import argparse  # noqa: E402
import os  # noqa: E402
import statistics  # noqa: E402
import time  # noqa: E402
from collections import Counter  # noqa: E402
from collections.abc import Callable  # noqa: E402
from typing import Any  # noqa: E402


def _setup_django() -> None:
    root = Path(__file__).resolve().parent.parent
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ludo_site.settings")
    # Rolls follow each other at once: no pause after a roll no pawn could use.
    os.environ.setdefault("LUDO_PASS_PAUSE", "0")
    import django  # after sys.path and the settings module are set, just above

    django.setup()


class Writes:
    """Counts statements and rows written while it is installed as an execute wrapper."""

    def __init__(self) -> None:
        self.statements: Counter[str] = Counter()
        self.rows: Counter[str] = Counter()
        self.reads = 0

    def __call__(
        self, execute: Callable[..., Any], sql: str, params: Any, many: bool, context: dict
    ) -> Any:
        result = execute(sql, params, many, context)
        verb = sql.lstrip().split(None, 1)[0].upper()
        if verb == "SELECT":
            self.reads += 1
        elif verb in ("INSERT", "UPDATE", "DELETE"):
            table = sql.split('"')[1] if '"' in sql else "?"
            self.statements[f"{verb} {table}"] += 1
            self.rows[f"{verb} {table}"] += max(context["cursor"].rowcount, 0)
        return result


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--matches", type=int, default=6, help="4-player classic matches to play")
    args = parser.parse_args(argv)
    _setup_django()
    # Django's and the site's modules are imported only now, once django.setup() has run.
    import random

    from django.conf import settings
    from django.db import connection
    from django.test.utils import setup_databases, teardown_databases

    base = settings.DATABASES["default"]
    base.setdefault("TEST", {})["NAME"] = f"{Path(str(base['NAME'])).stem}_bench_services"
    config = setup_databases(verbosity=0, interactive=False)
    try:
        # The site's modules, now that the test database exists.
        from accounts.models import User
        from games import services
        from games.match.replay import replay_snapshot
        from games.match.verify import verify_match
        from games.models import Match, Move, Roll

        host = User.objects.create_user("bench-host")
        rng = random.Random(1)
        pairs: list[float] = []
        pair_cpu: list[float] = []
        roll_times: list[float] = []
        move_times: list[float] = []
        move_writes, roll_writes = Writes(), Writes()
        moves = rolls = 0
        longest: Match | None = None
        for _ in range(args.matches):
            match = services.match_create(
                ruleset="classic", players=4, mode="local", host=host, first=0
            )
            match.refresh_from_db()
            seq = match.seq
            state = match.state()
            rolled_at = rolled_cpu = 0.0
            while state is not None and state.phase != "over":
                if state.phase == "roll":
                    with connection.execute_wrapper(roll_writes):
                        start, cpu = time.perf_counter(), time.process_time()
                        result = services.match_roll(
                            match_id=match.pk, corner=state.to_play, seq=seq, action_id=f"r{seq}"
                        )
                        rolled_at = time.perf_counter() - start
                        rolled_cpu = time.process_time() - cpu
                    roll_times.append(rolled_at)
                    rolls += 1
                else:
                    chosen = rng.choice(state.legal)
                    with connection.execute_wrapper(move_writes):
                        start, cpu = time.perf_counter(), time.process_time()
                        result = services.match_move(
                            match_id=match.pk,
                            corner=state.to_play,
                            seq=seq,
                            action_id=f"m{seq}",
                            pawn=chosen.pawn,
                            pawn_corner=chosen.corner,
                        )
                        took = time.perf_counter() - start
                        took_cpu = time.process_time() - cpu
                    move_times.append(took)
                    pairs.append(rolled_at + took)
                    pair_cpu.append(rolled_cpu + took_cpu)
                    moves += 1
                seq = result.seq
                match.refresh_from_db(fields=["snapshot", "seq"])
                state = match.state()
            if longest is None or match.seq > longest.seq:
                longest = match
        assert longest is not None

        def per(writes: Writes, n: int) -> str:
            rows = sum(writes.rows.values()) / n
            statements = sum(writes.statements.values()) / n
            detail = ", ".join(
                f"{key} {count / n:.2f}" for key, count in sorted(writes.rows.items())
            )
            return (
                f"{rows:.2f} rows in {statements:.2f} writing statements, plus "
                f"{writes.reads / n:.2f} reads ({detail})"
            )

        vendor = connection.vendor
        print(f"database: {vendor} {connection.settings_dict['NAME']}")
        print(f"{args.matches} four-player classic matches: {rolls} rolls, {moves} moves")
        print(f"rows written per move: {per(move_writes, moves)}")
        print(f"rows written per roll: {per(roll_writes, rolls)}")
        ms = 1000.0
        print(
            f"roll+move through the services: median {statistics.median(pairs) * ms:.2f} ms, "
            f"p99 {_pct(pairs, 0.99) * ms:.2f} ms (n={len(pairs)})"
        )
        print(
            f"  roll alone: median {statistics.median(roll_times) * ms:.2f} ms, p99 "
            f"{_pct(roll_times, 0.99) * ms:.2f} ms; move alone: median "
            f"{statistics.median(move_times) * ms:.2f} ms, p99 {_pct(move_times, 0.99) * ms:.2f} ms"
        )
        print(
            f"  CPU of this process per roll+move (load-independent; the database server's "
            f"own work not included): median {statistics.median(pair_cpu) * ms:.2f} ms"
        )
        if hasattr(os, "getloadavg"):
            print(f"  load average while measuring: {os.getloadavg()[0]:.1f}")
        n_rolls = Roll.objects.filter(match=longest).count()
        n_moves = Move.objects.filter(match=longest).count()
        start = time.perf_counter()
        snapshot = replay_snapshot(longest)
        replay_took = time.perf_counter() - start
        assert snapshot == Match.objects.get(pk=longest.pk).snapshot
        start = time.perf_counter()
        report = verify_match(longest)
        verify_took = time.perf_counter() - start
        assert report.ok, report.line
        print(
            f"longest match ({n_rolls} rolls, {n_moves} moves, {longest.seq} events): replay "
            f"{replay_took * ms:.0f} ms, verify {verify_took * ms:.0f} ms"
        )
        print(f"  {report.line}")
    finally:
        teardown_databases(config, verbosity=0)


if __name__ == "__main__":
    main()
