"""A channel's `request.json()` on JSON nested 100000 deep is a 400 with the reason over
real HTTP (issue 26, item 13), not a 500 with a RecursionError."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.serve.test_server import TIMEOUT, Server, free_port


@pytest.fixture
def running(served_root: Path, tmp_path: Path) -> Iterator[tuple[Server, str]]:
    server = Server(served_root, tmp_path / "home", "--port", str(free_port()))
    try:
        yield server, server.wait_ready()
    finally:
        server.stop()


def test_a_deeply_nested_body_is_a_400(running: tuple[Server, str]) -> None:
    server, url = running
    with httpx.Client(base_url=url, timeout=TIMEOUT) as client:
        deep = client.post("/echo", content=b"[" * 100_000 + b"]" * 100_000)
        after = client.post("/echo", json={"a": 1})

    assert deep.status_code == 400, deep.text
    assert deep.json() == {"error": {
        "code": "serve/body-invalid",
        "message": "the request body is JSON nested too deeply to read",
        "hint": "send a JSON body with `Content-Type: application/json`", "channel": "echo"}}
    assert after.json()["got"] == {"a": 1}
    code, stderr = server.stop()
    assert code == 0 and "Traceback" not in stderr and "RecursionError" not in stderr, stderr
