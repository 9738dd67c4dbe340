"""Settings every test shares, the property tests' budgets, and CI's rule that a skipped test
fails the run."""

from __future__ import annotations

import os
import uuid
from typing import Any

import pytest
from hypothesis import settings as hypothesis_settings

from ludo_site import env
from ludo_site.env import parse_bool


def in_ci() -> bool:
    """CI=true (as CI sets it): every service is there, so nothing has a reason to skip."""
    return parse_bool(os.environ.get("CI") or None, default=False)


# Property-test budgets, in examples per property and rule set (tests/engine/test_properties.py
# runs each property once per rule-set variant). Seeds are random on every run, never fixed:
# each run searches new games, and a failure prints the blob that replays it
# (``@reproduce_failure(...)``) along with the game's script. HYPOTHESIS_PROFILE picks one:
# "dev" (the default outside CI: quick), "ci" (the default with CI=true), "long" (on demand,
# to hunt: HYPOTHESIS_PROFILE=long .venv/bin/pytest tests/engine/test_properties.py).
EXAMPLES = {"dev": 10, "ci": 100, "long": 2000}
for _name, _count in EXAMPLES.items():
    hypothesis_settings.register_profile(
        _name,
        max_examples=_count,
        derandomize=False,
        print_blob=True,
        deadline=None,  # a whole random game per example: its time depends on the machine
        database=None,  # nothing kept between runs: every run is a fresh search
    )


def hypothesis_profile() -> str:
    return os.environ.get("HYPOTHESIS_PROFILE") or ("ci" if in_ci() else "dev")


hypothesis_settings.load_profile(hypothesis_profile())


def pytest_report_header(config: pytest.Config) -> str:
    examples = hypothesis_settings.default.max_examples
    return f"hypothesis profile: {hypothesis_profile()} ({examples} examples a property)"


class SkipsFailCI:
    """Counts the skipped tests (with xdist, from the reports the workers send to the
    controller) and fails a run that skipped any: a skip in CI means a service or the browser
    was missing, and the test that needed it proved nothing."""

    def __init__(self) -> None:
        self.skipped: list[tuple[str, str]] = []

    @pytest.hookimpl
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.skipped and not hasattr(report, "wasxfail"):
            reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else ""
            self.skipped.append((report.nodeid, str(reason)))

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        if self.skipped and exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED

    @pytest.hookimpl
    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if not self.skipped:
            return
        terminalreporter.section("CI=true: skipped tests fail the run", red=True)
        for nodeid, reason in self.skipped:
            terminalreporter.line(f"SKIPPED {nodeid}: {reason}", red=True)


def pytest_configure(config: pytest.Config) -> None:
    # Only where the reports arrive: the controller (or a run without xdist), not each worker.
    if in_ci() and not hasattr(config, "workerinput"):
        config.pluginmanager.register(SkipsFailCI(), "ludo-skips-fail-ci")


@pytest.fixture(autouse=True)
def _own_cache(settings: Any) -> None:
    """With REDIS_URL the cache is Redis, shared by the xdist workers and kept from one run to
    the next: one test's failed sign-ins from 127.0.0.1 would lock out another's. Each test
    counts under a key prefix of its own."""
    if settings.REDIS_URL:
        tag = f"{settings.REDIS_PREFIX}.test-{uuid.uuid4().hex[:12]}"
        settings.CACHES = env.caches(settings.REDIS_URL, tag)


@pytest.fixture(autouse=True)
def _many_sign_ups(settings: Any) -> None:
    """The test client signs up from 127.0.0.1 again and again, and with REDIS_URL the counts
    outlive a run: the sign-up limit is lifted except where a test sets it
    (tests/accounts/test_sign_up_limit.py)."""
    settings.SIGN_UPS_PER_IP = 10**6
    # Likewise the guests per address and the rooms per player (tests/realtime/test_limits.py).
    settings.GUESTS_PER_IP = 10**6
    settings.ROOMS_WAITING_PER_PLAYER = 10**6
    settings.ROOMS_PER_PLAYER_HOUR = 10**6


@pytest.fixture(autouse=True)
def _no_report_at_end(settings: Any) -> None:
    """No Celery worker hears a test process's tasks: a match's end asks for no report here
    (the tests of that turn it on; servers the tests start keep the default)."""
    settings.LUDO_REPORT_AT_END = False


@pytest.fixture(autouse=True)
def _no_newcomer_gate(settings: Any) -> None:
    """Tests make accounts and queue them for ranked play at once; the newcomer condition
    (`ranked.holds.newcomer_refusal`) is tested where it is set."""
    settings.RANKED_MIN_ACCOUNT_DAYS = 0


@pytest.fixture(autouse=True)
def _no_pass_pause(settings: Any) -> None:
    """Players and bots act at once after a roll no pawn could use, and a player who missed
    two party turns gets no window to take the seat back, except where a test sets them
    (tests/realtime/test_promises.py)."""
    settings.LUDO_PASS_PAUSE = 0.0
    settings.LUDO_RECLAIM_SECONDS = 0.0
