"""`eve init NAME`: the agent scaffold's files, its bad inputs, and its place in a workspace.

The real runs (a venv, `eve add`, `eve run`, the scaffold's own pytest) are in
test_agent_integration.py.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from eve_build.errors import DiagnosticsError
from eve_build.scaffold import derive_context, render_scaffold
from eve_build.scaffold.agent import init_agent, read_model
from eve_build.scaffold.render import AGENT_TEMPLATE
from tests.golden_files import assert_matches_golden
from tests.json_schemas import validate
from tests.scaffold.helpers import GOLDEN_EVE_VERSION, NO_IDENTITY, FakeRunner
from tests.scaffold.test_render import write_rendered

GOLDEN_AGENT = Path(__file__).parent.parent / "golden" / "scaffold" / "agent-demo"
EXPECTED_FILES = [
    ".env.example",
    ".github/workflows/ci.yml",
    ".gitignore",
    "README.md",
    "agent/agent.py",
    "agent/instructions.md",
    "agent/tools/greet.py",
    "pyproject.toml",
    "tests/test_agent.py",
]


def _eve(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "eve_build", *args], cwd=cwd, text=True,
                          capture_output=True, timeout=300, check=False)


def test_demo_renders_to_the_golden_files(tmp_path: Path, update_golden: bool) -> None:
    files = render_scaffold(derive_context("demo", eve_build_version=GOLDEN_EVE_VERSION),
                            kind=AGENT_TEMPLATE)
    assert list(files) == EXPECTED_FILES
    assert_matches_golden(write_rendered(files, tmp_path), GOLDEN_AGENT, update=update_golden)


def test_the_model_comes_from_eve_model_or_is_left_commented() -> None:
    assert read_model({"EVE_MODEL": " openai:gpt-4o "}) == "openai:gpt-4o"
    assert read_model({}) == ""
    named = render_scaffold(derive_context("demo", model="openai:gpt-4o"),
                            kind=AGENT_TEMPLATE)["agent/agent.py"]
    assert '    model="openai:gpt-4o",\n' in named and "# model=" not in named
    unnamed = render_scaffold(derive_context("demo"), kind=AGENT_TEMPLATE)["agent/agent.py"]
    assert "    # model=" in unnamed and '    model="' not in unnamed
    compile(named, "agent.py", "exec")
    compile(unnamed, "agent.py", "exec")


def test_init_writes_the_model_from_the_environment_and_builds(tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch,
                                                               ) -> None:
    monkeypatch.setenv("EVE_MODEL", "openai:gpt-4o-mini")
    result = init_agent("support-bot", tmp_path / "support-bot", install=False, git=False)
    text = (result.target / "agent" / "agent.py").read_text()
    assert 'model="openai:gpt-4o-mini",' in text
    compiled = json.loads((result.target / ".eve" / "compile" / "compiled-agent.json")
                          .read_text())
    assert "greet" in json.dumps(compiled)
    assert result.steps[-1] == "built the agent (eve build)"
    assert result.next_steps[-3:] == [".venv/bin/python -m pytest",
                                      ".venv/bin/eve add PACKAGE_OR_PATH",
                                      ".venv/bin/eve chat --model test"]


@pytest.mark.parametrize("kind", ["extension", AGENT_TEMPLATE])
def test_the_gitignore_keeps_secrets_and_outputs_out(kind: str, tmp_path: Path) -> None:
    files = render_scaffold(derive_context("demo"), kind=kind)
    root = write_rendered(files, tmp_path / "demo")
    assert subprocess.run(["git", "init", "-q"], cwd=root, check=False).returncode == 0
    ignored = [".env.local", ".venv/x", "build/x", ".eve/compile/x"]
    if kind == AGENT_TEMPLATE:
        ignored.append(".env")
    for name in ignored:
        done = subprocess.run(["git", "check-ignore", "-q", name], cwd=root, check=False)
        assert done.returncode == 0, f"{kind}: `{name}` is not ignored"
    for name in (".env.example", ".eve/extensions/notes.py", "agent/agent.py"):
        done = subprocess.run(["git", "check-ignore", "-q", name], cwd=root, check=False)
        assert done.returncode == 1, f"{kind}: `{name}` is ignored"


@pytest.mark.parametrize("name", ["Bad Name", "json", "my__agent"])
def test_a_bad_name_is_a_usage_error_with_its_code(name: str, tmp_path: Path) -> None:
    done = _eve("init", "--no-install", "--no-git", "--", name, cwd=tmp_path)

    assert done.returncode == 2, done.stdout + done.stderr
    assert "init/name-invalid" in done.stderr
    assert "is not a valid agent project name" in done.stderr
    assert "Traceback" not in done.stderr and done.stdout == ""
    assert list(tmp_path.iterdir()) == []


def test_a_non_empty_folder_is_refused_and_left_as_it_was(tmp_path: Path) -> None:
    target = tmp_path / "demo"
    (target / "agent").mkdir(parents=True)
    (target / "agent" / "agent.py").write_text("mine\n")

    done = _eve("init", "demo", "--no-install", "--no-git", cwd=tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "init/target-not-empty" in done.stderr
    assert "nothing was written" in done.stderr
    assert "Traceback" not in done.stderr and "Creating" not in done.stderr
    assert sorted(p.relative_to(target).as_posix() for p in target.rglob("*")) == [
        "agent", "agent/agent.py"]
    assert (target / "agent" / "agent.py").read_text() == "mine\n"

    json_done = _eve("init", "demo", "--no-install", "--no-git", "--json", cwd=tmp_path)
    assert json_done.returncode == 1
    answer = json.loads(json_done.stdout)
    validate("init.json", answer)
    assert answer["status"] == "failed"
    assert [d["code"] for d in answer["diagnostics"]["items"]] == ["init/target-not-empty"]


def test_a_file_in_the_way_is_refused(tmp_path: Path) -> None:
    (tmp_path / "demo").write_text("a file\n")
    with pytest.raises(DiagnosticsError) as caught:
        init_agent("demo", tmp_path / "demo", install=False, git=False)
    assert [d.code for d in caught.value.diagnostics] == ["init/target-not-a-folder"]
    assert (tmp_path / "demo").read_text() == "a file\n"


def test_the_cli_prints_what_it_made_and_the_next_steps(tmp_path: Path) -> None:
    done = _eve("init", "demo", "--no-install", "--no-git", cwd=tmp_path)

    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith("Created the agent demo in demo\n  - wrote 9 files\n")
    steps = [line.strip() for line in done.stdout.split("Next steps", 1)[1].splitlines()[1:]]
    assert steps[0] == "cd demo"
    assert steps[-3:] == [".venv/bin/python -m pytest", ".venv/bin/eve add PACKAGE_OR_PATH",
                          ".venv/bin/eve chat --model test"]
    created = _eve("init", "other", "--no-install", "--no-git", "--json", cwd=tmp_path)
    validate("init.json", json.loads(created.stdout))
    assert json.loads(created.stdout)["project"] == "other"


def test_inside_a_uv_workspace_it_becomes_a_member(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "agents"\nversion = "0.1.0"\n\n'
        "[tool.uv.workspace]\n# ours\nmembers = []\n")
    runner = FakeRunner(dict(NO_IDENTITY))
    result = init_agent("helpdesk", tmp_path / "agents" / "helpdesk", runner=runner)

    workspace = (tmp_path / "pyproject.toml").read_text()
    assert 'members = ["agents/helpdesk"]' in workspace and "# ours" in workspace
    assert "[tool.uv.sources]" not in workspace  # nothing depends on an agent project
    assert not (result.target / ".venv").exists()
    assert not (result.target / ".github").exists()
    assert not any(argv[:2] in (["git", "init"], ["git", "commit"]) for argv in runner.argvs)
    assert result.next_steps[-4:] == [
        "uv sync --all-packages",
        "uv run --package helpdesk --extra test pytest agents/helpdesk",
        "uv run --package helpdesk eve add PACKAGE_OR_PATH --path agents/helpdesk",
        "uv run --package helpdesk eve chat --model test --path agents/helpdesk"]


def test_the_ci_workflow_is_a_valid_github_workflow_that_tests_and_runs_offline() -> None:
    import check_jsonschema
    import jsonschema
    from ruamel.yaml import YAML

    schema_path = (Path(check_jsonschema.__file__).parent / "builtin_schemas" / "vendor"
                   / "github-workflows.json")
    text = render_scaffold(derive_context("demo", eve_build_version="1.2.3"),
                           kind=AGENT_TEMPLATE)[".github/workflows/ci.yml"]
    workflow = YAML(typ="safe").load(text)
    jsonschema.validate(workflow, json.loads(schema_path.read_text(encoding="utf-8")))
    runs = " ".join(str(step.get("run", "")) for step in workflow["jobs"]["test"]["steps"])
    assert workflow["env"]["EVE_BUILD"] == "eve-build==1.2.3"
    assert 'pip install --no-build-isolation -e ".[test]"' in runs
    assert "python -m pytest" in runs and 'eve run --model test "hello"' in runs
