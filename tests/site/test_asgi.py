"""The ASGI app imports and routes HTTP and WebSocket traffic."""

import pytest
from channels.routing import ProtocolTypeRouter
from channels.testing import HttpCommunicator, WebsocketCommunicator

from ludo_site.asgi import application


def test_asgi_application_is_a_protocol_router() -> None:
    assert isinstance(application, ProtocolTypeRouter)
    assert set(application.application_mapping) == {"http", "websocket"}


@pytest.mark.asyncio
async def test_http_home_page_through_asgi() -> None:
    communicator = HttpCommunicator(application, "GET", "/", headers=[(b"host", b"localhost")])
    response = await communicator.get_response()
    assert response["status"] == 200
    assert b"Play Ludo online" in response["body"]


@pytest.mark.asyncio
@pytest.mark.django_db  # channels checks its database thread's connection on every call
async def test_websocket_from_a_foreign_origin_is_refused() -> None:
    communicator = WebsocketCommunicator(
        application, "/ws/match/ABCD/", headers=[(b"origin", b"http://evil.example")]
    )
    connected, _ = await communicator.connect()
    assert not connected
    await communicator.disconnect()
