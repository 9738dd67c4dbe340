"""The operator's endpoints on the production stack (issue 28, "Done when"): `tests.stack`
(uvicorn with two worker processes, DEBUG off, a Celery worker and beat) on a PostgreSQL
cluster and a redis-server this test owns, so it may stop them.

It plays a scripted match over WebSockets and reads `/metrics` (every process's values
together: prometheus-client's multi-process directory): the room live and then not, the two
sockets open and then closed, the actions by kind, the updates' latency, Celery's tasks. It
stops Redis, then PostgreSQL: `/readyz` answers 503 naming it (a JSON log line with the
probe's request id says so), and 200 again once it is back. And the hardening: a frame over
the README's ``--ws-max-size`` is refused by uvicorn (1009), a 20 MiB body to the actions API
is the JSON ``too_large``, with no traceback in the logs."""

from __future__ import annotations

import asyncio
import json
import os
import threading
import time
import urllib.error
import urllib.request
import uuid
from pathlib import Path
from typing import Any

import pytest

from tests.chaos.test_chaos import Player
from tests.ops.servers import OwnPostgres, OwnRedis
from tests.ops.test_endpoints import value
from tests.stack import Stack

pytestmark = pytest.mark.e2e

TOKEN = "ops-metrics-token"
MOVES = 12  # actions per player before one resigns

SETUP = """
import json
from django.conf import settings
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
from django.contrib.sessions.backends.db import SessionStore
from accounts.models import User
from games import services
a = User.objects.create_user("opsa", password="x-ops-1")
b = User.objects.create_user("opsb", password="x-ops-1")
m = services.match_create(ruleset="classic", players=2, mode="friendly", host=a, first=0)
cookies = []
for u in (a, b):
    s = SessionStore()
    s[SESSION_KEY] = str(u.pk)
    s[BACKEND_SESSION_KEY] = settings.AUTHENTICATION_BACKENDS[0]
    s[HASH_SESSION_KEY] = u.get_session_auth_hash()
    s.create()
    cookies.append(f"{settings.SESSION_COOKIE_NAME}={s.session_key}")
print("ROOM", json.dumps({"code": m.code, "cookies": cookies}))
"""
JOIN = """
from accounts.models import User
from games import services
services.match_join(code={code!r}, user=User.objects.get(username="opsb"))
"""


def get(url: str, headers: dict[str, str] | None = None, data: bytes | None = None) -> Any:
    """(status, headers, body, seconds) of one request; an HTTP error is an answer too."""
    request = urllib.request.Request(url, data=data, headers=headers or {})
    began = time.monotonic()
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status, response.headers, response.read(), time.monotonic() - began
    except urllib.error.HTTPError as e:
        return e.code, e.headers, e.read(), time.monotonic() - began


def scrape(base: str) -> str:
    status, _, body, _ = get(base + "/metrics", {"Authorization": f"Bearer {TOKEN}"})
    assert status == 200, body[:300]
    return body.decode()


def until(what: str, check: Any, timeout: float) -> Any:
    end = time.monotonic() + timeout
    last = None
    while time.monotonic() < end:
        last = check()
        if last:
            return last
        time.sleep(0.3)
    raise AssertionError(f"{what}: not within {timeout} s (last: {last!r})")


def readyz(base: str, want: int, rid: str = "") -> Any:
    """The probe as the operator reads it (with the metrics token: the checks named)."""
    headers = {"Authorization": f"Bearer {TOKEN}", **({"X-Request-ID": rid} if rid else {})}
    status, _, body, took = get(base + "/readyz", headers)
    return (status, json.loads(body), took) if status == want else None


def total(text: str, name: str, label: str, values: list[str]) -> float:
    return sum(value(text, name, **{label: v}) for v in values)


def test_endpoints_metrics_and_readiness_on_the_production_stack(tmp_path: Path) -> None:
    if not os.environ.get("DATABASE_URL", "").startswith(("postgres://", "postgresql://")):
        pytest.skip("the production stack's tests run with DATABASE_URL on PostgreSQL")
    redis, pg = OwnRedis(tmp_path / "redis"), OwnPostgres()
    metrics_dir = tmp_path / "metrics"
    metrics_dir.mkdir()
    redis.start()
    pg.start()
    env = {
        "PROMETHEUS_MULTIPROC_DIR": str(metrics_dir),
        "METRICS_TOKEN": TOKEN,
        "LOG_FORMAT": "json",
    }
    try:
        with Stack(
            pg.url, redis.url, tmp_path / "stack", name="ops", setup=SETUP, env=env
        ) as stack:
            base = stack.urls[0]
            room = json.loads(stack.printed.split("ROOM", 1)[1])
            check_endpoints(stack, base, room)
            check_hardening(stack, base, room["code"])
            check_outages(stack, base, redis, pg)
    finally:
        pg.remove()
        redis.stop()


def check_endpoints(stack: Stack, base: str, room: dict[str, Any]) -> None:
    status, _, body, _ = get(base + "/healthz")
    assert status == 200 and json.loads(body) == {"status": "ok"}
    ready = until("readyz 200 (the Celery worker and beat seen)", lambda: readyz(base, 200), 90)
    assert ready[1]["down"] == [] and ready[1]["checks"]["celery_beat"] == "ok"
    assert get(base + "/metrics")[0] == 403  # neither the token nor an allowed address

    before = scrape(base)
    assert value(before, "ludo_rooms", status="waiting") == 1
    stack.manage("shell", "-c", JOIN.format(code=room["code"]))
    joined = scrape(base)
    assert value(joined, "ludo_rooms", status="live") == 1
    assert value(joined, "ludo_rooms", status="waiting") == 0

    seen: dict[str, float] = {"sockets": 0.0}
    stop = threading.Event()

    def watch() -> None:
        while not stop.is_set():
            with_sockets = value(scrape(base), "ludo_sockets_open")
            seen["sockets"] = max(seen["sockets"], with_sockets)
            time.sleep(0.3)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    players = [
        Player(base, room["code"], cookie, corner, MOVES)
        for corner, cookie in zip((0, 2), room["cookies"], strict=True)
    ]

    async def play() -> None:
        deadline = time.monotonic() + 240
        await asyncio.gather(*(p.play(deadline) for p in players))

    asyncio.run(play())
    stop.set()
    watcher.join(timeout=30)
    assert all(p.over() for p in players), [p.state.get("status") for p in players]

    def closed() -> str | None:
        text = scrape(base)
        return text if value(text, "ludo_sockets_open") == 0 else None

    after = until("the sockets closed", closed, 30)
    acted = sum(p.acted for p in players) + 1  # and the resign
    kinds = ["roll", "move", "resign"]
    actions = total(after, "ludo_actions_total", "kind", kinds) - total(
        before, "ludo_actions_total", "kind", kinds
    )
    frames = total(after, "ludo_socket_frames_total", "t", kinds) - total(
        before, "ludo_socket_frames_total", "t", kinds
    )
    opened = value(after, "ludo_sockets_opened_total", route="match") - value(
        before, "ludo_sockets_opened_total", route="match"
    )
    print(
        f"\nops stack: {acted} actions sent, {actions:.0f} counted, {frames:.0f} frames, "
        f"{opened:.0f} sockets opened, at most {seen['sockets']:.0f} open"
    )
    assert seen["sockets"] >= 2  # both players' sockets, from either uvicorn worker process
    assert opened >= 2
    assert actions >= acted and frames >= actions  # each frame an action handed on (or more)
    assert value(after, "ludo_actions_total", kind="resign") >= 1
    # Every action is followed by its update, or refused with an error frame (`pause`: the
    # other player acted in the pause after a roll no pawn could use).
    updates = value(after, "ludo_update_latency_seconds_count") - value(
        before, "ludo_update_latency_seconds_count"
    )
    errors = sum(
        float(line.rpartition(" ")[2]) for line in after.splitlines()
        if line.startswith("ludo_error_frames_total{")
    ) - sum(
        float(line.rpartition(" ")[2]) for line in before.splitlines()
        if line.startswith("ludo_error_frames_total{")
    )  # fmt: skip
    print(f"ops stack: {updates:.0f} action-to-update times, {errors:.0f} error frames")
    assert updates >= 1 and updates + errors >= actions - 1
    assert value(after, "ludo_rooms", status="live") == 0
    assert value(after, "ludo_celery_tasks_total", task="games.sweep_clocks", state="success") > 0
    assert value(after, "ludo_http_responses_total", code="403") >= 1
    assert value(after, "ludo_db_pool_connections", state="idle") >= 1
    assert "ludo_clock_lag_seconds" in after and "ludo_celery_seen_seconds" in after


def check_hardening(stack: Stack, base: str, code: str) -> None:
    from websockets.exceptions import ConnectionClosed
    from websockets.sync.client import connect

    with connect(base.replace("http", "ws") + f"/ws/match/{code}/", origin=base) as ws:  # type: ignore[arg-type]
        ws.send(json.dumps({"t": "resync", "pad": "x" * 100_000}))
        with pytest.raises(ConnectionClosed) as closed:
            while True:
                ws.recv(timeout=30)
        assert closed.value.rcvd is None or closed.value.rcvd.code == 1009
        assert closed.value.sent is None or closed.value.sent.code in (1009, 1000)
    body = b'{"t": "roll", "pad": "' + b"x" * (20 * 1024 * 1024) + b'"}'
    status, headers, answer, _ = get(
        base + f"/api/matches/{code}/actions", {"Content-Type": "application/json"}, body
    )
    assert status == 413 and headers["Content-Type"] == "application/json", answer[:300]
    assert json.loads(answer)["code"] == "too_large"
    assert "script-src 'self'" in get(base + "/")[1]["Content-Security-Policy"]
    assert "Traceback" not in stack.log("uvicorn0")


def check_outages(stack: Stack, base: str, redis: OwnRedis, pg: OwnPostgres) -> None:
    for name, server in (("redis", redis), ("database", pg)):
        rid = f"ops-probe-{uuid.uuid4().hex[:12]}"
        server.stop()
        try:
            check_down(stack, base, name, rid)
        finally:
            server.start()  # also on a failure: the stack's database is dropped at its end
        back = until(f"readyz 200 with {name} back", lambda: readyz(base, 200), 120)
        print(f"ops stack: {name} back: /readyz 200 ({back[2]:.2f} s)")


def check_down(stack: Stack, base: str, name: str, rid: str) -> None:
    status, body, took = until(
        f"readyz 503 with {name} stopped", lambda rid=rid: readyz(base, 503, rid), 20
    )
    print(f"\nops stack: {name} stopped: /readyz 503 in {took:.2f} s, down: {body['down']}")
    assert name in body["down"], body
    assert took < 5, took  # READY_TIMEOUT is 0.8 s; the machine's load adds to it
    line = until(
        "the JSON log line with the probe's request id",
        lambda rid=rid: next(
            (
                json.loads(line)
                for line in stack.log("uvicorn0").splitlines()
                if rid in line and line.startswith("{")
            ),
            None,
        ),
        10,
    )
    assert line["request_id"] == rid and line["logger"] == "ludo.ops"
    assert "not ready" in line["message"] and name in line["message"]
