"""What an error answer of `eve serve` looks like (issue 30 item 1): one JSON shape for
every route kind, produced by eve_build.serve.answers, over real HTTP."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from eve_build.codes import CODES
from tests.reliability.served import LiveServer
from tests.serve.served_agent import MCP_HEADERS, MCP_INITIALIZE, SERVE_ENV, make_served_agent

TIMEOUT = 60.0
FAILURES: dict[str, tuple[str, str, dict[str, Any], int, str]] = {
    # kind: method, path, request options, status, code
    "channel-raised": ("POST", "/boom", {"json": {}}, 500, "serve/channel-raised"),
    "channel-body": ("POST", "/echo", {"content": b"{not json",
                                       "headers": {"Content-Type": "application/json"}},
                     400, "serve/body-invalid"),
    "channel-unknown": ("POST", "/nothing-here", {"json": {}}, 404, "serve/route-unknown"),
    "session-body": ("POST", "/.eve/v1/sessions", {"json": {"model": 1}}, 400,
                     "session/body-invalid"),
    "session-unknown": ("POST", "/.eve/v1/sessions/nope/messages", {"json": {"text": "hi"}},
                        404, "session/id-unknown"),
    "health-method": ("POST", "/.eve/health", {"json": {}}, 405, "serve/method-not-allowed"),
    "admin-unknown": ("GET", "/.eve/v1/admin", {}, 404, "serve/route-unknown"),
    "body-too-large": ("POST", "/echo", {"json": {"pad": "x" * 4096}}, 413,
                       "serve/body-too-large"),
    "mcp-admission": ("POST", "/mcp", {"json": MCP_INITIALIZE, "headers": {
        **MCP_HEADERS, "Origin": "https://evil.example.com"}}, 403, "serve/origin-refused"),
    "mcp-host": ("POST", "/mcp", {"json": MCP_INITIALIZE, "headers": {
        **MCP_HEADERS, "Host": "evil.example.com"}}, 421, "serve/host-refused"),
}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    root = make_served_agent(tmp_path_factory.mktemp("shape") / "app")
    running = LiveServer(root, tmp_path_factory.mktemp("home"), "--max-body", "1KiB",
                         env=SERVE_ENV)
    try:
        yield running.wait_ready()
    finally:
        running.stop()


@pytest.mark.parametrize("kind", sorted(FAILURES))
def test_every_route_kind_answers_errors_in_one_shape(server: str, kind: str) -> None:
    method, path, options, status, code = FAILURES[kind]
    response = httpx.request(method, f"{server}{path}", timeout=TIMEOUT, **options)

    assert (response.status_code, response.headers["content-type"]) == (
        status, "application/json"), response.text
    body = response.json()
    assert list(body) == ["error"]  # nothing beside it
    error = body["error"]
    assert list(error)[:3] == ["code", "message", "hint"]
    assert all(isinstance(error[key], str) for key in ("code", "message", "hint"))
    assert error["code"] == code and code in CODES
    assert error["message"]
    assert "Traceback" not in response.text and "ledger" not in response.text


def test_a_channel_error_names_its_channel_inside_the_error(server: str) -> None:
    response = httpx.post(f"{server}/boom", json={}, timeout=TIMEOUT)

    assert response.json()["error"]["channel"] == "boom"
