"""The metrics of every process together (prometheus-client's multi-process mode, issue 28):
what two processes counted adds up, and the sockets of a process that died (a killed uvicorn
worker) stop counting at the next scrape (`ops.scrape.forget_dead_processes`)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.stack import ROOT

# Opens two sockets and counts an action, then waits (alive) or exits (dead).
CHILD = """
import sys
from ops import metrics
metrics.socket_opened("match"); metrics.socket_opened("match"); metrics.action("roll")
print("ready", flush=True)
sys.stdin.read()
"""
SCRAPE = """
from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.multiprocess import MultiProcessCollector
from ops import scrape
scrape.forget_dead_processes(scrape.multiprocess_dir())
registry = CollectorRegistry()
MultiProcessCollector(registry, path=scrape.multiprocess_dir())
print(generate_latest(registry).decode())
"""


def sample(text: str, line_start: str) -> float:
    return sum(float(x.rpartition(" ")[2]) for x in text.splitlines() if x.startswith(line_start))


def test_processes_add_up_and_a_dead_ones_sockets_stop_counting(tmp_path: Path) -> None:
    env = {**os.environ, "PROMETHEUS_MULTIPROC_DIR": str(tmp_path / "m"), "PYTHONPATH": str(ROOT)}
    env.pop("DJANGO_SETTINGS_MODULE", None)

    def python(code: str, **kw: object) -> subprocess.Popen[str]:
        return subprocess.Popen(
            [sys.executable, "-c", code], cwd=ROOT, env=env, text=True,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, **kw,  # type: ignore[call-overload]
        )  # fmt: skip

    def scrape() -> str:
        out, _ = python(SCRAPE).communicate(timeout=60)
        return str(out)

    alive, dies = python(CHILD), python(CHILD)
    try:
        for child in (alive, dies):
            assert child.stdout is not None and child.stdout.readline().strip() == "ready"
        both = scrape()
        assert sample(both, "ludo_sockets_open ") == 4
        assert sample(both, 'ludo_actions_total{kind="roll"}') == 2
        dies.kill()
        dies.wait(timeout=10)
        after = scrape()
        assert sample(after, "ludo_sockets_open ") == 2  # the live process's two only
        assert sample(after, 'ludo_actions_total{kind="roll"}') == 2  # counters stay counted
    finally:
        for child in (alive, dies):
            if child.poll() is None:
                child.kill()
            child.wait(timeout=10)
