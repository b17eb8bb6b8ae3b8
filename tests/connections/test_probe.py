"""`eve connections --probe`: an SSE-only server is probed over SSE, and each row says
what happened (`ok`, `unauthorized`, `unreachable`, `not-mcp`)."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from eve_build.cli import app as cli
from eve_build.mcp.connection_report import describe_connections
from tests.connections.conftest import TOKEN


def test_an_sse_only_server_is_probed_over_sse(connected_app: Path,
                                               connected_env: dict[str, str]) -> None:
    data = describe_connections(connected_app, probe=True, environ=connected_env, timeout=10)

    rows = {row["name"]: row["probe"] for row in data["connections"] if "probe" in row}
    assert rows["legacy"] == {"status": "ok", "reachable": True, "transport": "sse",
                              "tools": ["add", "count", "echo", "get.version", "refuse", "wait"],
                              "error": None}
    assert rows["remote"]["transport"] == "streamable-http"
    assert rows["crm__api"]["transport"] == "sse"
    assert rows["down"]["status"] == "unreachable" and rows["down"]["reachable"] is False


def test_a_refused_token_is_unauthorized_not_unreachable(connected_app: Path,
                                                        connected_env: dict[str, str]) -> None:
    env = {**connected_env, "REMOTE_TOKEN": "Bearer wrong-token-value"}
    result = CliRunner(env=env).invoke(cli, ["connections", "--probe", "--timeout", "10",
                                             "--path", str(connected_app)])
    data = describe_connections(connected_app, probe=True, environ=env, timeout=10)

    rows = {row["name"]: row["probe"] for row in data["connections"] if "probe" in row}
    for name in ("remote", "legacy"):  # streamable HTTP and SSE both answer 401
        assert rows[name]["status"] == "unauthorized", name
        assert rows[name]["reachable"] is True  # it answered
        assert "HTTP 401, unauthorized" in rows[name]["error"]
    assert "    unauthorized: the MCP connection `remote` was refused" in result.stdout
    assert "    unreachable: the MCP connection `down`" in result.stdout
    # crm__api (over SSE):
    assert "tools: add, count, echo, get.version, refuse, wait (over SSE)" in result.stdout
    assert result.exit_code == 1
    shown = result.stdout + result.stderr + json.dumps(data)
    assert "wrong-token-value" not in shown and TOKEN not in shown
    assert "Traceback" not in shown
