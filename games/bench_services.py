"""Figures for the storage layer, measured through the services on the configured database.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/ludo python games/bench_services.py

Creates a throwaway database (``<name>_bench_services``), plays four-player classic matches
in local mode through `match_roll` / `match_move` (each its own committed transaction, as in
production), and prints:
- rows and statements written per move and per roll;
- median and p99 time of a roll+move (a roll that leaves a move, then that move);
- the time to replay and to verify (`games.match.verify`) the longest of the matches;
- on PostgreSQL (issue 27): database round trips per action, counted by a TCP relay between
  this process and the server (one round trip: the client sends after the server answered;
  each action borrows its connection from the pool as a socket action does, so the pool's
  check counts); the PostgreSQL backend's CPU per action (from /proc, when the server runs on
  this machine); and how many of the updates of ``games_match`` were HOT
  (``pg_stat_user_tables.n_tup_hot_upd``).
Not a test: the machine's load shows in the numbers; run it on a quiet machine.
``LUDO_FENCED_WRITES=0`` measures the locked path.
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
import selectors  # noqa: E402
import socket  # noqa: E402
import statistics  # noqa: E402
import threading  # noqa: E402
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
        if verb == "WITH" and "UPDATE" in sql:
            verb = "UPDATE"  # a fenced write: the match's UPDATE with its INSERTs (CTEs)
        if verb == "SELECT":
            self.reads += 1
        elif verb in ("INSERT", "UPDATE", "DELETE"):
            table = sql.split('"')[1] if '"' in sql else "?"
            self.statements[f"{verb} {table}"] += 1
            self.rows[f"{verb} {table}"] += max(context["cursor"].rowcount, 0)
        return result


class RoundTrips:
    """A TCP relay in front of PostgreSQL that counts round trips while ``counting``: a burst of
    bytes from the client after the server last spoke (or at the start) is one round trip."""

    def __init__(self, host: str, port: int) -> None:
        self.target = (host, port)
        self.counting = False
        self.trips = 0
        self._lock = threading.Lock()
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            client, _ = self.listener.accept()
            server = socket.create_connection(self.target)
            for sock in (client, server):
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            threading.Thread(target=self._relay, args=(client, server), daemon=True).start()

    def _relay(self, client: Any, server: Any) -> None:

        chooser = selectors.DefaultSelector()
        chooser.register(client, selectors.EVENT_READ, server)
        chooser.register(server, selectors.EVENT_READ, client)
        client_spoke_last = False
        try:
            while True:
                for key, _ in chooser.select():
                    data = key.fileobj.recv(65536)  # type: ignore[union-attr]
                    if not data:
                        return
                    from_client = key.fileobj is client
                    if from_client and not client_spoke_last and self.counting:
                        with self._lock:
                            self.trips += 1
                    client_spoke_last = from_client
                    key.data.sendall(data)
        except OSError:
            return
        finally:
            client.close()
            server.close()


def _backends_cpu(cursor: Any) -> dict[int, float] | None:
    """CPU seconds used so far by each PostgreSQL backend serving this database (None: the
    server's processes are not readable here)."""
    cursor.execute(
        "SELECT pid FROM pg_stat_activity WHERE datname = current_database()"
        " AND backend_type = 'client backend'"
    )
    used = {}
    for (pid,) in cursor.fetchall():
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            return None
        used[int(pid)] = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return used


def _match_updates(cursor: Any) -> tuple[int, int]:
    """(updates, HOT updates) of games_match so far, flushed from every backend."""
    cursor.execute("SELECT pg_stat_force_next_flush()")
    cursor.execute("SELECT pg_stat_clear_snapshot()")
    cursor.execute(
        "SELECT n_tup_upd, n_tup_hot_upd FROM pg_stat_user_tables WHERE relname = 'games_match'"
    )
    row = cursor.fetchone()
    return (int(row[0]), int(row[1])) if row else (0, 0)


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
    relay: RoundTrips | None = None
    if connection.vendor == "postgresql":
        relay = RoundTrips(str(base.get("HOST") or "127.0.0.1"), int(base.get("PORT") or 5432))
        base["HOST"], base["PORT"] = "127.0.0.1", str(relay.port)
        connection.settings_dict.update(HOST="127.0.0.1", PORT=str(relay.port))
    config = setup_databases(verbosity=0, interactive=False)
    try:
        # The site's modules, now that the test database exists.
        from accounts.models import User
        from games import services
        from games.match.replay import replay_snapshot
        from games.match.verify import verify_match
        from games.models import Match, Move, Roll

        host = User.objects.create_user("bench-host")
        postgres = connection.vendor == "postgresql"
        actions_timed = 0
        updates_before = (0, 0)
        cpu_before: dict[int, float] | None = None
        if postgres:
            with connection.cursor() as cursor:
                updates_before = _match_updates(cursor)
                cpu_before = _backends_cpu(cursor)

        def timed(run: Callable[..., Any], **kwargs: Any) -> Any:
            """One action as production runs it: its own connection from the pool (given back
            before, so the pool's check counts), its round trips counted."""
            nonlocal actions_timed
            if not postgres:
                return run(**kwargs)
            connection.close()  # back to the pool: the action borrows one, as a socket does
            assert relay is not None
            relay.counting = True
            try:
                result = run(**kwargs)
            finally:
                relay.counting = False
            actions_timed += 1
            return result

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
                        result = timed(
                            services.match_roll,
                            match_id=match.pk,
                            corner=state.to_play,
                            seq=seq,
                            action_id=f"r{seq}",
                        )
                        rolled_at = time.perf_counter() - start
                        rolled_cpu = time.process_time() - cpu
                    roll_times.append(rolled_at)
                    rolls += 1
                else:
                    chosen = rng.choice(state.legal)
                    with connection.execute_wrapper(move_writes):
                        start, cpu = time.perf_counter(), time.process_time()
                        result = timed(
                            services.match_move,
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
        if postgres and relay is not None and actions_timed:
            print(
                f"database round trips per action: {relay.trips / actions_timed:.2f} "
                f"({relay.trips} in {actions_timed} actions; the pool's check included)"
            )
            with connection.cursor() as cursor:
                updated, hot = _match_updates(cursor)
                cpu_after = _backends_cpu(cursor)
            if cpu_before is not None and cpu_after is not None:
                used = sum(cpu_after.get(pid, 0.0) - cpu_before.get(pid, 0.0) for pid in cpu_after)
                print(
                    f"PostgreSQL backends' CPU per action: {used / actions_timed * ms:.3f} ms "
                    "(every backend of the bench's database, the replay and reads between "
                    "actions included)"
                )
            updated -= updates_before[0]
            hot -= updates_before[1]
            share = f" ({hot / updated:.0%})" if updated else ""
            print(f"games_match updates: {updated}, HOT {hot}{share}")
        fenced_on = getattr(settings, "LUDO_FENCED_WRITES", None)
        print(f"  LUDO_FENCED_WRITES: {fenced_on}")
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
