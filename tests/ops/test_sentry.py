"""SENTRY_DSN turns on sentry-sdk with its Django, Celery and asyncio integrations and no
personal data (issue 28): in a process of its own (sentry-sdk patches Django for good), a
view's exception is reported through a transport that keeps the envelopes, without the user,
their address or cookies; and `ops.sentry.scrub` keeps request bodies, secrets and players'
texts out of every event (the production stack's run: tests/ops/test_stack_edge.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from tests.stack import ROOT

SCRIPT = r"""
import json, os, sys
import django
os.environ["DJANGO_SETTINGS_MODULE"] = "ludo_site.settings"
django.setup()
import sentry_sdk
from sentry_sdk.transport import Transport
from django.conf import settings
from django.test import Client
from django.test.utils import override_settings
from django.urls import include, path

sent = []
class Keep(Transport):
    def capture_envelope(self, envelope):
        for item in envelope.items:
            if item.type == "event":
                sent.append(item.payload.json)

client = sentry_sdk.get_client()
client.transport = Keep(client.options)

def boom(request):
    raise RuntimeError("ops sentry probe")

sys.modules[__name__].urlpatterns = [path("boom/", boom)]
with override_settings(
    ROOT_URLCONF=__name__, DEBUG=False, ALLOWED_HOSTS=["testserver"],
    SESSION_ENGINE="django.contrib.sessions.backends.signed_cookies",
):
    c = Client(raise_request_exception=False)
    c.cookies["sessionid"] = "secret-session"
    assert c.get("/boom/", HTTP_X_FORWARDED_FOR="203.0.113.9").status_code == 500
sentry_sdk.flush(5)
print("RESULT", json.dumps({
    "pii": client.options["send_default_pii"],
    "integrations": sorted(client.integrations),
    "events": sent,
}))
"""


def test_sentry_reports_a_views_error_without_personal_data() -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST", "DJANGO_SET"))}
    env.update(SENTRY_DSN="http://public@127.0.0.1:9/1", PYTHONPATH=str(ROOT))
    env.pop("SENTRY_SEND_PII", None)
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT], cwd=ROOT, env=env, capture_output=True, text=True,
        timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    result = json.loads(done.stdout.split("RESULT", 1)[1])
    assert result["pii"] is False
    assert {"django", "celery", "asyncio"} <= set(result["integrations"])
    (event,) = [e for e in result["events"] if "ops sentry probe" in json.dumps(e)]
    text = json.dumps(event)
    assert "secret-session" not in text and "203.0.113.9" not in text
    assert "ip_address" not in json.dumps(event.get("user", {}))
    assert "vars" not in text  # no local variables from the frames


def test_an_event_leaves_with_no_body_secret_or_player_text() -> None:
    from django.core.exceptions import RequestAborted

    from ops.sentry import scrub

    event = {
        "request": {
            "url": "http://site/ws/match/ABC/",
            "query_string": "ticket=t0k3n.abc:1&lang=en",
            "data": {"password1": "pw-1", "text": "my dispute", "note": "my report"},
            "cookies": {"sessionid": "s-1"},
            "headers": {"X-CSRFToken": "c-1", "User-Agent": "ua", "Cookie": "sessionid=s-1"},
        },
        "user": {"id": 7, "email": "a@example.org"},
        "extra": {"new_password2": "pw-2", "Old-Password": "pw-3", "why": "mail a@example.org"},
        "exception": {"values": [{"type": "RuntimeError", "value": "boom"}]},
    }
    text = json.dumps(scrub(json.loads(json.dumps(event)), {}))
    for secret in ("pw-1", "pw-2", "pw-3", "my dispute", "my report", "s-1", "c-1", "t0k3n"):
        assert secret not in text, secret
    assert "example.org" not in text and '"user"' not in text
    assert '"boom"' in text and '"ua"' in text and "lang=en" in text
    # With bodies asked for, a body goes, its secrets still blanked.
    kept = scrub(json.loads(json.dumps(event)), {}, send_bodies=True)
    assert kept is not None
    assert kept["request"]["data"] == {
        "password1": "[Filtered]",
        "text": "my dispute",
        "note": "my report",
    }
    # A client that went away is no fault.
    aborted = {"exc_info": (RequestAborted, RequestAborted(), None)}
    assert scrub({"exception": {}}, aborted) is None
