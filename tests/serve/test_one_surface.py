"""What the agent has: one surface for `eve prompt`, `eve info --json`, MCP `tools/list`
and a session's toolset. The fixture `disabled-tool-named` disables its `spinner` mount's
`spin` with `disable_tool()` and keeps a fragment that names it as `{{tool:spin}}`: the
build warns, and no interface shows the tool or the fragment. A local extension in
`$EVE_HOME/extensions/` adds a tool the compiled agent does not list: every interface,
`eve info` included, shows it."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
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


JOT = '''\
from pydantic import BaseModel

from eve_build.sdk import Spec, define_tool


class JotInput(BaseModel):
    text: str


def setup(ctx):
    return Spec(tools={"jot": define_tool(description="Jot a note down.", input=JotInput,
                                          execute=lambda input, ctx: input.text)})
'''


def _eve(root: Path, *args: str, home: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = os.environ if home is None else {**os.environ, "EVE_HOME": str(home)}
    return subprocess.run([sys.executable, "-m", "eve_build", *args, "--path", str(root)],
                          capture_output=True, text=True, timeout=TIMEOUT, check=False, env=env)


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


def test_a_local_tool_is_on_every_interface_eve_info_included(
        built: tuple[Path, dict[str, Any]], tmp_path: Path) -> None:
    root, _ = built
    home = tmp_path / "home"
    (home / "extensions").mkdir(parents=True)
    (home / "extensions" / "jotter.py").write_text(JOT)
    prompt_run = _eve(root, "prompt", "--json", home=home)
    info_run = _eve(root, "info", "--json", home=home)
    assert prompt_run.returncode == 0, prompt_run.stderr
    assert info_run.returncode == 0, info_run.stderr
    prompt, info = json.loads(prompt_run.stdout), json.loads(info_run.stdout)

    listed = [line.removeprefix("- ").split(":")[0]
              for line in prompt["text"].split("Tools:\n", 1)[1].splitlines()]
    assert listed == ["greet", "jot"]
    assert info["tools"] == listed
    assert _mcp_tools(root, home) == listed
    assert _session_tools(root, home) == listed
    assert info["toolsSource"] == {"from": "surface", "note": None}
    assert set(info["toolInputSchemas"]["root"]) == {"greet", "jot"}
    assert info["toolInputSchemas"]["root"]["jot"]["properties"] == {
        "text": {"title": "Text", "type": "string"}}
    # the compiled agent alone does not have it: the surface is the one answer
    compiled = json.loads((root / ".eve" / "compile" / "compiled-agent.json").read_text())
    assert [t["name"] for t in compiled["root"]["tools"]] == ["greet"]


def test_info_lists_the_compiled_tools_with_a_note_when_the_agent_is_not_built(
        built: tuple[Path, dict[str, Any]], tmp_path: Path) -> None:
    root, _ = built
    copy = copy_fixture_tree(root, tmp_path / "app")  # outputs (`.eve/`) left out
    home = tmp_path / "home"
    (home / "extensions").mkdir(parents=True)
    (home / "extensions" / "jotter.py").write_text(JOT)

    done = _eve(copy, "info", "--json", home=home)
    human = _eve(copy, "info", home=home)

    assert done.returncode == 0, done.stderr
    info = json.loads(done.stdout)
    assert info["tools"] == ["greet"]
    assert info["toolsSource"]["from"] == "compiled"
    assert info["toolsSource"]["note"].startswith("the agent is not built (run `eve build`)")
    assert "tools (1): greet" in human.stdout
    assert "note: tools: the agent is not built (run `eve build`)" in human.stderr


def test_info_lists_the_compiled_tools_with_a_note_when_the_build_is_behind(
        built: tuple[Path, dict[str, Any]], tmp_path: Path) -> None:
    root, _ = built
    copy = tmp_path / "app"
    shutil.copytree(root, copy, symlinks=True)  # `.eve/` too: built, then a tool is added
    (copy / "agent" / "tools" / "wave.py").write_text(
        (copy / "agent" / "tools" / "greet.py").read_text().replace("Greet a", "Wave to a"))

    done = _eve(copy, "info", "--json")

    assert done.returncode == 0, done.stderr
    info = json.loads(done.stdout)
    assert info["tools"] == ["greet", "wave"]  # what the sources compile to, not the build's
    assert info["toolsSource"]["from"] == "compiled"
    assert info["toolsSource"]["note"].startswith(
        "the built agent is behind its sources (run `eve build`)")


def _mcp_tools(root: Path, home: Path | None = None) -> list[str]:
    env = None if home is None else {**os.environ, "EVE_HOME": str(home)}
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "eve_build", "mcp", "--path", str(root)], env=env)

    async def main() -> list[str]:
        async with asyncio.timeout(TIMEOUT), Client(stdio_client(params),
                                                    read_timeout_seconds=60) as client:
            return sorted(tool.name for tool in (await client.list_tools()).tools)

    return asyncio.run(main())


def _session_tools(root: Path, home: Path | None = None) -> list[str]:
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
    env = os.environ if home is None else {**os.environ, "EVE_HOME": str(home)}
    done = subprocess.run([sys.executable, "-c", code, str(root)], capture_output=True,
                          text=True, timeout=TIMEOUT, check=False, env=env)
    assert done.returncode == 0, done.stderr
    listed: list[str] = json.loads(done.stdout)
    return listed
