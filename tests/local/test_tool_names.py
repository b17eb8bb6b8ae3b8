"""Local and node tool and command names follow the naming rules (issue 23 item 16).

A bad name is left out with `local/name-invalid`, the rest of the extension loads,
and the message quotes at most 80 characters of the name, escaped.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from eve_build.node.registry import NodeEntry, write_registry
from eve_build.runtime import load_agent
from tests.node.fake import DESCRIPTION, fake_node, reply

BAD = ["a b", "", "ünï", "a\nb", "ok\n", "x" * 100, "y" * 100_000, "crm__search", "Upper",
       "-dash", "\x1b[2J"]
SCRIPT = '''\
from pydantic import BaseModel

from eve_build.sdk import Spec, define_command, define_tool

NAMES = {names!r}


class Nothing(BaseModel):
    pass


def tool():
    return define_tool(description="A tool.", input=Nothing, execute=lambda input, ctx: 1)


def setup(ctx):
    return Spec(tools={{name: tool() for name in [*NAMES, "good"]}},
                commands={{name: define_command(description="c", run=lambda args, ctx: "x")
                          for name in [*NAMES, "fine"]}})
'''


def _name_problems(diagnostics: list) -> list[str]:  # type: ignore[type-arg]
    return [d.message for d in diagnostics if d.code == "local/name-invalid"]


def test_bad_local_tool_and_command_names_are_left_out(app: Path, tmp_path: Path) -> None:
    script = tmp_path / "names.py"
    script.write_text(SCRIPT.format(names=BAD))
    with load_agent(app, extensions=[script]) as agent:
        [record] = [r for r in agent.local_extensions if r.name == "names"]
        assert record.status == "loaded"
        assert list(record.tools) == ["good"] and list(record.commands) == ["fine"]
        messages = _name_problems(record.diagnostics)
        assert len(messages) == 2 * len(BAD)
        assert all(len(m) < 600 for m in messages), max(len(m) for m in messages)
        assert all("\n" not in m and "\x1b" not in m for m in messages)
        assert any("`crm__search` contains `__`" in m for m in messages)
        assert any("... (100000 characters)` is 100000 characters long; at most 64" in m
                   for m in messages)
        assert any("the name `` in `tools` is left out: the name is empty" in m
                   for m in messages)
        assert all(d.file == str(script) for d in record.diagnostics)
        assert "without `__`" in record.diagnostics[0].hint
        assert agent.call_tool("good", {}).value == 1
        assert "a b" not in agent.tools()


def test_bad_node_tool_names_are_left_out(app: Path, eve_home: Path) -> None:
    tool = DESCRIPTION["tools"][0]
    description = {**DESCRIPTION, "hooks": [],
                   "tools": [{**tool, "name": name} for name in ["a b", "x__y", "q" * 5000]]
                   + [tool],
                   "commands": [{"name": "c d", "description": "", "argHint": None}]}
    write_registry(eve_home, {"fake": NodeEntry("fake", eve_home)})
    with fake_node(eve_home, "fake", lambda request: reply(request, description)), \
            load_agent(app) as agent:
        [record] = [r for r in agent.local_extensions if r.name == "fake"]
        assert record.status == "loaded" and list(record.tools) == ["echo"]
        assert record.commands == {}
        messages = _name_problems(record.diagnostics)
        assert len(messages) == 4 and all(len(m) < 600 for m in messages)


def test_init_refuses_the_reserved_separator(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "eve_build", "extension", "init", "aa__bb"],
                          capture_output=True, text=True, timeout=60, cwd=tmp_path,
                          env={**os.environ, "NO_COLOR": "1"})
    assert done.returncode == 2
    assert "`aa__bb` is not a valid extension name: it contains `__`, which is reserved" in (
        done.stderr)
    assert "aa_bb" in done.stderr  # the suggested spelling
    assert "Traceback" not in done.stderr
    assert list(tmp_path.iterdir()) == []
    long = subprocess.run([sys.executable, "-m", "eve_build", "extension", "init", "z" * 100_000],
                          capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert long.returncode == 2 and len(long.stderr) < 2000


def test_an_unknown_100_kb_tool_or_command_name_is_not_echoed_whole(
        app: Path, eve_home: Path) -> None:
    name = "q" * 100_000
    for args in (["call", name, "{}"], ["command", name]):
        done = subprocess.run([sys.executable, "-m", "eve_build", *args, "--path", str(app)],
                              capture_output=True, text=True, timeout=60,
                              env={**os.environ, "EVE_HOME": str(eve_home), "NO_COLOR": "1"})
        assert done.returncode in (1, 2), done.stderr[:500]
        assert "q" * 80 + "... (100000 characters)" in done.stderr
        assert len(done.stderr) < 2000 and "Traceback" not in done.stderr
