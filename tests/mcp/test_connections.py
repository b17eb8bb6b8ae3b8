"""`eve connections [--json] [--probe]` and `eve info --json --probe`: connections resolved
with env values applied, and MCP servers probed with the SDK client. A real MCP server,
written with the SDK here, runs on a free 127.0.0.1 port and wants a bearer token."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from mcp.server.mcpserver import MCPServer
from starlette.middleware.base import BaseHTTPMiddleware, RequestResponseEndpoint
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from typer.testing import CliRunner, Result

from eve_build.cli import app as cli
from eve_build.mcp.connection_report import describe_connections
from tests.mcp.conftest import SECRETS
from tests.mcp.servers import free_port, serving
from tests.runtime.apps import compile_app, make_app

TOKEN = "tok-3f9a-never-printed"
CONNECTIONS = {
    "connections/remote.py": '''
        from eve_build.sdk import define_connection, env

        connection = define_connection(url=env("REMOTE_MCP_URL"), kind="mcp",
                                       headers={"Authorization": env("REMOTE_TOKEN")})
    ''',
    "connections/down.py": '''
        from eve_build.sdk import define_connection, env

        connection = define_connection(url=env("DOWN_MCP_URL"), kind="mcp")
    ''',
    "connections/docs.py": '''
        from eve_build.sdk import define_connection, define_dynamic, env


        def resolve(ctx):
            return define_connection(url="https://docs.example.com/openapi.json",
                                     kind="openapi", headers={"X-Api-Key": env("DOCS_KEY")})


        connection = define_dynamic(resolve=resolve)
    ''',
}


def remote_server() -> Any:
    """An MCP server with two tools that answers only `Authorization: Bearer TOKEN`."""
    server = MCPServer("remote")

    @server.tool()
    def lookup(query: str) -> str:
        """Look a record up."""
        return query

    @server.tool()
    def ping() -> str:
        """Answer pong."""
        return "pong"

    class RequireToken(BaseHTTPMiddleware):
        async def dispatch(self, request: Request, call_next: RequestResponseEndpoint
                           ) -> Response:
            if request.headers.get("authorization") != f"Bearer {TOKEN}":
                return PlainTextResponse("unauthorized", status_code=401)
            return await call_next(request)

    app = server.streamable_http_app()
    app.add_middleware(RequireToken)
    return app


@pytest.fixture(scope="module")
def remote_url() -> Iterator[str]:
    with serving(remote_server()) as url:
        yield f"{url}/mcp"


@pytest.fixture(scope="module")
def connections_app(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("connections") / "app"
    (root / "extensions").mkdir(parents=True)  # a workspace without members
    make_app(root, [], CONNECTIONS)
    compile_app(root)
    return root


def environment(remote_url: str, token: str = TOKEN) -> dict[str, str]:
    return {"REMOTE_MCP_URL": remote_url, "REMOTE_TOKEN": f"Bearer {token}",
            "DOWN_MCP_URL": f"http://127.0.0.1:{free_port()}/mcp", "DOCS_KEY": "docs-secret"}


def run(*args: str, env: dict[str, str]) -> Result:
    return CliRunner(env=env).invoke(cli, list(args))


def test_mounted_connections_resolve_static_and_dynamic_per_mount(mcp_app: Path) -> None:
    data = describe_connections(mcp_app, environ=SECRETS)

    rows = {row["name"]: row for row in data["connections"]}
    assert rows["crm__api"] == {
        "name": "crm__api", "subagent": None, "file": "acme_crm/extension/connections/api.py",
        "dynamic": False, "kind": "mcp", "url": "https://crm.example.com/mcp",
        "headers": ["Authorization"]}
    assert rows["crm__directory"]["url"] == "https://eu.directory.example.com/openapi.json"
    assert rows["crm__directory"]["dynamic"] is True
    assert rows["company__directory"]["url"] == "https://us.directory.example.com/openapi.json"
    assert data["diagnostics"]["errors"] == 0
    shown = json.dumps(data)
    assert all(value not in shown for value in SECRETS.values())


def test_probe_lists_the_tools_and_never_shows_the_header(connections_app: Path,
                                                          remote_url: str) -> None:
    result = run("connections", "--json", "--probe", "--timeout", "10", "--path",
                 str(connections_app), env=environment(remote_url))

    data = json.loads(result.stdout)
    rows = {row["name"]: row for row in data["connections"]}
    assert rows["remote"]["probe"] == {"status": "ok", "reachable": True,
                                       "transport": "streamable-http",
                                       "tools": ["lookup", "ping"], "error": None}
    assert rows["remote"]["headers"] == ["Authorization"]
    assert rows["docs"]["url"] == "https://docs.example.com/openapi.json"
    assert "probe" not in rows["docs"]  # only MCP connections are probed
    assert rows["down"]["probe"]["reachable"] is False
    assert rows["down"]["probe"]["status"] == "unreachable"
    [problem] = data["diagnostics"]["items"]
    assert problem["code"] == "connection/unreachable"
    assert problem["file"] == "agent/connections/down.py"
    assert result.exit_code == 1
    for stream in (result.stdout, result.stderr):
        assert TOKEN not in stream and "docs-secret" not in stream
        assert "Traceback" not in stream
    assert "agent/connections/down.py: error connection/unreachable:" in result.stderr


def test_a_refused_token_is_an_auth_diagnostic(connections_app: Path, remote_url: str) -> None:
    result = run("connections", "--probe", "--timeout", "10", "--path", str(connections_app),
                 env=environment(remote_url, token="wrong-token-value"))

    assert result.exit_code == 1
    assert "connection/auth-failed" in result.stderr
    assert "agent/connections/remote.py" in result.stderr
    assert "HTTP 401" in result.stderr
    assert "wrong-token-value" not in result.stdout + result.stderr
    assert "Traceback" not in result.stdout + result.stderr


def test_listing_without_probe_contacts_nothing(connections_app: Path) -> None:
    env = environment("http://127.0.0.1:9/mcp")
    result = run("connections", "--path", str(connections_app), env=env)

    assert result.exit_code == 0, result.output
    assert "remote  mcp  http://127.0.0.1:9/mcp" in result.stdout
    assert "headers: Authorization" in result.stdout
    assert "docs  openapi  https://docs.example.com/openapi.json (dynamic)" in result.stdout
    assert TOKEN not in result.stdout and "tools:" not in result.stdout


def test_a_missing_env_value_names_the_connection_file(connections_app: Path,
                                                       remote_url: str) -> None:
    env = environment(remote_url)
    del env["REMOTE_TOKEN"]
    result = run("connections", "--json", "--path", str(connections_app),
                 env={**env, "REMOTE_TOKEN": None})  # type: ignore[dict-item]

    assert result.exit_code == 1
    [problem] = json.loads(result.stdout)["diagnostics"]["items"]
    assert problem["code"] == "connection/env-missing"
    assert problem["file"] == "agent/connections/remote.py"
    assert "REMOTE_TOKEN" in problem["message"]


def test_a_bad_url_is_a_diagnostic(connections_app: Path, remote_url: str) -> None:
    env = {**environment(remote_url), "DOWN_MCP_URL": "not a url"}
    data = describe_connections(connections_app, probe=True, environ=env, timeout=10)

    codes = [(d["code"], d["file"]) for d in data["diagnostics"]["items"]]
    assert codes == [("connection/url-invalid", "agent/connections/down.py")]  # not probed
    rows = {row["name"]: row for row in data["connections"]}
    assert rows["down"]["url"] == "not a url"
    assert rows["down"]["probe"]["reachable"] is False
    assert rows["remote"]["probe"]["reachable"] is True
    assert "Traceback" not in json.dumps(data)


def test_info_probe_adds_the_tools_under_each_connection(connections_app: Path,
                                                         remote_url: str) -> None:
    result = run("info", "--json", "--probe", "--path", str(connections_app),
                 env=environment(remote_url))

    data = json.loads(result.stdout)
    assert data["status"] == "ready"
    rows = {row["name"]: row for row in data["connections"]}
    assert rows["remote"]["probe"]["tools"] == ["lookup", "ping"]
    assert TOKEN not in result.stdout + result.stderr


def test_info_probe_in_words(connections_app: Path, remote_url: str) -> None:
    result = run("info", "--probe", "--path", str(connections_app),
                 env=environment(remote_url))

    assert "connection remote (mcp): tools: lookup, ping" in result.stdout
    assert "connection docs (openapi): tools: -" in result.stdout
    assert "agent/connections/down.py: error connection/unreachable:" in result.stderr
    assert TOKEN not in result.stdout + result.stderr


def test_a_raising_dynamic_connection_names_its_file(tmp_path: Path) -> None:
    root = tmp_path / "app"
    (root / "extensions").mkdir(parents=True)
    make_app(root, [], {"connections/broken.py": '''
        from eve_build.sdk import define_dynamic


        def resolve(ctx):
            raise LookupError("no region configured")


        connection = define_dynamic(resolve=resolve)
    '''})
    compile_app(root)

    result = run("connections", "--json", "--path", str(root), env={})

    assert result.exit_code == 1
    data = json.loads(result.stdout)
    [problem] = data["diagnostics"]["items"]
    assert problem["code"] == "connection/resolve-failed"
    assert problem["file"] == "agent/connections/broken.py"
    assert "LookupError: no region configured" in problem["message"]
    assert data["connections"] == [{"name": "broken", "subagent": None,
                                    "file": "agent/connections/broken.py", "dynamic": True,
                                    "kind": None, "url": None, "headers": []}]
    assert "Traceback" not in result.output


def test_a_url_that_is_no_mcp_endpoint_says_so(connections_app: Path, remote_url: str) -> None:
    env = environment(remote_url.removesuffix("/mcp") + "/not-mcp")
    data = describe_connections(connections_app, probe=True, environ=env, timeout=10)

    problems = {d["file"]: d for d in data["diagnostics"]["items"]}
    remote = problems["agent/connections/remote.py"]
    assert remote["code"] == "connection/not-mcp"
    assert "(HTTP 404)" in remote["message"]
    assert TOKEN not in json.dumps(data)


def test_a_mount_missing_its_env_cannot_resolve_its_dynamic_connection(mcp_app: Path) -> None:
    environ = {"CRM_API_KEY": SECRETS["CRM_API_KEY"]}  # COMPANY_CRM_KEY is not set
    data = describe_connections(mcp_app, environ=environ)

    rows = {row["name"]: row for row in data["connections"]}
    assert rows["crm__directory"]["url"] == "https://eu.directory.example.com/openapi.json"
    assert rows["company__directory"]["url"] is None
    [problem] = data["diagnostics"]["items"]
    assert problem["code"] == "connection/resolve-failed"
    assert "`company__directory` cannot resolve" in problem["message"]
    assert "COMPANY_CRM_KEY" in problem["message"]
