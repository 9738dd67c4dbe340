"""Backups restore (issue 28; README "Backups"): a database with finished and running matches
is dumped with `pg_dump`, restored with `pg_restore` into a fresh database, and there
`verify_match` passes for every match and `verify_audit` with the anchor taken before the dump
(kept apart from the database, as the README says). The running match plays on after it."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.stack import ROOT, admin_sql, is_postgres, with_path

# A running room: two players, a few actions in, left mid-game.
RUNNING = """
from accounts.models import User
from games import services
from games.live.wire import parse
from games.match.selectors import snapshot_for
from games.models import Match
a = User.objects.create_user("backup-a", password="x-backup-1")
b = User.objects.create_user("backup-b", password="x-backup-1")
m = services.match_create(ruleset="classic", players=2, mode="friendly", host=a, first=0)
services.match_join(code=m.code, user=b)
for i in range(6):
    m = Match.objects.get(pk=m.pk)
    snap = snapshot_for(m, viewer_corner=0)
    user = a if snap["to_play"] == 0 else b
    if snap["phase"] == "roll" or not snap.get("legal"):
        text = '{"t": "roll", "v": %d, "id": "b%d"}' % (snap["v"], i)
    else:
        pawn = snap["legal"][0]["pawn"]
        text = '{"t": "move", "v": %d, "id": "b%d", "d": {"pawn": %d}}' % (snap["v"], i, pawn)
    try:
        services.match_act(match_id=m.pk, user=user, intent=parse(text))
    except services.ServiceError as e:  # the pause after a roll no pawn could use
        print("refused", e.code)
print("RUNNING", m.code, Match.objects.get(pk=m.pk).seq)
"""


def manage(url: str, *args: str) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST", "DJANGO_SET"))}
    env.update(DATABASE_URL=url, PYTHONPATH=str(ROOT), LUDO_PASS_PAUSE="0")
    env.pop("REDIS_URL", None)  # the commands need only the database
    done = subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert done.returncode == 0, f"manage.py {' '.join(args)}:\n{done.stdout}{done.stderr}"
    return done.stdout


def test_a_dump_restores_into_a_fresh_database_that_verifies(tmp_path: Path) -> None:
    url = os.environ.get("DATABASE_URL", "")
    if not is_postgres(url):
        pytest.skip("backups are of PostgreSQL: run with DATABASE_URL on PostgreSQL")
    if not (shutil.which("pg_dump") and shutil.which("pg_restore")):
        pytest.skip("needs pg_dump and pg_restore")
    base = url.rstrip("/").rsplit("/", 1)[-1] or "ludo"
    names = {kind: f"{base}_{kind}_{os.getpid()}" for kind in ("live", "restored")}
    urls = {kind: with_path(url, f"/{name}") for kind, name in names.items()}
    for name in names.values():
        admin_sql(url, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    admin_sql(url, f'CREATE DATABASE "{names["live"]}"')
    try:
        manage(urls["live"], "migrate", "--noinput")
        finished = [
            manage(urls["live"], "simulate_match", "--ruleset", ruleset, "--players", players,
                   "--seed", "7").split()[-1]
            for ruleset, players in (("classic", "4"), ("duel", "2"))
        ]  # fmt: skip
        running = re.search(r"RUNNING (\S+) (\d+)", manage(urls["live"], "shell", "-c", RUNNING))
        assert running
        codes = [*finished, running.group(1)]
        anchor = re.search(r"anchor: (\S+)", manage(urls["live"], "verify_audit"))
        assert anchor, "verify_audit prints the chain's head"

        # The README's steps: dump, create a fresh database, restore into it.
        dump = tmp_path / "ludo.dump"
        subprocess.run(
            ["pg_dump", "--format=custom", "--no-owner", f"--file={dump}",
             f"--dbname={urls['live']}"],
            check=True, timeout=300,
        )  # fmt: skip
        admin_sql(url, f'CREATE DATABASE "{names["restored"]}"')
        subprocess.run(
            ["pg_restore", "--no-owner", "--exit-on-error", f"--dbname={urls['restored']}",
             str(dump)],
            check=True, timeout=300,
        )  # fmt: skip

        for code in codes:
            manage(urls["restored"], "verify_match", code)  # exits non-zero on a mismatch
        checked = manage(urls["restored"], "verify_audit", "--anchor", anchor.group(1))
        assert "audit chain ok" in checked
        # The running match is still running there, at the same point.
        state = manage(
            urls["restored"], "shell", "-c",
            f"from games.models import Match; m = Match.objects.get(code={codes[-1]!r}); "
            "print(m.get_status_display(), m.seq)",
        )  # fmt: skip
        assert state.split()[-2:] == ["Active", running.group(2)], state
    finally:
        for name in names.values():
            admin_sql(url, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
