"""Servers a test starts for itself: a free local port, a redis-server of its own."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager

import pytest


def free_port() -> int:
    """A free local port: from LUDO_TEST_PORTS ("18100-18199") when set (a shared machine's
    share), else any the system gives."""
    span = os.environ.get("LUDO_TEST_PORTS", "")
    candidates = [0]
    if span:
        low, high = (int(p) for p in span.split("-"))
        candidates = list(range(low, high + 1))
    for port in candidates:
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return int(s.getsockname()[1])
    raise RuntimeError(f"no free port in {span}")


def port_open(port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(0.2)
        return s.connect_ex(("127.0.0.1", port)) == 0


@contextmanager
def own_redis() -> Iterator[str]:
    """A redis-server of this test's own (nothing shared: no other site hears it)."""
    server = shutil.which("redis-server")
    if server is None:
        pytest.skip("needs redis-server")
    port = free_port()
    proc = subprocess.Popen(
        [server, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        end = time.monotonic() + 10
        while not port_open(port):
            assert time.monotonic() < end, "redis-server did not start"
            time.sleep(0.05)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        proc.terminate()
        proc.wait(timeout=10)
