"""`manage.py check --deploy` is clean with the README's production variables (issue 12: it
had four warnings), and warns without HTTPS=1 (the check is not silenced)."""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def check_deploy(**variables: str) -> subprocess.CompletedProcess[str]:
    environ = {k: v for k, v in os.environ.items() if k not in ("HTTPS", "HSTS_SECONDS")}
    environ.update(
        DEBUG="0",
        SECRET_KEY=secrets.token_urlsafe(50),
        ALLOWED_HOSTS="ludo.example",
        CSRF_TRUSTED_ORIGINS="https://ludo.example",
        **variables,
    )
    return subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env=environ,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_check_deploy_is_clean_with_the_readme_variables() -> None:
    done = check_deploy(HTTPS="1")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "no issues" in done.stdout


def test_check_deploy_warns_without_https() -> None:
    done = check_deploy()
    assert done.returncode != 0
    assert "security.W008" in done.stderr + done.stdout
