"""`eve ext` through the CLI: exact messages, exit codes, no traceback."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from typer.testing import CliRunner, Result

from eve_build.cli import app as cli
from eve_build.node.lifecycle import StartReport
from tests.conftest import FIXTURES, copy_fixture_tree
from tests.json_schemas import validate


def ext(*args: str, input: str | None = None) -> Result:
    result = CliRunner().invoke(cli, ["ext", *args], input=input)
    assert "Traceback" not in result.output
    return result


def test_add_shows_what_it_registers_and_asks(home: Path, tmp_path: Path) -> None:
    project = copy_fixture_tree(FIXTURES / "nodes" / "echo-node", tmp_path / "echo-node")
    refused = ext("add", str(project), input="n\n")
    assert refused.exit_code == 1
    assert f"Registering node `echo-node` from `{project}`:" in refused.output
    assert "files: extension.py, pyproject.toml" in refused.output
    assert not (home / "nodes.json").exists()
    added = ext("add", str(project), "--yes")
    assert added.exit_code == 0, added.output
    assert "Registered node `echo-node`; start it with `eve node start echo-node`" in added.output
    listed = ext("list", "--json")
    assert listed.exit_code == 0
    validate("ext-list.json", json.loads(listed.stdout))
    assert json.loads(listed.stdout)["nodes"] == [{
        "name": "echo-node", "path": str(project.resolve()), "running": False, "pid": None,
        "socket": str(home / "run" / "echo-node.sock"),
        "log": str(home / "logs" / "echo-node.log"), "tools": []}]


def test_start_of_an_unregistered_name_is_a_diagnostic(home: Path) -> None:
    result = ext("start", "ghost")
    assert result.exit_code == 1
    assert "error node/not-registered: no node `ghost` is registered (registered: none)" in (
        result.output)
    assert "hint: register it first with `eve node add PATH`" in result.output


def test_stop_of_a_node_that_is_not_running(home: Path,
                                            register: Callable[[str, str], Path]) -> None:
    register("echo-node", "echo")
    result = ext("stop", "echo", "--json")
    assert result.exit_code == 0  # stopping a stopped node is no error (issue 19 item 13)
    data = json.loads(result.stdout)
    validate("ext-stop.json", data)
    assert data["status"] == "stopped" and data["how"] == "not-running"
    plain = ext("stop", "echo")
    assert plain.exit_code == 0
    assert "Node `echo` is not running; nothing to stop" in plain.stderr


def test_add_of_a_folder_that_is_no_project(home: Path) -> None:
    result = ext("add", str(FIXTURES / "extensions"), "--yes")
    assert result.exit_code == 1
    assert "error node/project-invalid:" in result.output


def test_list_and_stop_a_running_node(home: Path,
                                      run_node: Callable[[str, str], StartReport]) -> None:
    report = run_node("echo-node", "echo")
    listed = ext("list")
    assert f"echo  running (pid {report.pid}, `{report.socket}`)" in listed.output
    assert "tools: echo, sleep, wait" in listed.output
    stopped = ext("stop", "echo")
    assert stopped.exit_code == 0 and stopped.output == "Node `echo` stopped\n"
    removed = ext("remove", "echo")
    assert removed.output == "Removed node `echo`\n"
    assert ext("list").output == "No nodes registered; add one with `eve node add PATH`\n"
