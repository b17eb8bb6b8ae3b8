"""A connection whose server never answers (it accepts the TCP connection, then says
nothing, like an MCP server stuck before its `initialize` answer): `eve call` of one of
its tools is the connection's diagnostic, naming its file and the timeout to raise, with
no traceback; the agent's own tools still answer."""

from __future__ import annotations

import json
import logging
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from eve_build.consumer.build import build_agent
from tests.mcp.conftest import eve_command
from tests.mcp.servers import listening
from tests.runtime.apps import make_app

FILES = {
    "tools/hello.py": '''
        from pydantic import BaseModel

        from eve_build.sdk import define_tool


        class Nothing(BaseModel):
            pass


        tool = define_tool(description="Say hi.", input=Nothing,
                           execute=lambda arguments, ctx: "hi")
    ''',
    "connections/silent.py": '''
        from eve_build.sdk import define_connection, env

        connection = define_connection(url=env("SILENT_MCP_URL"), kind="mcp")
    ''',
}


@pytest.fixture
def silent_url() -> Iterator[str]:
    """A port that accepts connections (the kernel's backlog) and never answers."""
    with listening() as sock:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}/mcp"


@pytest.fixture
def silent_app(tmp_path: Path) -> Path:
    root = tmp_path / "app"
    root.mkdir()
    make_app(root, [], FILES)
    build_agent(root)
    return root


def _call(root: Path, url: str, tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    # the server never answers, so any timeout ends the same way: a short one keeps it quick
    env = {**os.environ, "SILENT_MCP_URL": url, "EVE_CONNECTION_TIMEOUT": "1",
           "EVE_HOME": str(tmp_path / "home"), "NO_COLOR": "1"}
    return subprocess.run(eve_command("call", *args, "--path", str(root)),
                          capture_output=True, text=True, env=env, timeout=120)


def test_a_tool_of_a_connection_that_never_answers_is_a_diagnostic(
        silent_app: Path, silent_url: str, tmp_path: Path) -> None:
    own = _call(silent_app, silent_url, tmp_path, "hello", "{}")
    missing = _call(silent_app, silent_url, tmp_path, "silent__add", "{}")

    assert (own.returncode, json.loads(own.stdout)) == (0, "hi"), own.stderr
    assert missing.returncode == 1
    assert missing.stdout == ""
    assert "Traceback" not in missing.stderr
    assert "CancelledError" not in missing.stderr
    assert ("agent/connections/silent.py: error connection/unreachable: the MCP connection "
            "`silent` did not answer within 1 s") in missing.stderr
    assert "raise `EVE_CONNECTION_TIMEOUT` (now 1 s)" in missing.stderr
    assert "error: the agent has no tool `silent__add`" in missing.stderr


def test_the_json_failure_carries_the_connection_diagnostic(
        silent_app: Path, silent_url: str, tmp_path: Path) -> None:
    missing = _call(silent_app, silent_url, tmp_path, "silent__add", "{}", "--json")

    assert missing.returncode == 1
    assert "Traceback" not in missing.stderr
    result = json.loads(missing.stdout)
    assert result["status"] == "failed"
    [problem] = result["diagnostics"]["items"]
    assert (problem["code"], problem["file"]) == ("connection/unreachable",
                                                  "agent/connections/silent.py")
    assert "EVE_CONNECTION_TIMEOUT" in problem["hint"]


def test_eve_run_in_an_agent_whose_connection_never_answers_prints_no_traceback(
        silent_app: Path, silent_url: str, tmp_path: Path) -> None:
    """The same abandoned open under `eve run` (its connections open to list the agent's
    skills and tools): a mistyped skill is its own error, and nothing else is printed."""
    env = {**os.environ, "SILENT_MCP_URL": silent_url, "EVE_CONNECTION_TIMEOUT": "1",
           "EVE_HOME": str(tmp_path / "home"), "NO_COLOR": "1"}
    done = subprocess.run(eve_command("run", "-m", "test", "/skill:nothing", "--path",
                                      str(silent_app)),
                          capture_output=True, text=True, env=env, timeout=120)

    assert done.returncode == 1
    assert "error: the agent has no skill `nothing`" in done.stderr
    assert "Traceback" not in done.stderr
    assert "never retrieved" not in done.stderr


def test_the_logged_warning_names_the_file_and_the_timeout_to_raise(
        silent_app: Path, silent_url: str, caplog: pytest.LogCaptureFixture) -> None:
    """What `eve serve` logs when the agent's tools are first listed."""
    from eve_build.runtime.loader import load_agent

    environ = {**os.environ, "SILENT_MCP_URL": silent_url, "EVE_CONNECTION_TIMEOUT": "1"}
    caplog.set_level(logging.WARNING, logger="eve_build.runtime")
    with load_agent(silent_app, environ=environ, local=False) as agent:
        names = agent.tools()

    assert names == ["hello"]
    [line] = [r.getMessage() for r in caplog.records if "`silent`" in r.getMessage()]
    assert line.startswith("agent/connections/silent.py: the MCP connection `silent` did not "
                           "answer within 1 s: its tools are left out (hint: ")
    assert "raise `EVE_CONNECTION_TIMEOUT` (now 1 s)" in line
