"""uvicorn's own log configuration (ops/uvicorn_logging.json, which the README's command
passes to uvicorn) writes in the format LOG_FORMAT names, and no line or traceback carries a
room ticket or a session. The production stack's run: tests/ops/test_stack_edge.py."""

from __future__ import annotations

import io
import json
import logging
import logging.config
from collections.abc import Iterator

import pytest
from django.conf import settings

from tests.stack import ROOT

CONFIG = ROOT / "ops" / "uvicorn_logging.json"


@pytest.fixture
def uvicorn_error() -> Iterator[logging.Logger]:
    """uvicorn's error logger; the site's logging put back afterwards."""
    yield logging.getLogger("uvicorn.error")
    logging.config.dictConfig(settings.LOGGING)
    access = logging.getLogger("uvicorn.access")  # which the site's logging leaves alone
    access.handlers, access.propagate = [], True


@pytest.mark.parametrize("log_format", ["json", "plain"])
def test_uvicorns_lines_in_the_sites_format_without_credentials(
    log_format: str, uvicorn_error: logging.Logger, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LOG_FORMAT", log_format)
    logging.config.dictConfig(json.loads(CONFIG.read_text()))
    (handler,) = uvicorn_error.handlers
    assert isinstance(handler, logging.StreamHandler)
    out = io.StringIO()
    handler.setStream(out)
    path = "/ws/match/ABC123/?ticket=WzEsIkFCQyJd:1kX:sig&lang=en"
    uvicorn_error.info('%s - "WebSocket %s" [accepted]', "127.0.0.1:5000", path)
    try:
        raise ConnectionError(f"lost {path} with sessionid=s3cr3t")
    except ConnectionError:
        uvicorn_error.exception("socket failed")
    text = out.getvalue()
    assert "WzEsIkFCQyJd" not in text and "s3cr3t" not in text, text
    assert "lang=en" in text and "ticket=[redacted]" in text
    lines = text.splitlines()
    if log_format == "json":
        first, second = json.loads(lines[0]), json.loads("\n".join(lines[1:]))
        assert first["logger"] == "uvicorn.error" and "[accepted]" in first["message"]
        assert "ConnectionError" in second["exc"]
    else:
        assert " INFO uvicorn.error: " in lines[0]
