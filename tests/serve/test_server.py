"""`eve serve` as a real subprocess on a free port, driven with httpx."""

from __future__ import annotations

import os
import queue
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner

from eve_build.cli import app as cli
from tests.serve.apps import ENVIRON

TIMEOUT = 60.0


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


class Server:
    """A running `eve serve`; its stdout lines arrive on a queue."""

    def __init__(self, root: Path, home: Path, *args: str) -> None:
        env = {**os.environ, **ENVIRON, "EVE_HOME": str(home), "NO_COLOR": "1"}
        self.process = subprocess.Popen(
            [sys.executable, "-m", "eve_build", "serve", "--path", str(root), *args],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        self.lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(line)

    def wait_ready(self) -> str:
        line = self.lines.get(timeout=TIMEOUT)
        assert line.startswith("serving on http://127.0.0.1:"), line
        return line.split()[2]

    def stop(self) -> tuple[int, str]:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        try:
            _, stderr = self.process.communicate(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            self.process.kill()
            _, stderr = self.process.communicate(timeout=TIMEOUT)
        return self.process.returncode, stderr


@pytest.fixture
def server(served_root: Path, tmp_path: Path) -> Iterator[tuple[Server, str]]:
    running = Server(served_root, tmp_path / "home", "--port", str(free_port()),
                     "--channel-timeout", "0.5")
    try:
        yield running, running.wait_ready()
    finally:
        running.stop()


def test_serve_answers_channels_and_stops_cleanly_on_sigterm(
    server: tuple[Server, str],
) -> None:
    running, url = server
    with httpx.Client(base_url=url, timeout=TIMEOUT) as client:
        health = client.get("/.eve/health")
        crm = client.post("/crm/webhook", json={"event": "contact.created"})
        company = client.post("/company/webhook", json={})
        raising = client.post("/boom")
        hanging = client.post("/hang")
        unserializable = client.get("/unserializable")
        not_json = client.post("/echo", content=b"plain text")
        after = client.post("/crm/webhook")
    assert (health.status_code, health.json()["generation"]) == (200, 1)
    assert crm.json() == {"received": True, "region": "eu"}
    assert company.json() == {"received": True, "region": "us"}
    assert [raising.status_code, hanging.status_code, unserializable.status_code] == [500] * 3
    assert not_json.status_code == 400
    assert (after.status_code, after.json()["region"]) == (200, "eu")

    code, stderr = running.stop()
    assert code == 0, stderr
    assert "Traceback" not in stderr and "Traceback" not in raising.text
    assert "ERROR: channel `boom` (POST /boom): 500 serve/channel-raised: the handler raised " \
           "ValueError: the ledger is closed (at " in stderr
    assert "ERROR: channel `hang` (POST /hang): 500 serve/channel-timeout: the handler did " \
           "not answer within 0.5 s" in stderr
    assert "ERROR: channel `unserializable` (GET /unserializable): 500 " \
           "serve/channel-result-invalid: the handler returned a value that is not JSON" in stderr
    assert "WARNING: channel `echo` (POST /echo): 400: the request body is not valid JSON" \
           in stderr
    assert "Application shutdown complete" in stderr
    assert stderr.rstrip().endswith("stopped on SIGTERM")


def test_a_port_in_use_is_a_clear_error(served_root: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = CliRunner(env=ENVIRON).invoke(
            cli, ["serve", "--path", str(served_root), "--port", str(port)])
    assert result.exit_code == 1
    assert result.stderr.splitlines() == [
        f"error serve/port-in-use: 127.0.0.1:{port} is already in use",
        "  hint: stop what listens there, or pass another `--port`",
        "error: cannot serve: 1 error",
    ]


def test_serving_without_a_compiled_agent_says_to_build(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["serve", "--path", str(tmp_path), "--port", "0"])
    assert result.exit_code == 1
    assert "run `eve build` in the agent's folder first" in result.stderr
    assert "Traceback" not in result.output


def test_connections_to_the_bound_socket_send_without_delay() -> None:
    """asyncio sets TCP_NODELAY on accepted connections only when the listening socket
    says it is TCP; without it each response waited ~40 ms (Nagle and delayed ACKs)."""
    import asyncio

    from eve_build.serve.server import bind_socket

    async def accepted_nodelay() -> int:
        sock = bind_socket("127.0.0.1", 0)
        seen: list[int] = []

        def connected(_reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            raw = writer.get_extra_info("socket")
            seen.append(raw.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))
            writer.close()

        server = await asyncio.start_server(connected, sock=sock)
        async with server:
            _, writer = await asyncio.open_connection(*sock.getsockname()[:2])
            for _ in range(200):
                if seen:
                    break
                await asyncio.sleep(0.01)
            writer.close()
        return seen[0]

    assert asyncio.run(accepted_nodelay()) != 0
