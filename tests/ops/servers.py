"""Servers a test owns so it may stop them: a redis-server and a PostgreSQL cluster of its own
(``initdb`` in a temporary folder; as root, run as the ``postgres`` user), each on a port from
``LUDO_TEST_PORTS`` (never the shared ones)."""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

from tests.stack import free_port, port_open


def _wait_port(port: int, up: bool, timeout: float = 30) -> None:
    end = time.monotonic() + timeout
    while port_open(port) != up:
        assert time.monotonic() < end, f"port {port} not {'up' if up else 'down'}"
        time.sleep(0.05)


class OwnRedis:
    def __init__(self, folder: Path) -> None:
        self.port = free_port()
        self.folder = folder
        self.proc: subprocess.Popen[bytes] | None = None
        self.url = f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        server = shutil.which("redis-server")
        if server is None:
            pytest.skip("needs redis-server")
        self.folder.mkdir(parents=True, exist_ok=True)
        self.proc = subprocess.Popen(
            [server, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no", "--dir", str(self.folder)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        _wait_port(self.port, True)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=10)
        self.proc = None
        _wait_port(self.port, False)


def _pg_bin(name: str) -> str:
    found = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}")) or [shutil.which(name) or ""]
    if not found[-1]:
        pytest.skip(f"needs PostgreSQL's {name}")
    return found[-1]


class OwnPostgres:
    """A PostgreSQL cluster of this test's own: ``trust`` for local connections, fsync off."""

    def __init__(self) -> None:
        # Not under pytest's tmp_path: as root the server runs as postgres, who cannot enter it.
        self.folder = Path(tempfile.mkdtemp(prefix="ludo-pg-"))
        self.port = free_port()
        self.data = self.folder / "data"
        self.url = f"postgres://postgres@127.0.0.1:{self.port}/ludo"
        self._as = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []

    def _run(self, *argv: str) -> None:
        done = subprocess.run(
            [*self._as, *argv], capture_output=True, text=True, timeout=120, check=False
        )
        assert done.returncode == 0, f"{argv}: {done.stdout}{done.stderr}"

    def start(self) -> None:
        if not self.data.exists():
            if self._as:
                shutil.chown(self.folder, "postgres")
            self._run(_pg_bin("initdb"), "-D", str(self.data), "-A", "trust", "-U", "postgres",
                      "--no-sync")  # fmt: skip
        self._run(
            _pg_bin("pg_ctl"), "-D", str(self.data), "-l", str(self.folder / "server.log"), "-w",
            "-o", f"-p {self.port} -k {self.folder} -c listen_addresses=127.0.0.1 -c fsync=off",
            "start",
        )  # fmt: skip
        _wait_port(self.port, True)

    def stop(self) -> None:
        if (self.data / "postmaster.pid").exists():
            self._run(_pg_bin("pg_ctl"), "-D", str(self.data), "-m", "fast", "-w", "stop")
        _wait_port(self.port, False)

    def remove(self) -> None:
        self.stop()
        shutil.rmtree(self.folder, ignore_errors=True)
