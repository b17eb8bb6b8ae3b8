"""Hostile HTTP against a real `eve serve` (issue 23, items 8 and 22): huge bodies, chunked
bodies, a forged Host, responses that cannot be sent, faults whose text holds a secret."""

from __future__ import annotations

import contextlib
import json
import socket
import threading
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest

from eve_build.serve.faults import FAULT_HINT
from tests.reliability.served import SECRET, LiveServer, make_hostile_app

LIMIT = 64 * 1024


@pytest.fixture(scope="module")
def hostile_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_hostile_app(tmp_path_factory.mktemp("hostile") / "app")


@pytest.fixture
def server(hostile_root: Path, tmp_path: Path) -> Iterator[tuple[LiveServer, str]]:
    running = LiveServer(hostile_root, tmp_path / "home", "--max-body", "64KiB")
    try:
        yield running, running.wait_ready()
    finally:
        running.stop()


def _address(url: str) -> tuple[str, int]:
    parts = urlsplit(url)
    assert parts.hostname is not None and parts.port is not None
    return parts.hostname, parts.port


def _read_response(sock: socket.socket) -> tuple[int, dict[str, str], bytes]:
    """Status, headers and body of one HTTP/1.1 response with a Content-Length."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = _recv(sock)
        assert chunk, f"the server closed the connection without answering: {data!r}"
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = dict(line.split(": ", 1) for line in lines[1:])
    length = int(headers.get("content-length", "0"))
    while len(body) < length:
        chunk = _recv(sock)
        if not chunk:
            break
        body += chunk
    return int(lines[0].split()[1]), headers, body[:length]


def _recv(sock: socket.socket) -> bytes:
    """What arrived; nothing once the server reset the connection (it closes on a body it
    will not read, and the kernel answers the rest of the upload with a reset)."""
    try:
        return sock.recv(65536)
    except ConnectionResetError:
        return b""


def test_a_declared_body_over_the_limit_is_413_before_a_byte_is_read(
    server: tuple[LiveServer, str],
) -> None:
    running, url = server
    with socket.create_connection(_address(url), timeout=30) as sock:
        sock.sendall(b"POST /size HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: text/plain\r\n"
                     b"Content-Length: 805306368\r\n\r\n")  # 768 MiB announced, none sent
        status, headers, body = _read_response(sock)

    assert status == 413
    error = json.loads(body)["error"]
    assert (error["code"], error["message"], error["limit"]) == (
        "serve/body-too-large", f"the request body is larger than {LIMIT} bytes", LIMIT)
    assert headers["connection"] == "close"
    log = running.wait_for_log("serve/body-too-large")
    assert "POST /size: 413 serve/body-too-large: the request body is too large: its " \
           "Content-Length is 805306368 bytes; the limit is 65536 bytes (`--max-body`)" in log
    assert httpx.get(f"{url}/.eve/health", timeout=30).status_code == 200


def test_a_chunked_body_is_cut_at_the_limit_and_the_server_stays_small(
    server: tuple[LiveServer, str],
) -> None:
    running, url = server
    before = running.rss_kib()
    chunk = b"x" * 65536
    frame = f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n"
    total = 768 * 1024 * 1024  # the 768 MiB; the server must stop reading long before
    sent = [0]

    def flood(sock: socket.socket) -> None:
        try:
            while sent[0] < total:
                sock.sendall(frame)
                sent[0] += len(chunk)
            sock.sendall(b"0\r\n\r\n")
        except OSError:  # the server answered 413 and closed: what we want
            pass

    with socket.create_connection(_address(url), timeout=30) as sock:
        sock.sendall(b"POST /size HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                     b"Transfer-Encoding: chunked\r\n\r\n")
        sender = threading.Thread(target=flood, args=(sock,), daemon=True)
        sender.start()
        status, _, body = _read_response(sock)
        with contextlib.suppress(OSError):  # the server may have reset it already
            sock.shutdown(socket.SHUT_RDWR)
        sender.join(timeout=30)

    assert status == 413
    assert json.loads(body)["error"]["code"] == "serve/body-too-large"
    assert sent[0] < total // 4, "the server kept reading the body"
    assert running.rss_kib() - before < 64 * 1024, "the server's memory grew with the body"
    assert "it passed 65536 bytes while it streamed" in running.wait_for_log("streamed")
    small = httpx.post(f"{url}/size", content=b"y" * 1000, timeout=30)
    assert small.json() == {"bytes": 1000}
    at_limit = httpx.post(f"{url}/size", content=b"y" * LIMIT, timeout=30)
    assert at_limit.json() == {"bytes": LIMIT}


@pytest.mark.parametrize("path", ["/mcp/", "/mcp", "/size/", "/.eve/health/"])
def test_no_answer_is_a_redirect_built_from_the_host_header(
    server: tuple[LiveServer, str], path: str,
) -> None:
    _, url = server
    response = httpx.post(f"{url}{path}", headers={"Host": "evil.example.com"},
                          json={"jsonrpc": "2.0", "id": 1, "method": "ping"}, timeout=30)

    assert not response.is_redirect, (response.status_code, response.headers)
    assert "evil" not in response.headers.get("location", "")
    assert "evil.example.com" not in response.text


def test_mcp_with_a_trailing_slash_is_served_not_redirected(
    server: tuple[LiveServer, str],
) -> None:
    _, url = server
    headers = {"Accept": "application/json, text/event-stream"}
    request = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "probe", "version": "1"}}}
    for path in ("/mcp", "/mcp/"):
        response = httpx.post(f"{url}{path}", json=request, headers=headers, timeout=30)
        assert response.status_code == 200, (path, response.status_code, response.text)
        assert "serverInfo" in response.text


@pytest.mark.parametrize(("path", "problem"), [
    ("/status999", "its status 999 is not an HTTP status (100-599)"),
    ("/crlf", "its header value 'a\\r\\nset-cookie: evil=1' is empty or holds CR, LF or NUL"),
])
def test_a_response_that_cannot_be_sent_is_a_500_with_a_code_and_one_log_line(
    server: tuple[LiveServer, str], path: str, problem: str,
) -> None:
    running, url = server
    with httpx.Client(base_url=url, timeout=30) as client:
        response = client.get(path)
        again = client.get("/.eve/health")  # the same connection keeps working

    name = path.strip("/")
    assert response.status_code == 500
    assert response.json() == {"error": {"code": "serve/response-invalid",
                                         "message": f"the channel `{name}` failed",
                                         "hint": FAULT_HINT, "channel": name}}
    assert "set-cookie" not in response.headers
    assert again.status_code == 200
    log = running.wait_for_log(f"channel `{name}`")
    lines = [line for line in log.splitlines() if "serve/response-invalid" in line]
    assert lines == [f"ERROR: channel `{name}` (GET {path}): 500 serve/response-invalid: the "
                     f"handler returned a Response that cannot be sent: {problem}"
                     + (" (a header may not start another header)" if name == "crlf" else "")]
    assert "Traceback" not in log


def test_a_fault_is_one_redacted_line_and_the_traceback_only_with_verbose(
    hostile_root: Path, tmp_path: Path,
) -> None:
    logs = {}
    for verbose in (False, True):
        running = LiveServer(hostile_root, tmp_path / "home", verbose=verbose)
        try:
            url = running.wait_ready()
            response = httpx.post(f"{url}/crm/webhook", json={}, timeout=30)
            assert response.status_code == 500
            assert response.json()["error"]["code"] == "serve/channel-raised"
            running.wait_for_log("serve/channel-raised")
        finally:
            code, logs[verbose] = running.stop()
        assert code == 0

    quiet, loud = logs[False], logs[True]
    faults = [line for line in quiet.splitlines() if "serve/channel-raised" in line]
    assert len(faults) == 1
    assert faults[0].startswith("ERROR: channel `crm__webhook` (POST /crm/webhook): 500 "
                                "serve/channel-raised: the handler raised RuntimeError: key is "
                                "[redacted env CRM_API_KEY] / ")
    assert "Traceback" not in quiet
    assert "Traceback" in loud and "in handle" in loud
    for log in (quiet, loud):
        assert "CANARY" not in log, "a spelling of the secret reached the log"
        assert SECRET not in log
