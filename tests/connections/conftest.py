"""Two MCP servers written with the SDK, each in a subprocess on 127.0.0.1 (one over
streamable HTTP, one over SSE only), both wanting a bearer token; and an agent app
whose connections (its own, a dynamic one, a mounted one, one that is down) name them."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import REPO
from tests.mcp.servers import listening, refusing_port
from tests.runtime.apps import compile_app, make_app, mount_file

TOKEN = "tok-remote-5b1e-never-printed"
START_TIMEOUT = 30.0
APP_FILES = {
    "extensions/crm.py": mount_file("acme_crm", 'api_key=env("CRM_API_KEY"), region="eu"'),
    "extensions/gate.py": mount_file("hook_block", 'word="forbidden"'),
    "connections/remote.py": '''
        from eve_build.sdk import define_connection, env

        connection = define_connection(url=env("REMOTE_MCP_URL"), kind="mcp",
                                       headers={"Authorization": env("REMOTE_TOKEN")})
    ''',
    "connections/legacy.py": '''
        from eve_build.sdk import define_connection, define_dynamic, env


        def resolve(ctx):
            return define_connection(url=env("LEGACY_MCP_URL"), kind="mcp",
                                     headers={"Authorization": env("REMOTE_TOKEN")})


        connection = define_dynamic(resolve=resolve)
    ''',
    "subagents/helper/agent.py": '''
        from eve_build.sdk import define_agent

        agent = define_agent(description="Helps with remote sums.")
    ''',
    "subagents/helper/instructions.md": "You help.\n",
    "subagents/helper/connections/inner.py": '''
        from eve_build.sdk import define_connection, env

        connection = define_connection(url=env("REMOTE_MCP_URL"), kind="mcp",
                                       headers={"Authorization": env("REMOTE_TOKEN")})
    ''',
    "connections/down.py": '''
        from eve_build.sdk import define_connection, env

        connection = define_connection(url=env("DOWN_MCP_URL"), kind="mcp")
    ''',
}
CRM_CONNECTION = '''"""The CRM's MCP server, at a URL from the environment (for the tests)."""

from eve_build.sdk import define_connection, env

connection = define_connection(url=env("CRM_MCP_URL"), kind="mcp",
                               headers={"Authorization": env("CRM_API_KEY")})
'''


def start_server(port: int | socket.socket, transport: str) -> subprocess.Popen[bytes]:
    """The test server on 127.0.0.1:port, or on a listening socket it inherits (it exits by
    itself after 300 s)."""
    env = {**os.environ, "REMOTE_TOKEN": TOKEN, "REMOTE_LIFETIME": "300"}
    if isinstance(port, socket.socket):
        return subprocess.Popen([sys.executable, "-m", "tests.connections.remote_server",
                                 f"fd:{port.fileno()}", transport], cwd=REPO, env=env,
                                pass_fds=[port.fileno()])
    return subprocess.Popen([sys.executable, "-m", "tests.connections.remote_server",
                             str(port), transport], cwd=REPO, env=env)


@pytest.fixture(scope="session")
def remote_servers() -> Iterator[dict[str, str]]:
    """{"streamable-http": URL, "sse": URL} of two running servers, each on a socket bound
    here to port 0 (the port read back) and handed to the server: no race for a port."""
    sockets = {"streamable-http": listening(), "sse": listening()}
    ports = {transport: int(sock.getsockname()[1]) for transport, sock in sockets.items()}
    processes = [start_server(sock, transport) for transport, sock in sockets.items()]
    for sock in sockets.values():
        sock.close()  # the servers hold them now
    urls = {"streamable-http": f"http://127.0.0.1:{ports['streamable-http']}/mcp",
            "sse": f"http://127.0.0.1:{ports['sse']}/sse"}
    try:
        for url in urls.values():  # the socket listens already: wait for the app itself
            wait_for_answer(url)
        yield urls
    finally:
        for process in processes:
            process.terminate()
            process.wait(30)


def wait_for_answer(url: str) -> None:
    """Until the server at `url` answers HTTP (any status: it wants a token)."""
    import httpx

    deadline = time.monotonic() + 60
    while True:
        try:
            httpx.get(url, timeout=10)
            return
        except httpx.HTTPError:
            if time.monotonic() > deadline:
                raise RuntimeError(f"the test MCP server at {url} never answered") from None
            time.sleep(0.05)


def wait_for_port(port: int) -> None:
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise RuntimeError(f"the test MCP server on port {port} did not start")


@pytest.fixture(scope="session")
def connected_app(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = make_app(tmp_path_factory.mktemp("connected") / "app", ["acme-crm", "hook-block"],
                    APP_FILES)
    (root / "extensions/acme-crm/extension/connections/api.py").write_text(CRM_CONNECTION)
    compile_app(root)
    return root


@pytest.fixture(scope="session")
def down_url() -> Iterator[str]:
    """A URL whose port refuses connections for the whole session (held, never listening)."""
    with refusing_port() as port:
        yield f"http://127.0.0.1:{port}/mcp"


@pytest.fixture
def connected_env(remote_servers: dict[str, str], down_url: str) -> dict[str, str]:
    """What the app's mount files and connections read with env(), and a generous time
    to open the connections (a busy machine is slow, not down; the down one is refused
    at once)."""
    return {"EVE_CONNECTION_TIMEOUT": "60",
            "REMOTE_MCP_URL": remote_servers["streamable-http"],
            "LEGACY_MCP_URL": remote_servers["sse"], "CRM_MCP_URL": remote_servers["sse"],
            "REMOTE_TOKEN": f"Bearer {TOKEN}", "CRM_API_KEY": f"Bearer {TOKEN}",
            "DOWN_MCP_URL": down_url}
