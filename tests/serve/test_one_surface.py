"""What the agent has (issue 30 item 1): one surface for `eve prompt`, `eve info --json`,
MCP `tools/list` and a session's toolset. The fixture `disabled-tool-named` disables its
`spinner` mount's `spin` with `disable_tool()` and keeps a fragment that names it as
`{{tool:spin}}`: the build warns, and no interface shows the tool or the fragment."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client

from tests.conftest import FIXTURES, copy_fixture_tree

TIMEOUT = 120
FRAGMENT = "agent/extensions/spinner/instructions.md"


def _eve(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "eve_build", *args, "--path", str(root)],
                          capture_output=True, text=True, timeout=TIMEOUT, check=False)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    root = copy_fixture_tree(FIXTURES / "apps" / "disabled-tool-named",
                             tmp_path_factory.mktemp("surface") / "app")
    copy_fixture_tree(FIXTURES / "extensions" / "gizmo", root / "packages" / "gizmo")
    done = _eve(root, "build", "--json")
    assert done.returncode == 0, done.stderr
    return root, json.loads(done.stdout)


def test_the_build_warns_about_a_fragment_naming_a_disabled_tool(
        built: tuple[Path, dict[str, Any]]) -> None:
    _, payload = built
    [found] = payload["diagnostics"]["items"]

    assert (found["severity"], found["code"], found["file"], found["line"]) == (
        "warning", "agent/instructions-tool-missing", FRAGMENT, 2)
    assert "`spinner__spin`" in found["message"]
    assert "disable_tool()" in found["hint"]


def test_prompt_info_mcp_and_the_session_toolset_have_one_surface(
        built: tuple[Path, dict[str, Any]]) -> None:
    root, _ = built
    prompt_run = _eve(root, "prompt", "--json")
    info_run = _eve(root, "info", "--json")
    assert prompt_run.returncode == 0, prompt_run.stderr
    assert info_run.returncode == 0, info_run.stderr
    prompt, info = json.loads(prompt_run.stdout), json.loads(info_run.stdout)

    listed = [line.removeprefix("- ").split(":")[0]
              for line in prompt["text"].split("Tools:\n", 1)[1].splitlines()]
    assert info["tools"] == listed == ["greet"]
    assert _mcp_tools(root) == listed
    assert _session_tools(root) == listed
    # the fragment that tells the model to call the disabled tool is not shown to it
    assert "spinner__spin" not in prompt["text"] and "spinning" not in prompt["text"]
    [omitted] = [p for p in prompt["parts"] if p["file"] == FRAGMENT]
    assert omitted["text"] is None
    assert omitted["error"] == ("not shown to the model: it names `spinner__spin`, which the "
                                "agent does not have")
    assert (f"warning: the instructions of mount `spinner` (`{FRAGMENT}`) are not shown to "
            "the model") in prompt_run.stderr
    # what `eve info` reports about the build says the same
    codes = [d["code"] for d in info["diagnostics"]["items"]]
    assert codes == ["agent/instructions-tool-missing"]


def _mcp_tools(root: Path) -> list[str]:
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "eve_build", "mcp", "--path", str(root)])

    async def main() -> list[str]:
        async with asyncio.timeout(TIMEOUT), Client(stdio_client(params),
                                                    read_timeout_seconds=60) as client:
            return sorted(tool.name for tool in (await client.list_tools()).tools)

    return asyncio.run(main())


def _session_tools(root: Path) -> list[str]:
    """The tools a session's model is offered (eve_build.session.toolset), in a process of
    its own like every interface above."""
    code = (
        "import asyncio, json, sys\n"
        "from pathlib import Path\n"
        "from eve_build.runtime import load_agent\n"
        "from eve_build.session.toolset import AgentToolset, RunState\n"
        "async def noop():\n    return None\n"
        "with load_agent(Path(sys.argv[1])) as agent:\n"
        "    state = RunState(approver=None, listener=lambda event: None, after_call=noop)\n"
        "    tools = asyncio.run(AgentToolset(agent, state).get_tools(None))\n"
        "print(json.dumps(sorted(tools)))\n")
    done = subprocess.run([sys.executable, "-c", code, str(root)], capture_output=True,
                          text=True, timeout=TIMEOUT, check=False)
    assert done.returncode == 0, done.stderr
    listed: list[str] = json.loads(done.stdout)
    return listed
