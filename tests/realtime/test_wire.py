"""The wire format: every client frame is parsed or refused with a code, never half-read."""

import json

import pytest

from games.live.wire import MAX_FRAME_BYTES, Intent, RateLimit, WireError, frame, parse


def refused(text: str | None, data: bytes | None = None) -> str:
    with pytest.raises(WireError) as info:
        parse(text, data)
    return info.value.code


def test_roll_and_move_frames() -> None:
    assert parse('{"t":"roll","v":7,"id":"a1"}') == Intent("roll", 7, "a1")
    assert parse('{"t":"roll","v":7,"id":"a1","d":{"bonus":"control","face":6}}') == Intent(
        "roll", 7, "a1", bonus="control", face=6
    )
    assert parse('{"t":"move","v":9,"id":"b","d":{"pawn":3,"corner":2,"shield":true}}') == Intent(
        "move", 9, "b", pawn=3, corner=2, shield=True
    )
    assert parse('{"t":"resign"}') == Intent("resign")
    assert parse('{"t":"resync"}') == Intent("resync")


@pytest.mark.parametrize(
    "text",
    [
        "not json",
        "[1, 2]",
        '"roll"',
        "{}",
        '{"t": "dance"}',
        '{"t": 5}',
        '{"t": "roll", "id": "x"}',  # no v
        '{"t": "roll", "v": "3", "id": "x"}',
        '{"t": "roll", "v": -1, "id": "x"}',
        '{"t": "roll", "v": true, "id": "x"}',
        '{"t": "roll", "v": 3}',  # no id
        '{"t": "roll", "v": 3, "id": ""}',
        '{"t": "roll", "v": 3, "id": 12}',
        '{"t": "roll", "v": 3, "id": "' + "x" * 65 + '"}',
        '{"t": "roll", "v": 3, "id": "x", "d": {"bonus": "teleport"}}',
        '{"t": "roll", "v": 3, "id": "x", "d": {"face": 7}}',
        '{"t": "roll", "v": 3, "id": "x", "d": [1]}',
        '{"t": "move", "v": 3, "id": "x"}',  # no pawn
        '{"t": "move", "v": 3, "id": "x", "d": {"pawn": 4}}',
        '{"t": "move", "v": 3, "id": "x", "d": {"pawn": true}}',
        '{"t": "move", "v": 3, "id": "x", "d": {"pawn": 1.5}}',
        '{"t": "move", "v": 3, "id": "x", "d": {"pawn": 1, "corner": 9}}',
        '{"t": "move", "v": 3, "id": "x", "d": {"pawn": 1, "shield": "yes"}}',
    ],
)
def test_malformed_frames_are_bad_messages(text: str) -> None:
    assert refused(text) == "bad_message"


def test_binary_and_empty_frames() -> None:
    assert refused(None, b'{"t":"resync"}') == "bad_message"
    assert refused(None) == "bad_message"


def test_size_cap_in_bytes_not_characters() -> None:
    padding = "x" * (MAX_FRAME_BYTES - 40)
    ok = json.dumps({"t": "resync", "pad": padding})
    assert len(ok.encode()) <= MAX_FRAME_BYTES
    assert parse(ok).t == "resync"
    assert refused(json.dumps({"t": "resync", "pad": "x" * MAX_FRAME_BYTES})) == "too_large"
    # Few characters, many bytes: the cap is on what crosses the wire.
    wide = '{"t":"resync","pad":"' + "€" * (MAX_FRAME_BYTES // 2) + '"}'
    assert len(wide) < MAX_FRAME_BYTES < len(wide.encode())
    assert refused(wide) == "too_large"
    assert refused(None, b"x" * (MAX_FRAME_BYTES + 1)) == "too_large"


def test_server_frame_shape() -> None:
    assert json.loads(frame("update", 4, {"events": []})) == {
        "t": "update",
        "v": 4,
        "d": {"events": []},
    }


def test_rate_limit_refills_over_time() -> None:
    now = [0.0]
    limit = RateLimit(rate=2, burst=3, clock=lambda: now[0])
    assert [limit.allow() for _ in range(4)] == [True, True, True, False]
    now[0] += 0.5  # one token back at 2 a second
    assert limit.allow() and not limit.allow()
    now[0] += 100  # never more than the burst
    assert sum(limit.allow() for _ in range(10)) == 3
