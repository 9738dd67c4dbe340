"""The edge on the production stack (`tests.stack`: the README's uvicorn command, two worker
processes, DEBUG off, PostgreSQL, Redis, Celery), one stack for all of it:

- error reports: a fake Sentry listener on loopback (``SENTRY_DSN`` points at it) receives
  nothing from a sign-up, a password change, a dispute, a report and 100 plain requests, and
  exactly one event for a view that raises, with no password, email, token, ticket or player
  text in any envelope;
- bodies over ``MAX_BODY_BYTES`` refused before Django reads them: a declared 256 MiB body at
  once, a chunked 20 MiB one once it passes the limit (the styled page for a form, the JSON
  ``too_large`` for the API), no traceback;
- a forged ``X-Forwarded-For`` changes nothing: ``/metrics`` stays closed to an address it
  names, the per-address sign-up limit holds, the audit log has the real address;
- ``LOG_FORMAT=json``: every line uvicorn writes is JSON, and no ticket or session is in any
  log.
"""

from __future__ import annotations

import gzip
import http.cookiejar
import json
import re
import select
import socket
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from tests.stack import Stack, free_port, is_postgres

pytestmark = pytest.mark.e2e

TOKEN = "edge-metrics-token"
ALLOWED = "10.9.8.7"  # METRICS_ALLOW: the address a forged header names
PASSWORD = "Pw-edge-Secret-41"
NEW_PASSWORD = "Pw-edge-Secret-42"
EMAIL = "edge.player@example.org"
DISPUTE_TEXT = "edge-dispute-text-the-dice-were-odd"
REPORT_NOTE = "edge-report-note-played-like-a-bot"

SETUP = """
import json
from django.conf import settings
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
from django.contrib.sessions.backends.db import SessionStore
from accounts.models import User
from games import services
host = User.objects.create_user("edgehost", password="x-edge-1")
User.objects.create_user("edgeother", password="x-edge-1")
m = services.match_create(ruleset="classic", players=2, mode="friendly", host=host, first=0)
s = SessionStore()
s[SESSION_KEY] = str(host.pk)
s[BACKEND_SESSION_KEY] = settings.AUTHENTICATION_BACKENDS[0]
s[HASH_SESSION_KEY] = host.get_session_auth_hash()
s.create()
print("EDGE", json.dumps({"code": m.code, "session": s.session_key}))
"""
AUDIT_IPS = """
from audit.models import AuditEntry
print("IPS", sorted({str(e.ip) for e in AuditEntry.objects.filter(action="user.signed_up")}))
"""


class Listener:
    """A fake Sentry on loopback: every envelope posted to it, decompressed."""

    def __init__(self) -> None:
        self.envelopes: list[str] = []
        envelopes = self.envelopes

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                encoding = (self.headers.get("Content-Encoding") or "").lower()
                if encoding == "gzip":
                    raw = gzip.decompress(raw)
                elif encoding == "deflate":
                    raw = zlib.decompress(raw)
                elif encoding == "br":
                    import brotli  # type: ignore[import-not-found]

                    raw = brotli.decompress(raw)
                envelopes.append(raw.decode("utf-8", "replace"))
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.end_headers()
                self.wfile.write(b"{}")

            def log_message(self, *args: Any) -> None:
                pass

        self.port = free_port()
        self.server = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def events(self) -> list[dict[str, Any]]:
        """The error events in the envelopes so far (an envelope: a header line, then item
        headers each followed by their payload)."""
        found = []
        for envelope in self.envelopes:
            lines = envelope.split("\n")[1:]
            for header, payload in zip(lines[::2], lines[1::2], strict=False):
                if json.loads(header).get("type") == "event":
                    found.append(json.loads(payload))
        return found

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


class Browser:
    """Cookies kept, redirects followed, an HTTP error read as an answer; every request sent
    with a forged X-Forwarded-For when `forged` is given."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar))

    def cookie(self, name: str) -> str:
        return next((c.value or "" for c in self.jar if c.name == name), "")

    def open(
        self,
        path: str,
        fields: dict[str, str] | None = None,
        headers: dict[str, str] | None = None,
    ) -> tuple[int, str]:
        data = urllib.parse.urlencode(fields).encode() if fields is not None else None
        request = urllib.request.Request(self.base + path, data=data, headers=headers or {})
        try:
            with self.opener.open(request, timeout=60) as response:
                return response.status, response.read().decode("utf-8", "replace")
        except urllib.error.HTTPError as e:
            return e.code, e.read().decode("utf-8", "replace")

    def form(
        self, path: str, fields: dict[str, str], headers: dict[str, str] | None = None
    ) -> tuple[int, str]:
        """GET the form's page for its CSRF token, then POST `fields` with it."""
        status, page = self.open(path, headers=headers)
        assert status == 200, (path, status, page[:300])
        found = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page)
        assert found, path
        token = found.group(1)
        sent = {"csrfmiddlewaretoken": token, **fields}
        return self.open(path, sent, {"X-CSRFToken": token, **(headers or {})})


def sign_up(browser: Browser, name: str, forged: str) -> int:
    fields = {
        "username": name,
        "display_name": "",
        "email": f"{name}.{EMAIL}",
        "password1": PASSWORD,
        "password2": PASSWORD,
        "terms": "on",
    }
    status, page = browser.form("/accounts/signup/", fields, {"X-Forwarded-For": forged})
    assert status in (200, 429), (status, page[:500])
    if status == 200:
        assert "errorlist" not in page, page[:2000]
    return status


def raw_request(port: int, head: str, chunks: int = 0, size: int = 64 * 1024) -> bytes:
    """`head` sent on a socket of its own, then up to `chunks` chunks of `size` bytes (chunked
    encoding) while the server has not answered: its answer."""
    with socket.create_connection(("127.0.0.1", port), timeout=30) as s:
        s.sendall(head.encode())
        piece = f"{size:x}\r\n".encode() + b"x" * size + b"\r\n"
        try:
            for _ in range(chunks):
                if select.select([s], [], [], 0)[0]:
                    break  # answered: stop sending
                s.sendall(piece)
            else:
                if chunks:
                    s.sendall(b"0\r\n\r\n")
        except (BrokenPipeError, ConnectionResetError):
            pass
        answer = b""
        end = time.monotonic() + 30
        while time.monotonic() < end:
            try:
                part = s.recv(65536)
            except (ConnectionResetError, TimeoutError):
                break
            if not part:
                break
            answer += part
            if b"\r\n\r\n" in answer:
                head_part, _, body = answer.partition(b"\r\n\r\n")
                length = re.search(rb"(?i)content-length:\s*(\d+)", head_part)
                if length and len(body) >= int(length.group(1)):
                    break
    return answer


def test_the_edge_on_the_production_stack(tmp_path: Path) -> None:
    import os

    database, redis_url = os.environ.get("DATABASE_URL", ""), os.environ.get("REDIS_URL", "")
    if not is_postgres(database) or not redis_url:
        pytest.skip("the production stack's tests run on PostgreSQL and Redis")
    listener = Listener()
    env = {
        "DJANGO_SETTINGS_MODULE": "tests.ops.edge_settings",
        "SENTRY_DSN": f"http://edgekey@127.0.0.1:{listener.port}/1",
        "LOG_FORMAT": "json",
        "METRICS_TOKEN": TOKEN,
        "METRICS_ALLOW": ALLOWED,
        "SIGN_UPS_PER_IP": "3",
    }
    try:
        with Stack(
            database, redis_url, tmp_path / "stack", name="edge", setup=SETUP, env=env
        ) as stack:
            given = json.loads(stack.printed.split("EDGE", 1)[1])
            check_error_reports(stack, listener, given["code"])
            check_forwarded(stack)
            check_bodies(stack)
            check_logs(stack, given)
    finally:
        listener.close()


def check_error_reports(stack: Stack, listener: Listener, code: str) -> None:
    base = stack.urls[0]
    browser = Browser(base)
    assert sign_up(browser, "edgesigner", "198.51.100.1") == 200
    status, page = browser.form(
        "/accounts/password/",
        {"old_password": PASSWORD, "new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD},
    )
    assert status == 200 and "errorlist" not in page, page[:2000]
    status, _ = browser.form(
        "/fairplay/report/edgeother/", {"reason": "assisted", "note": REPORT_NOTE}
    )
    assert status == 200
    # The form's page for a match still being played sends the player back to the room; the
    # body goes the same way as a dispute's.
    token = browser.cookie("csrftoken")
    status, _ = browser.open(
        f"/disputes/new/{code}/",
        {"csrfmiddlewaretoken": token, "reason": "dice", "text": DISPUTE_TEXT, "turn": "1"},
        {"X-CSRFToken": token},
    )
    assert status == 200
    for i in range(100):
        path = ("/", "/healthz", "/rules/", "/leaderboards/", "/accounts/")[i % 5]
        status, _ = browser.open(path)
        assert status == 200, (path, status)
    time.sleep(3)  # the servers' Sentry transports send within a second
    assert listener.events() == [], [e.get("exception") for e in listener.events()]

    session = browser.cookie("sessionid")
    csrf = browser.cookie("csrftoken")
    assert session and csrf
    fields = {
        "password1": PASSWORD,
        "old_password": PASSWORD,
        "new_password1": NEW_PASSWORD,
        "email": EMAIL,
        "text": DISPUTE_TEXT,
        "note": REPORT_NOTE,
        "csrfmiddlewaretoken": csrf,
    }
    status, _ = browser.open(
        "/edge-boom/?ticket=edge-ticket-in-the-address",
        fields,
        {"X-CSRFToken": csrf, "Authorization": f"Bearer {TOKEN}"},
    )
    assert status == 500

    def reported() -> list[dict[str, Any]]:
        return [e for e in listener.events() if "edge probe fault" in json.dumps(e)]

    end = time.monotonic() + 20
    while not reported() and time.monotonic() < end:
        time.sleep(0.2)
    time.sleep(1)
    assert len(reported()) == 1, len(reported())
    assert len(listener.events()) == 1, [e.get("exception") for e in listener.events()]
    everything = "\n".join(listener.envelopes)
    for secret in (
        PASSWORD,
        NEW_PASSWORD,
        EMAIL,
        "example.org",
        DISPUTE_TEXT,
        REPORT_NOTE,
        session,
        csrf,
        TOKEN,
        "edge-ticket-in-the-address",
    ):
        assert secret not in everything, secret
    print(f"\nedge stack: {len(listener.envelopes)} envelopes, 1 event, no secret in them")


def check_forwarded(stack: Stack) -> None:
    base = stack.urls[0]
    browser = Browser(base)
    forged = {"X-Forwarded-For": ALLOWED}
    assert browser.open("/metrics", headers=forged)[0] == 403
    status, _ = browser.open("/metrics", headers={"Authorization": f"Bearer {TOKEN}"})
    assert status == 200
    # One account from 127.0.0.1 already (the reports' check); SIGN_UPS_PER_IP is 3.
    answers = [
        sign_up(Browser(base), f"edgeforged{i}", f"203.0.113.{i}, 198.51.100.{i}") for i in range(3)
    ]
    assert answers == [200, 200, 429], answers
    ips = stack.manage("shell", "-c", AUDIT_IPS).split("IPS", 1)[1].strip()
    assert ips == "['127.0.0.1']", ips


def check_bodies(stack: Stack) -> None:
    port = int(stack.urls[0].rsplit(":", 1)[1])
    began = time.monotonic()
    answer = raw_request(
        port,
        "POST /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/octet-stream\r\n"
        f"Content-Length: {256 * 1024 * 1024}\r\n\r\n",
    )
    took = time.monotonic() - began
    assert answer.startswith(b"HTTP/1.1 413"), answer[:300]
    assert b"text/html" in answer and b"<h1>" in answer
    assert b"connection: close" in answer.lower()  # past what is drained: cut off
    assert took < 10, took  # answered without waiting for the body
    form = (
        "POST /accounts/signup/ HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept-Language: de\r\n"
        "Content-Type: application/x-www-form-urlencoded\r\nTransfer-Encoding: chunked\r\n\r\n"
    )
    answer = raw_request(port, form, chunks=320)
    assert answer.startswith(b"HTTP/1.1 413"), answer[:300]
    assert b"text/html" in answer and b'lang="de"' in answer, answer[:600]
    api = (
        "POST /api/matches/XXXXXX/actions HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
    )
    answer = raw_request(port, api, chunks=320)
    assert answer.startswith(b"HTTP/1.1 413"), answer[:300]
    body = json.loads(answer.partition(b"\r\n\r\n")[2])
    assert body["code"] == "too_large", body
    # The only traceback is the probe's fault (the error reports' check).
    faults = [line for line in stack.log("uvicorn0").splitlines() if "Traceback" in line]
    assert all("/edge-boom/" in line for line in faults), faults


def check_logs(stack: Stack, given: dict[str, str]) -> None:
    from websockets.sync.client import connect

    base = stack.urls[0]
    code, session = given["code"], given["session"]
    browser = Browser(base)
    request = urllib.request.Request(
        f"{base}/r/{code}/", headers={"Cookie": f"sessionid={session}"}
    )
    with browser.opener.open(request, timeout=30) as response:
        page = response.read().decode()
    found = re.search(r'"ws": "([^"]+)"', page)
    assert found, page[:2000]
    path = found.group(1).replace("\\u0026", "&")
    ticket = urllib.parse.parse_qs(urllib.parse.urlsplit(path).query)["ticket"][0]
    with connect(base.replace("http", "ws") + path, origin=base) as ws:  # type: ignore[arg-type]
        first = json.loads(ws.recv(timeout=30))
        assert first.get("t") != "error", first
    time.sleep(1)
    lines = stack.log("uvicorn0").splitlines()
    plain = [line for line in lines if not line.startswith("{")]
    assert not plain, plain[:10]
    for line in lines:
        json.loads(line)
    assert any('"logger": "uvicorn.error"' in line for line in lines)
    assert not any('"logger": "uvicorn.access"' in line for line in lines)  # --no-access-log
    assert any("WebSocket /ws/match/" in line for line in lines), lines[-20:]
    for name in ("uvicorn0", "worker", "beat"):
        text = stack.log(name)
        assert ticket not in text and ticket.split(":")[0] not in text, name
        assert session not in text, name
    print(f"edge stack: {len(lines)} uvicorn lines, every one JSON, no ticket or session")
