"""A frame prepared for a client that has just gone is dropped, not an error in the server log
(uvicorn refuses a send on a closed socket); any other failure still surfaces."""

from __future__ import annotations

import pytest

from games.live.consumers import MatchConsumer


def consumer_whose_send_raises(exc: BaseException) -> MatchConsumer:
    consumer = MatchConsumer()
    consumer.channel_name = "test.channel"

    async def base_send(message: dict) -> None:
        raise exc

    consumer.base_send = base_send
    return consumer


@pytest.mark.asyncio
@pytest.mark.parametrize(
    "exc",
    [
        RuntimeError(
            "Unexpected ASGI message 'websocket.send', after sending 'websocket.close' or "
            "response already completed."
        ),
        ConnectionResetError("client went away"),
    ],
)
async def test_a_send_to_a_closed_socket_is_dropped(exc: BaseException) -> None:
    await consumer_whose_send_raises(exc).send(text_data="{}")


@pytest.mark.asyncio
async def test_other_send_failures_surface() -> None:
    with pytest.raises(RuntimeError, match="something else"):
        await consumer_whose_send_raises(RuntimeError("something else")).send(text_data="{}")
