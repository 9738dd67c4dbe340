"""A redis-server a test starts for itself (ports from `tests.stack`, which starts the
production stack)."""

from __future__ import annotations

import shutil
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from tests.stack import free_port, port_open

__all__ = ["free_port", "own_redis", "port_open"]


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
