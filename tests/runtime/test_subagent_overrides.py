"""Overrides of a mounted extension's subagent: `agent/subagents/crm__reviewer/` at the
agent root, and `agent/extensions/crm/subagents/reviewer/` beside a directory mount."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from eve_build.consumer.build import build_agent
from eve_build.errors import DiagnosticsError
from eve_build.runtime import Agent
from tests.runtime.apps import compile_app, make_app, mount_file

LENIENT_SCORE = """\
from acme_crm.extension.subagents.reviewer.tools.score import tool as original


def lenient(input, ctx):
    return {"change": input.change, "score": 10, "risky": False}


tool = original.replace(execute=lenient)
"""
DISABLED = "from eve_build.sdk import disable_tool\n\ntool = disable_tool()\n"
CRM = mount_file("acme_crm", 'api_key="k"')


def test_a_root_subagent_override_replaces_the_subagents_tool(
    app: Callable[..., Path], load: Callable[..., Agent]
) -> None:
    root = app(["acme-crm"], {"extensions/crm.py": CRM,
                              "subagents/crm__reviewer/tools/score.py": LENIENT_SCORE})
    agent = load(root)

    result = agent.call_tool("score", {"change": "delete billing"}, subagent="crm__reviewer")

    assert result.value == {"change": "delete billing", "score": 10, "risky": False}
    assert result.identity == "acme_crm:subagents/reviewer/tools/score.py"
    assert agent.compiled.root.subagents[0].tools[0].source == "root-override"
    assert "crm__reviewer" not in [t.path for t in agent.compiled.root.subagents
                                   if t.mount is None]  # not a subagent of the agent's own


def test_an_override_beside_a_directory_mount_disables_the_subagents_tool(
    app: Callable[..., Path], load: Callable[..., Agent]
) -> None:
    root = app(["acme-crm"], {"extensions/crm/extension.py": CRM,
                              "extensions/crm/subagents/reviewer/tools/score.py": DISABLED})
    agent = load(root)

    assert agent.tools("crm__reviewer") == []
    assert agent.tools("crm__reviewer/checker") == ["verify"]


def test_an_override_folder_of_an_unknown_namespace_is_an_error(tmp_path: Path) -> None:
    root = make_app(tmp_path / "app", ["acme-crm"], {
        "extensions/crm.py": CRM, "subagents/billing__reviewer/tools/score.py": DISABLED})
    with pytest.raises(DiagnosticsError) as caught:
        compile_app(root)
    assert [(d.code, d.file) for d in caught.value.diagnostics if d.is_error] == [
        ("agent/override-namespace-unknown", "agent/subagents/billing__reviewer")]


def test_an_override_of_a_subagent_the_package_lacks_is_a_warning(tmp_path: Path) -> None:
    root = make_app(tmp_path / "app", ["acme-crm"], {
        "extensions/crm.py": CRM, "subagents/crm__auditor/tools/score.py": DISABLED})
    compile_app(root)
    [found] = [d for d in build_agent(root).warnings if d.code == "mount/override-unknown"]
    assert found.file == "agent/subagents/crm__auditor/tools/score.py"
    assert "has no subagent of that name" in found.message


@pytest.mark.parametrize(("files", "shown", "what"), [
    ({"subagents/crm__reviewer/agent.py":
      "from eve_build.sdk import define_agent\n\nagent = define_agent(description='Mine.')\n"},
     "agent/subagents/crm__reviewer/agent.py", "its description"),
    ({"subagents/crm__reviewer/instructions.md": "Be lenient.\n"},
     "agent/subagents/crm__reviewer/instructions.md", "its instructions"),
    ({"extensions/crm/subagents/reviewer/instructions.md": "Be lenient.\n"},
     "agent/extensions/crm/subagents/reviewer/instructions.md", "its instructions"),
])
def test_an_override_folder_cannot_change_the_subagent_itself(
    tmp_path: Path, files: dict[str, str], shown: str, what: str
) -> None:
    mount = ("extensions/crm/extension.py" if shown.startswith("agent/extensions/")
             else "extensions/crm.py")
    root = make_app(tmp_path / "app", ["acme-crm"], {mount: CRM, **files})
    with pytest.raises(DiagnosticsError) as caught:
        compile_app(root)

    [problem] = [d for d in caught.value.diagnostics if d.code == "mount/override-unsupported"]
    assert problem.file == shown
    assert f"would change {what} of the mounted subagent `reviewer`" in problem.message
    assert "define your own subagent under another name" in problem.hint
    assert not (root / ".eve" / "compile" / "compiled-agent.json").exists()


MODEL_ONLY = ("from eve_build.sdk import define_agent\n\n"
              "agent = define_agent(model={model!r})\n")


@pytest.mark.parametrize(("mount", "folder"), [
    ("extensions/crm.py", "subagents/crm__reviewer"),
    ("extensions/crm/extension.py", "extensions/crm/subagents/reviewer"),
])
def test_an_override_folders_agent_py_sets_the_mounted_subagents_model(
    tmp_path: Path, mount: str, folder: str
) -> None:
    root = make_app(tmp_path / "app", ["acme-crm"], {
        mount: CRM, f"{folder}/agent.py": MODEL_ONLY.format(model="openai:gpt-4.1")})
    compiled = compile_app(root)

    [reviewer] = [t for t in compiled.root.subagents if t.path == "crm__reviewer"]
    assert reviewer.model == "openai:gpt-4.1"
    assert reviewer.agent_module == f"eve_agent.{folder.replace('/', '.')}.agent"
    assert reviewer.description  # the package's, kept
    assert [t.model for t in reviewer.subagents] == [None]  # its nested one is the package's


ROOT_TEST_MODEL = MODEL_ONLY.format(model="test")


def test_a_bad_subagent_model_fails_only_its_delegation_naming_its_file(
    tmp_path: Path
) -> None:
    import json
    import os
    import subprocess
    import sys

    root = make_app(tmp_path / "app", ["acme-crm"], {
        "extensions/crm.py": CRM, "agent.py": ROOT_TEST_MODEL,
        "subagents/crm__reviewer/agent.py": MODEL_ONLY.format(model="gpt-x")})
    compile_app(root)
    env = {k: v for k, v in os.environ.items() if k != "EVE_MODEL"}
    done = subprocess.run([sys.executable, "-m", "eve_build", "run", "review it", "--json",
                           "--path", str(root)], env={**env, "EVE_HOME": str(tmp_path / "h")},
                          capture_output=True, text=True, timeout=180, check=False)

    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    [delegation] = [c for c in data["toolCalls"] if c["name"] == "delegate_crm__reviewer"]
    assert delegation["status"] == "failed"
    assert delegation["reason"].startswith(
        "the subagent `crm__reviewer` cannot run: the model `gpt-x` (from "
        "`define_agent(model=...)` in `agent/subagents/crm__reviewer/agent.py`) names no "
        "provider")
    assert any(c["status"] == "ok" for c in data["toolCalls"])  # the rest of the turn ran
