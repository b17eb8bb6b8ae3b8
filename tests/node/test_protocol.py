"""The wire format: what decodes, and what each kind of garbage is called."""

from __future__ import annotations

import pytest

from eve_build.node import protocol


def test_a_request_round_trips() -> None:
    message = protocol.decode_message(protocol.encode_request(7, "tool.call", {"name": "x"}))
    assert (message.id, message.method, message.params) == (7, "tool.call", {"name": "x"})
    assert not message.is_reply


def test_a_result_and_an_error_round_trip() -> None:
    ok = protocol.decode_message(protocol.encode_result(3, {"value": 1}))
    assert ok.is_reply and ok.result == {"value": 1} and ok.error is None
    failed = protocol.decode_message(protocol.encode_error(4, protocol.UNKNOWN_NAME, "no tool"))
    assert failed.error is not None
    assert (failed.error.code, failed.error.message) == (protocol.UNKNOWN_NAME, "no tool")


def test_a_message_is_one_line() -> None:
    line = protocol.encode_result(1, {"text": "two\nlines"})
    assert line.endswith(b"\n") and line.count(b"\n") == 1


@pytest.mark.parametrize(("line", "match"), [
    (b"hello\n", "not JSON"),
    (b"[1, 2]\n", "not a JSON-RPC 2.0 message"),
    (b'{"jsonrpc": "1.0", "id": 1, "result": 1}\n', "not a JSON-RPC 2.0 message"),
    (b'{"jsonrpc": "2.0", "id": 1}\n', "exactly one of result and error"),
    (b'{"jsonrpc": "2.0", "id": 1, "result": 1, "error": {}}\n', "exactly one of"),
    (b'{"jsonrpc": "2.0", "id": 1, "error": {"code": "x"}}\n', "integer code"),
    (b'{"jsonrpc": "2.0", "id": [1], "result": 1}\n', "number or a string"),
    (b'{"jsonrpc": "2.0", "method": 5}\n', "string method"),
])
def test_garbage_is_a_protocol_error(line: bytes, match: str) -> None:
    with pytest.raises(protocol.ProtocolError, match=match):
        protocol.decode_message(line)
