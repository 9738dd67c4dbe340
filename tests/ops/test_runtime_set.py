"""The production commands start from the runtime set alone (issue 28): a fresh venv with only
requirements.txt (no pytest, ruff, mypy, hypothesis, Playwright) runs `migrate`,
`collectstatic`, the README's uvicorn command (answering /healthz and a page with DEBUG off),
a Celery worker and Celery beat.

The venv is built once per requirements.txt and Python (kept under ``LUDO_RUNTIME_VENVS``,
default ``~/.cache/ludo-site``, named by their hash), so CI pays for it only when the pins
change; building it takes a minute or two from pip's cache."""

from __future__ import annotations

import fcntl
import hashlib
import os
import secrets
import shutil
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from tests.stack import ROOT, free_port, port_open, uvicorn_command

RUNTIME = ROOT / "requirements.txt"


def runtime_venv() -> Path:
    """The venv of requirements.txt alone, built if it is not there yet (one builder at a
    time: a lock file)."""
    key = hashlib.sha256(RUNTIME.read_bytes() + sys.version.encode()).hexdigest()[:16]
    home = Path(os.environ.get("LUDO_RUNTIME_VENVS") or Path.home() / ".cache" / "ludo-site")
    home.mkdir(parents=True, exist_ok=True)
    venv = home / f"runtime-{key}"
    with open(home / f"runtime-{key}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if (venv / "ready").exists():
            return venv
        shutil.rmtree(venv, ignore_errors=True)
        base = Path(sys.base_prefix) / "bin" / "python3"
        subprocess.run([str(base), "-m", "venv", str(venv)], check=True, timeout=300)
        built = subprocess.run(
            [str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet",
             "--disable-pip-version-check", "-r", str(RUNTIME)],
            capture_output=True, text=True, timeout=1200, check=False,
        )  # fmt: skip
        assert built.returncode == 0, built.stdout + built.stderr
        (venv / "ready").touch()
    return venv


def run(venv: Path, env: dict[str, str], *args: str) -> str:
    done = subprocess.run(
        [str(venv / "bin" / "python"), *args],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert done.returncode == 0, f"{args}:\n{done.stdout}{done.stderr}"
    return done.stdout + done.stderr


def wait_for_text(path: Path, text: str, proc: subprocess.Popen[bytes], timeout: float) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if text in path.read_text(errors="replace"):
            return
        assert proc.poll() is None, path.read_text(errors="replace")[-3000:]
        time.sleep(0.2)
    raise AssertionError(f"no {text!r} in {timeout} s:\n{path.read_text(errors='replace')[-3000:]}")


def test_the_production_commands_start_from_requirements_txt_alone(tmp_path: Path) -> None:
    venv = runtime_venv()
    python = venv / "bin" / "python"
    for dev_only in ("pytest", "hypothesis", "playwright", "ruff", "mypy", "importlinter"):
        probe = subprocess.run([str(python), "-c", f"import {dev_only}"], capture_output=True)
        assert probe.returncode != 0, f"{dev_only} is in the runtime set"
    assert "No broken requirements" in run(venv, dict(os.environ), "-m", "pip", "check")
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("PYTEST", "DJANGO_SETTINGS", "VIRTUAL_ENV", "REDIS_URL"))
    }
    env.update(
        DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite3'}",
        DEBUG="0",
        SECRET_KEY=secrets.token_urlsafe(40),
        ALLOWED_HOSTS="127.0.0.1",
        STATIC_ROOT=str(tmp_path / "static"),
        PYTHONPATH=str(ROOT),
        PATH=f"{venv / 'bin'}:{env.get('PATH', '')}",
    )
    run(venv, env, "manage.py", "migrate", "--noinput")
    run(venv, env, "manage.py", "collectstatic", "--noinput")
    port = free_port()
    procs: list[subprocess.Popen[bytes]] = []
    logs = {name: tmp_path / f"{name}.log" for name in ("uvicorn", "worker", "beat")}
    argv = {
        # The README's command (one worker here).
        "uvicorn": uvicorn_command(venv / "bin", port, 1, env),
        "worker": [str(venv / "bin" / "celery"), "-A", "ludo_site", "worker", "-l", "info",
                   "--pool", "solo", "--without-gossip", "--without-mingle", "--without-heartbeat"],
        "beat": [str(venv / "bin" / "celery"), "-A", "ludo_site", "beat", "-l", "info",
                 "-s", str(tmp_path / "beat-schedule")],
    }  # fmt: skip
    try:
        for name, command in argv.items():
            with open(logs[name], "wb") as out:
                procs.append(
                    subprocess.Popen(
                        command,
                        cwd=ROOT,
                        env=env,
                        stdout=out,
                        stderr=subprocess.STDOUT,
                        start_new_session=True,
                    )  # fmt: skip
                )
        # uvicorn says "Application startup complete" before it binds its socket, and "Uvicorn
        # running on" after: wait for the second.
        wait_for_text(logs["uvicorn"], "Uvicorn running on", procs[0], 120)
        assert port_open(port)
        base = f"http://127.0.0.1:{port}"
        with urllib.request.urlopen(base + "/healthz", timeout=30) as response:
            assert response.status == 200 and b'"ok"' in response.read()
        with urllib.request.urlopen(base + "/", timeout=30) as response:
            assert response.status == 200 and b"<html" in response.read()
            assert "script-src 'self'" in response.headers["Content-Security-Policy"]
        with urllib.request.urlopen(base + "/static/js/room.js", timeout=30) as response:
            assert response.status == 200
        wait_for_text(logs["worker"], "ready.", procs[1], 120)
        wait_for_text(logs["beat"], "beat: Starting", procs[2], 120)
    finally:
        for proc in procs:
            if proc.poll() is None:
                os.killpg(proc.pid, 15)
        for proc in procs:
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, 9)
                proc.wait(timeout=10)
