"""Who may call `eve serve` (issue 26 item 10): one admission policy in front of every
route, checked with a real `eve serve` and real HTTP requests."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from eve_build.serve.admission import derive_admission
from tests.reliability.served import LiveServer
from tests.serve.served_agent import MCP_HEADERS, MCP_INITIALIZE, SERVE_ENV, make_served_agent

TIMEOUT = 60.0
ROUTES: dict[str, tuple[str, str, Any]] = {
    "channel": ("POST", "/echo", {"a": 1}),
    "session": ("POST", "/.eve/v1/sessions", {}),
    "session-message": ("POST", "/.eve/v1/sessions/{session}/messages", {"text": "hi"}),
    "health": ("GET", "/.eve/health", None),
    "mcp": ("POST", "/mcp", MCP_INITIALIZE),
}
"""One request of each route kind, as a legitimate client sends it."""


@pytest.fixture(scope="module")
def agent_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_served_agent(tmp_path_factory.mktemp("admission") / "app")


@pytest.fixture(scope="module")
def default_server(agent_root: Path, tmp_path_factory: pytest.TempPathFactory,
                   ) -> Iterator[str]:
    running = LiveServer(agent_root, tmp_path_factory.mktemp("home"), env=SERVE_ENV)
    try:
        yield running.wait_ready()
    finally:
        _, log = running.stop()
        assert "Traceback" not in log, log


@pytest.fixture(scope="module")
def allowing_server(agent_root: Path, tmp_path_factory: pytest.TempPathFactory,
                    ) -> Iterator[str]:
    running = LiveServer(agent_root, tmp_path_factory.mktemp("home"),
                         "--allow-host", "agent.test", "--allow-origin",
                         "https://app.example.com",
                         env={**SERVE_ENV, "EVE_ALLOW_ORIGINS": "http://localhost:*"})
    try:
        yield running.wait_ready()
    finally:
        _, log = running.stop()
        assert "Traceback" not in log, log


def _send(url: str, kind: str, headers: dict[str, str], *, content_type: str | None = None,
          ) -> httpx.Response:
    method, path, body = ROUTES[kind]
    if "{session}" in path:
        created = httpx.post(f"{url}/.eve/v1/sessions", timeout=TIMEOUT)
        assert created.status_code == 201, created.text
        path = path.format(session=created.json()["id"])
    given = {**MCP_HEADERS, **headers}
    if content_type is not None:  # the same JSON text, declared as something else
        return httpx.request("POST", f"{url}{path}", content=json.dumps(body or {}),
                             headers={**given, "Content-Type": content_type}, timeout=TIMEOUT)
    return httpx.request(method, f"{url}{path}", json=body, headers=given, timeout=TIMEOUT)


def _port(url: str) -> str:
    return url.rsplit(":", 1)[1]


def _refused(response: httpx.Response, status: int, code: str) -> None:
    assert response.status_code == status, (response.status_code, response.text)
    error = response.json()["error"]
    assert error["code"] == code
    assert error["message"] and error["hint"]
    assert "evil" not in response.text  # the answer never echoes what the page sent


@pytest.mark.parametrize("kind", sorted(ROUTES))
def test_a_foreign_host_is_refused_on_every_route(default_server: str, kind: str) -> None:
    # DNS rebinding: the page's own name resolves to 127.0.0.1, its Host is that name
    response = _send(default_server, kind,
                     {"Host": f"evil.example.com:{_port(default_server)}"})
    _refused(response, 421, "serve/host-refused")


@pytest.mark.parametrize("kind", sorted(ROUTES))
def test_a_foreign_origin_is_refused_on_every_route(default_server: str, kind: str) -> None:
    response = _send(default_server, kind, {"Origin": "https://evil.example.com"})
    _refused(response, 403, "serve/origin-refused")


@pytest.mark.parametrize("kind", sorted(ROUTES))
def test_a_text_plain_body_is_refused_on_every_route(default_server: str, kind: str) -> None:
    # what a form or a `no-cors` fetch of another page can send without asking
    response = _send(default_server, kind, {}, content_type="text/plain")
    _refused(response, 415, "serve/content-type-refused")


@pytest.mark.parametrize("origin", ["null", "http://127.0.0.1", "http://localhost:1"])
def test_an_opaque_or_other_port_origin_is_refused(default_server: str, origin: str) -> None:
    _refused(_send(default_server, "channel", {"Origin": origin}), 403, "serve/origin-refused")


@pytest.mark.parametrize("kind", sorted(ROUTES))
def test_loopback_names_and_the_servers_own_origin_are_admitted(default_server: str,
                                                                 kind: str) -> None:
    port = _port(default_server)
    plain = _send(default_server, kind, {})
    same = _send(default_server, kind, {"Host": f"localhost:{port}",
                                        "Origin": f"http://localhost:{port}"})

    assert plain.status_code in (200, 201), plain.text
    assert same.status_code in (200, 201), same.text


@pytest.mark.parametrize("kind", sorted(ROUTES))
def test_allowed_hosts_and_origins_are_admitted(allowing_server: str, kind: str) -> None:
    port = _port(allowing_server)
    named = _send(allowing_server, kind, {"Host": f"agent.test:{port}",
                                          "Origin": "https://app.example.com"})
    from_env = _send(allowing_server, kind, {"Origin": "http://localhost:5173"})
    other = _send(allowing_server, kind, {"Host": f"other.test:{port}"})

    assert named.status_code in (200, 201), named.text
    assert from_env.status_code in (200, 201), from_env.text
    _refused(other, 421, "serve/host-refused")


@pytest.mark.parametrize("origin", ["https://app.example.com", "http://localhost:5173"])
def test_an_allowed_origin_gets_what_a_browser_needs_to_send_json(allowing_server: str,
                                                                   origin: str) -> None:
    preflight = httpx.options(f"{allowing_server}/.eve/v1/sessions", timeout=TIMEOUT, headers={
        "Origin": origin, "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "content-type"})
    created = httpx.post(f"{allowing_server}/.eve/v1/sessions", json={}, timeout=TIMEOUT,
                         headers={"Origin": origin})

    assert preflight.status_code == 200, preflight.text
    assert preflight.headers["access-control-allow-origin"] == origin
    assert "content-type" in preflight.headers["access-control-allow-headers"].lower()
    assert created.status_code == 201
    assert created.headers["access-control-allow-origin"] == origin


def test_a_foreign_preflight_is_refused(allowing_server: str) -> None:
    preflight = httpx.options(f"{allowing_server}/.eve/v1/sessions", timeout=TIMEOUT, headers={
        "Origin": "https://evil.example.com", "Access-Control-Request-Method": "POST"})

    _refused(preflight, 403, "serve/origin-refused")
    assert "access-control-allow-origin" not in preflight.headers


def test_a_server_on_every_address_admits_ip_hosts_but_not_names() -> None:
    policy = derive_admission("0.0.0.0")
    loopback = derive_admission("127.0.0.1", allow_hosts=["*"])

    assert policy.check("GET", "/.eve/health", [(b"host", b"10.1.2.3:8000")]) is None
    assert policy.check("GET", "/.eve/health", [(b"host", b"[fd00::1]:8000")]) is None
    refused = policy.check("GET", "/.eve/health", [(b"host", b"rebind.example.com:8000")])
    assert refused is not None and refused.status == 421
    assert derive_admission().check("GET", "/", [(b"host", b"10.1.2.3:8000")]) is not None
    assert loopback.check("GET", "/", [(b"host", b"anything.example.com")]) is None
    assert derive_admission().check("GET", "/", []) is not None  # no Host at all


def test_a_value_that_is_no_origin_is_a_usage_error(agent_root: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "eve_build", "serve", "--path", str(agent_root), "--port", "0",
         "--allow-origin", "https://app.example.com/page"],
        capture_output=True, text=True, timeout=TIMEOUT, check=False)

    assert done.returncode == 2, done.stderr
    assert "`https://app.example.com/page` is not an origin" in done.stderr
    assert "Traceback" not in done.stderr


def test_an_invalid_environment_value_is_a_diagnostic(agent_root: Path) -> None:
    import os

    done = subprocess.run(
        [sys.executable, "-m", "eve_build", "serve", "--path", str(agent_root), "--port", "0"],
        capture_output=True, text=True, timeout=TIMEOUT, check=False,
        env={**os.environ, "EVE_ALLOW_HOSTS": "agent.test, http://bad.test/"})

    assert done.returncode == 1, done.stderr
    assert "`http://bad.test/` is not a host name or address" in done.stderr
    assert "Traceback" not in done.stderr


def test_the_library_app_has_the_same_policy(agent_root: Path) -> None:
    import asyncio

    from eve_build.serve import create_app

    app = create_app(agent_root, schedules=False, environ={})

    async def scenario(base: str) -> int:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url=base) as client:
            return (await client.post("/echo", json={"a": 1})).status_code

    try:
        assert asyncio.run(scenario("http://localhost")) == 200
        assert asyncio.run(scenario("http://rebind.example.com")) == 421
    finally:
        app.state.host.close()
