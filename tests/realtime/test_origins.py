"""The WebSocket origin check compares scheme, host and port (issue 12: the host alone)."""

from __future__ import annotations

from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator

from accounts.models import User
from ludo_site.asgi import application

from .conftest import session_cookie, two_player


async def opens(
    code: str, user: User, origin: str | None, host: str = "localhost", scheme: str = "ws"
) -> bool:
    headers = [(b"host", host.encode())]
    if origin is not None:
        headers.append((b"origin", origin.encode()))
    headers.append((b"cookie", (await database_sync_to_async(session_cookie)(user)).encode()))
    ws = WebsocketCommunicator(application, f"/ws/match/{code}/", headers=headers)
    ws.scope["scheme"] = scheme
    connected, _ = await ws.connect()
    if connected:
        await ws.disconnect()
    return bool(connected)


@pytest.mark.asyncio
async def test_origin_must_be_the_sites_own_scheme_host_and_port(
    alice: User, bob: User, settings: Any
) -> None:
    settings.ALLOWED_HOSTS = ["localhost", "ludo.example"]
    settings.CSRF_TRUSTED_ORIGINS = ["https://ludo.example"]
    code = (await database_sync_to_async(two_player)(alice, bob)).code
    assert await opens(code, alice, "http://localhost")
    assert await opens(code, alice, "http://localhost:8000", host="localhost:8000")
    assert await opens(code, alice, "https://localhost", scheme="wss")
    # Same host, another port or scheme: another origin (another site on the machine).
    assert not await opens(code, alice, "http://localhost:8000")
    assert not await opens(code, alice, "http://localhost:9000", host="localhost:8000")
    assert not await opens(code, alice, "https://localhost")
    assert not await opens(code, alice, "http://localhost", scheme="wss")
    # The trusted https origin behind a proxy that ends TLS (the socket comes in as ws).
    assert await opens(code, alice, "https://ludo.example", host="ludo.example")
    assert not await opens(code, alice, "https://ludo.example:8443", host="ludo.example")
    assert not await opens(code, alice, "http://ludo.example:443", host="ludo.example")
    # Foreign, missing or malformed origins, and hosts the site does not serve.
    assert not await opens(code, alice, "http://evil.example")
    assert not await opens(code, alice, None)
    assert not await opens(code, alice, "null")
    assert not await opens(code, alice, "http://evil.example", host="evil.example")
