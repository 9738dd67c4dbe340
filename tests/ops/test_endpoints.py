"""The operator's endpoints in one process (issue 28): /healthz, /readyz (its checks, a check
that is down or hangs, the answer within a second), /metrics (who may read it, what it
counts), the request id and JSON log lines, the CSP header, and a 20 MiB API body answered
with the API's JSON ``too_large``. The production stack's run is tests/ops/test_stack_ops.py."""

from __future__ import annotations

import io
import json
import logging
import logging.config
import re
import sys
import time
from collections.abc import Iterator
from typing import Any

import pytest
from django.test import Client

from accounts.models import User
from games import services
from ops import health
from ops.logs import logging_config

pytestmark = pytest.mark.django_db


def value(text: str, name: str, **labels: str) -> float:
    """One sample of the Prometheus text `text` (0 when absent)."""
    want = ",".join(f'{k}="{v}"' for k, v in sorted(labels.items()))
    for line in text.splitlines():
        if line.startswith("#") or " " not in line:
            continue
        key, _, number = line.rpartition(" ")
        found = re.fullmatch(r"([a-zA-Z_:][\w:]*)(?:\{(.*)\})?", key)
        if not found or found.group(1) != name:
            continue
        parts = (found.group(2) or "").split(",")
        given = ",".join(sorted(p for p in parts if p and "pid=" not in p))
        if given == want:
            return float(number)
    return 0.0


@pytest.fixture
def log_lines(settings: Any) -> Iterator[io.StringIO]:
    """The site's logging in the JSON format, written here."""
    logging.config.dictConfig(logging_config("json"))
    out = io.StringIO()
    handlers = {
        h for name in ("", "django.request", "ludo.ops") for h in logging.getLogger(name).handlers
    }
    for handler in handlers:
        assert isinstance(handler, logging.StreamHandler)
        handler.setStream(out)
    yield out
    logging.config.dictConfig(settings.LOGGING)
    for handler in handlers:
        handler.setStream(sys.stderr)


def test_healthz_answers_without_asking_anything(client: Client) -> None:
    response = client.get("/healthz", headers={"X-Request-ID": "lb-probe-1"})
    assert response.status_code == 200 and response.json() == {"status": "ok"}
    assert "no-cache" in response["Cache-Control"] and "max-age=0" in response["Cache-Control"]
    assert response["X-Request-ID"] == "lb-probe-1"
    fresh = client.get("/healthz", headers={"X-Request-ID": "no good\nid"})["X-Request-ID"]
    assert re.fullmatch(r"[0-9a-f]{32}", fresh)  # a bad id is replaced, not echoed


def test_readyz_names_each_check(client: Client, settings: Any, monkeypatch: Any) -> None:
    monkeypatch.setattr(health, "_migrated", False)
    settings.METRICS_TOKEN = "ready-token"
    response = client.get("/readyz", headers={"Authorization": "Bearer ready-token"})
    body = response.json()
    assert set(body["checks"]) == set(health.CHECKS)
    assert body["checks"]["database"] == "ok" and body["checks"]["migrations"] == "ok"
    if not settings.REDIS_URL:  # the embedded default: no Redis and no Celery to wait for
        assert response.status_code == 200 and body["status"] == "ok" and body["down"] == []
        assert body["checks"]["celery_worker"] == "off"
    assert "no-cache" in response["Cache-Control"]


def test_readyz_is_503_within_a_second_naming_what_is_down(
    client: Client, settings: Any, monkeypatch: Any, log_lines: io.StringIO
) -> None:
    def hangs() -> str:
        time.sleep(5)
        return "ok"

    def refuses() -> str:
        raise health.Down("ConnectionError")

    monkeypatch.setitem(health.CHECKS, "redis", refuses)
    monkeypatch.setitem(health.CHECKS, "channel_layer", hangs)
    settings.METRICS_TOKEN = "ready-token"
    settings.METRICS_ALLOW = []
    anyone = client.get("/readyz", headers={"X-Request-ID": "probe-41"})
    assert anyone.status_code == 503 and anyone.json() == {"status": "unavailable"}
    began = time.monotonic()
    response = client.get(
        "/readyz", headers={"X-Request-ID": "probe-42", "Authorization": "Bearer ready-token"}
    )
    took = time.monotonic() - began
    assert response.status_code == 503, response.content
    body = response.json()
    assert body["status"] == "unavailable"
    assert {"redis", "channel_layer"} <= set(body["down"])
    assert body["checks"]["redis"] == "down: ConnectionError"
    assert body["checks"]["channel_layer"] == "down: no answer in time"
    assert took < 3, f"{took:.2f} s"  # READY_TIMEOUT is 0.8 s; a loaded machine adds to it
    # The warning is one JSON line with the request's id.
    lines = [json.loads(line) for line in log_lines.getvalue().splitlines()]
    mine = [line for line in lines if line.get("request_id") == "probe-42"]
    assert mine and mine[0]["level"] == "WARNING" and mine[0]["logger"] == "ludo.ops"
    assert "not ready" in mine[0]["message"] and "redis (ConnectionError)" in mine[0]["message"]
    # A probe's 503 is that warning alone: no ERROR line from Django's request logger.
    assert not [line for line in lines if line["level"] == "ERROR"], lines


def test_metrics_needs_the_token_or_an_allowed_address(client: Client, settings: Any) -> None:
    settings.METRICS_TOKEN = "s3cret-token"
    settings.METRICS_ALLOW = []
    refused = client.get("/metrics")
    assert refused.status_code == 403 and refused.json()["code"] == "forbidden"
    assert client.get("/metrics", headers={"Authorization": "Bearer wrong"}).status_code == 403
    ok = client.get("/metrics", headers={"Authorization": "Bearer s3cret-token"})
    assert ok.status_code == 200 and ok["Content-Type"].startswith("text/plain")
    settings.METRICS_TOKEN = ""
    assert client.get("/metrics", headers={"Authorization": "Bearer "}).status_code == 403
    from ludo_site.env import parse_networks

    settings.METRICS_ALLOW = parse_networks("10.0.0.0/8")
    assert client.get("/metrics").status_code == 403  # the test client is 127.0.0.1
    settings.METRICS_ALLOW = parse_networks("10.0.0.0/8,127.0.0.1")
    assert client.get("/metrics").status_code == 200


def test_metrics_count_rooms_actions_and_responses(client: Client, settings: Any) -> None:
    settings.METRICS_TOKEN = "t"
    auth = {"Authorization": "Bearer t"}
    before = client.get("/metrics", headers=auth).content.decode()
    ann = User.objects.create_user("ops-ann", password="pw-ann-123")
    ben = User.objects.create_user("ops-ben", password="pw-ben-123")
    match = services.match_create(ruleset="classic", players=2, mode="friendly", host=ann, first=0)
    waiting = client.get("/metrics", headers=auth).content.decode()
    assert value(waiting, "ludo_rooms", status="waiting") == 1
    services.match_join(code=match.code, user=ben)
    player = Client()
    player.force_login(ann)
    snap = player.get(f"/api/matches/{match.code}").json()
    csrf = player.get("/api/session").json()["csrf"]
    rolled = player.post(
        f"/api/matches/{match.code}/actions",
        json.dumps({"t": "roll", "v": snap["v"], "id": "ops-r1"}),
        content_type="application/json",
        headers={"X-CSRFToken": csrf},
    )
    assert rolled.status_code == 200, rolled.content
    after = client.get("/metrics", headers=auth).content.decode()
    assert value(after, "ludo_rooms", status="live") == 1
    assert value(after, "ludo_rooms", status="waiting") == 0
    assert (
        value(after, "ludo_actions_total", kind="roll")
        == value(before, "ludo_actions_total", kind="roll") + 1
    )
    assert value(after, "ludo_http_responses_total", code="200") > value(
        before, "ludo_http_responses_total", code="200"
    )
    refused = value(after, "ludo_http_responses_total", code="403")
    assert client.get("/metrics").status_code == 403  # no token: refused, and counted
    again = client.get("/metrics", headers=auth).content.decode()
    assert value(again, "ludo_http_responses_total", code="403") == refused + 1
    for name in ("ludo_clock_due_deadlines", "ludo_clock_lag_seconds", "ludo_sockets_open"):
        assert f"\n{name} " in after or after.startswith(f"{name} "), name


def test_pages_carry_the_csp_and_run_no_inline_script(client: Client, settings: Any) -> None:
    ann = User.objects.create_user("csp-ann", password="pw-ann-123")
    match = services.match_create(ruleset="classic", players=2, mode="friendly", host=ann, first=0)
    visitor = Client()
    for path in ("/", f"/r/{match.code}/", "/rules/", "/guides/duel-rules/"):
        response = visitor.get(path)
        assert response.status_code == 200, path
        assert "script-src 'self'" in response["Content-Security-Policy"], path
        html = response.content.decode()
        for tag in re.findall(r"<script\b[^>]*>", html):
            assert "src=" in tag or 'type="application/json"' in tag, f"{path}: {tag}"
        assert not re.search(r"\son[a-z]+=\"", html), f"{path}: an inline event handler"


def test_a_20_mib_body_to_the_actions_api_is_json_too_large(
    settings: Any, log_lines: io.StringIO
) -> None:
    settings.DEBUG = False
    ann = User.objects.create_user("big-ann", password="pw-ann-123")
    match = services.match_create(ruleset="classic", players=2, mode="friendly", host=ann, first=0)
    player = Client(raise_request_exception=False)
    player.force_login(ann)
    csrf = player.get("/api/session").json()["csrf"]
    body = '{"t": "roll", "pad": "' + "x" * (20 * 1024 * 1024) + '"}'
    response = player.post(
        f"/api/matches/{match.code}/actions",
        body,
        content_type="application/json",
        headers={"X-CSRFToken": csrf},
    )
    assert response.status_code == 413, response.content[:300]
    assert response["Content-Type"] == "application/json"
    assert response.json()["code"] == "too_large"
    assert "Traceback" not in log_lines.getvalue()
