"""With DEBUG off a 500 leaves a line with its path and traceback on standard error (issue 12:
it left nothing), and a dependency that is down answers a clear 503, not a 500."""

from __future__ import annotations

import io
import logging.config
import sys
from collections.abc import Iterator
from typing import Any

import pytest
from django.db import OperationalError
from django.http import HttpRequest, HttpResponse
from django.test import Client
from django.urls import include, path

pytestmark = pytest.mark.django_db


def broken(request: HttpRequest) -> HttpResponse:
    raise RuntimeError("a bug in a view")


def database_down(request: HttpRequest) -> HttpResponse:
    raise OperationalError("connection to server failed: Connection refused")


urlpatterns = [
    path("boom/", broken),
    path("api/down", database_down),
    path("down/", database_down),
    path("", include("ludo_site.urls")),
]


class Stderr:
    """What the settings' standard-error handler wrote."""

    def __init__(self) -> None:
        self.buffer = io.StringIO()

    def read(self) -> str:
        text = self.buffer.getvalue()
        self.buffer.seek(0)
        self.buffer.truncate()
        return text


@pytest.fixture
def stderr(settings: Any) -> Iterator[Stderr]:
    settings.DEBUG = False
    settings.ROOT_URLCONF = __name__
    logging.config.dictConfig(settings.LOGGING)
    out = Stderr()
    handlers = {h for name in ("", "django.request") for h in logging.getLogger(name).handlers}
    for handler in handlers:
        assert isinstance(handler, logging.StreamHandler)
        handler.setStream(out.buffer)  # the settings' handler, writing here instead
    yield out
    for handler in handlers:
        handler.setStream(sys.stderr)


@pytest.fixture
def production(stderr: Stderr) -> Client:
    return Client(raise_request_exception=False)


def test_a_500_is_logged_with_path_and_traceback(production: Client, stderr: Stderr) -> None:
    assert production.get("/boom/").status_code == 500
    err = stderr.read()
    assert "Internal Server Error: /boom/" in err
    assert "Traceback" in err and "RuntimeError: a bug in a view" in err


def test_a_404_is_not_logged_as_an_error(production: Client, stderr: Stderr) -> None:
    assert production.get("/no-such-page/").status_code == 404
    assert "no-such-page" not in stderr.read()


def test_a_dependency_down_is_a_clear_503(production: Client, stderr: Stderr) -> None:
    api = production.get("/api/down")
    assert api.status_code == 503 and api["Retry-After"]
    assert api.json()["code"] == "unavailable" and "database" in api.json()["message"]
    page = production.get("/down/")
    assert page.status_code == 503 and b"try again" in page.content
    err = stderr.read()
    assert "Unavailable (OperationalError): /api/down" in err and "Traceback" in err
