"""`eve build` and `eve info` through the CLI: exit codes, exact lines, golden JSON."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from eve_build.cli import app
from tests.conftest import GOLDEN
from tests.consumer.conftest import MakeApp

GOLDEN_INFO = GOLDEN / "consumer"


def _files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes()
            for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.mark.parametrize(("fixture", "extensions"), [
    ("one-mount", ("acme-crm", "gizmo")),
    ("two-mounts-one-package", ("acme-crm",)),
    ("directory-mount", ("acme-crm", "gizmo")),
    ("nested-mount", ("acme-crm", "gizmo")),
])
def test_info_json_matches_the_golden_file(make_app: MakeApp, update_golden: bool,
                                           fixture: str, extensions: tuple[str, ...]) -> None:
    root = make_app(fixture, *extensions)
    before = _files(root)

    result = CliRunner().invoke(app, ["info", "--json", "--path", str(root)])

    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert list(data) == ["status", "diagnostics", "instructions", "tools", "toolInputSchemas",
                          "skills", "subagents", "schedules", "channels", "extensions", "hooks",
                          "toolsSource", "env"]
    assert _files(root) == before  # info writes nothing: no `.eve/`, no extension output
    golden = GOLDEN_INFO / f"{fixture}.json"
    text = json.dumps(data, indent=2) + "\n"
    if update_golden:
        golden.parent.mkdir(parents=True, exist_ok=True)
        golden.write_text(text)
    assert golden.read_text() == text


def test_info_human_output(make_app: MakeApp) -> None:
    root = make_app("flat", "gizmo")

    result = CliRunner().invoke(app, ["info", "--path", str(root)])

    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines() == [
        "status: ready",
        "diagnostics: 0 errors, 0 warnings",
        "instructions: instructions.md, gizmo/extension/instructions.md",
        "tools (1): gizmo__spin",
        "skills (0): -",
        "subagents (0): -",
        "schedules (0): -",
        "channels (0):",
        "extensions (1):",
        "  gizmo: gizmo 1.0.0 (source-backed, built with eve-build 0.1.0)",
        "hooks:",
        "  gizmo: guard",
    ]


def test_info_shows_env_config_by_name_and_other_values_only_when_asked(
        make_app: MakeApp) -> None:
    root = make_app("one-mount", "acme-crm")
    hidden = CliRunner().invoke(app, ["info", "--path", str(root)])
    shown = CliRunner().invoke(app, ["info", "--path", str(root), "--show-config"])

    assert hidden.exit_code == 0, hidden.output
    assert '    config: api_key=env("CRM_API_KEY"), region=(hidden)' in hidden.stdout
    assert '    config: api_key=env("CRM_API_KEY"), region="us"' in shown.stdout
    assert "  crm: acme-crm 0.3.0 (source-backed, built with eve-build 0.1.0)" in hidden.stdout
    assert "  agent: log\n  crm: audit, auth/load_profile\n" in hidden.stdout


def test_info_of_a_failing_agent_exits_1_with_its_diagnostics(make_app: MakeApp) -> None:
    root = make_app("flat", "gizmo")
    (root / "extensions" / "gizmo.py").write_text("from gizmo import gizmo\nmount = 7\n")

    result = CliRunner().invoke(app, ["info", "--json", "--path", str(root)])

    assert result.exit_code == 1
    data = json.loads(result.stdout)
    assert data["status"] == "failed"
    assert data["diagnostics"]["errors"] == 1
    assert data["tools"] == [] and data["extensions"] == []
    assert "extensions/gizmo.py:2: error mount/definition-wrong-kind" in result.stderr
    assert "Traceback" not in result.output


def test_build_prints_what_it_did(make_app: MakeApp, monkeypatch: pytest.MonkeyPatch) -> None:
    root = make_app("flat", "gizmo")
    monkeypatch.chdir(root)

    first = CliRunner().invoke(app, ["build"])
    second = CliRunner().invoke(app, ["build"])

    assert first.exit_code == 0, first.output
    assert first.stdout.splitlines() == [
        "  gizmo: built",
        "Built the agent in . (1 tool, 1 mount) into .eve/compile/compiled-agent.json",
    ]
    assert second.stdout.splitlines()[-1].endswith("compiled-agent.json (unchanged)")
    assert "  gizmo: up to date" in second.stdout


def test_build_json(make_app: MakeApp) -> None:
    root = make_app("flat", "gizmo")

    result = CliRunner().invoke(app, ["build", "--json", "--path", str(root)])

    data = json.loads(result.stdout)
    assert (data["status"], data["written"]) == ("ready", True)
    assert data["extensions"] == [{"package": "gizmo",
                                   "directory": str((root / "packages" / "gizmo").resolve()),
                                   "state": "built"}]
    assert data["diagnostics"] == {"errors": 0, "warnings": 0, "items": []}


def test_a_failed_build_exits_1_with_located_errors(make_app: MakeApp) -> None:
    root = make_app("flat", "gizmo")
    (root / "instructions.md").unlink()
    (root / "extensions" / "gizmo.py").touch()  # still there; the agent is not flat any more
    (root / "agent").mkdir()

    result = CliRunner().invoke(app, ["build", "--path", str(root)])

    assert result.exit_code == 1
    assert result.stderr.splitlines() == [
        "agent/instructions.md: error agent/instructions-missing: the agent has no "
        "`agent/instructions.md`",
        "  hint: create `agent/instructions.md` with what the agent is for and how it should "
        "work",
        f"error: cannot build the agent in `{root.resolve()}`: 1 error",
    ]
    assert "Traceback" not in result.output


def test_a_wrong_agent_name_is_a_usage_error(make_app: MakeApp) -> None:
    root = make_app("workspace-agents", "gizmo")

    result = CliRunner().invoke(app, ["build", "--path", str(root), "--agent", "billing"])

    assert result.exit_code == 2
    assert result.stderr.splitlines()[0].startswith("error: there is no agent `billing` in ")
    assert "Traceback" not in result.output


def test_build_agent_option_in_a_workspace(make_app: MakeApp) -> None:
    root = make_app("workspace-agents", "gizmo")

    result = CliRunner().invoke(app, ["build", "--path", str(root), "--agent", "support"])

    assert result.exit_code == 0, result.output
    assert (root / "agents" / "support" / ".eve" / "compile" / "compiled-agent.json").is_file()
