"""`eve call` and `eve state migrate` end to end, on a compiled fixture agent."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from eve_build.cli import app as cli
from tests.runtime.apps import mount_file

AGENT = {
    "extensions/crm.py": mount_file("acme_crm", 'api_key=env("CRM_API_KEY"), region="us"'),
    "extensions/gizmo.py": mount_file("gizmo"),
}
KEY = {"CRM_API_KEY": "secret-key"}


@pytest.fixture
def agent_app(app: Callable[..., Path]) -> Path:
    return app(["acme-crm", "gizmo"], AGENT)


def call(root: Path, *args: str, env: dict[str, str | None] | None = None) -> Result:
    return CliRunner(env=KEY if env is None else env).invoke(
        cli, ["call", *args, "--path", str(root)])


def test_a_call_prints_the_result_as_json(agent_app: Path) -> None:
    result = call(agent_app, "crm__search", '{"query": "Ada"}')
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout) == {
        "query": "ada", "region": "us", "limit": 5, "requests": 1, "results": [],
        "url": "https://us.crm.example.com/api/contacts/search?limit=5&q=ada"}
    assert result.stderr == "progress: searching us for 'ada'\n"


def test_json_prints_the_whole_result_with_its_trace(agent_app: Path) -> None:
    result = call(agent_app, "gizmo__spin", '{"times": 2}', "--json")
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    assert (payload["status"], payload["value"], payload["identity"]) == (
        "ok", {"spins": 2}, "gizmo:tools/spin.py")
    assert [(e["mount"], e["hook"], e["outcome"]) for e in payload["trace"]] == [
        ("crm", "audit", "proceed"), ("gizmo", "guard", "proceed"), ("crm", "audit", "proceed")]


def test_a_blocked_call_says_why_on_stderr(agent_app: Path) -> None:
    result = call(agent_app, "gizmo__spin", '{"times": 13}')
    assert result.exit_code == 1
    assert result.stdout == ""
    assert result.stderr == (
        "error: `gizmo__spin` blocked: hook `guard` of mount `gizmo`: 13 spins are unlucky\n")


def test_a_call_that_needs_approval_is_refused_unless_approved(agent_app: Path) -> None:
    arguments = '{"name": "Ada", "email": "ada@example.com"}'
    refused = call(agent_app, "crm__create_contact", arguments)
    assert refused.exit_code == 1
    assert refused.stderr == (
        "error: `crm__create_contact` refused: it needs approval (always) and no approver was "
        "given\n\nhint: pass `--approve` to approve the call\n")
    approved = call(agent_app, "crm__create_contact", arguments, "--approve")
    assert approved.exit_code == 0, approved.output
    assert json.loads(approved.stdout)["created"] is True


def test_a_missing_env_value_fails_only_the_mount_that_needs_it(agent_app: Path) -> None:
    unavailable = ("the mount `agent/extensions/crm.py` is unavailable: config field `api_key` "
                   'reads env("CRM_API_KEY"), which is not set')
    other = call(agent_app, "gizmo__spin", env={"CRM_API_KEY": None})
    assert other.exit_code == 0, other.output
    assert json.loads(other.stdout) == {"spins": 1}
    assert other.stderr.splitlines() == [
        f"warning: the hook `audit` of `crm` did not run: {unavailable}",
        f"warning: the hook `auth/load_profile` of `crm` did not run: {unavailable}",
    ]
    needing = call(agent_app, "crm__search", '{"query": "Ada"}', env={"CRM_API_KEY": None})
    assert needing.exit_code == 1
    assert needing.stderr == (
        f"error: `crm__search` failed: `crm__search` cannot run: {unavailable}\n")
    assert "Traceback" not in other.output + needing.output


def test_arguments_that_do_not_fit_the_input_model_name_the_fields(agent_app: Path) -> None:
    result = call(agent_app, "crm__search", '{"limit": "lots"}')
    assert result.exit_code == 1
    assert result.stderr == (
        "error: `crm__search` failed: invalid arguments: `query`: Field required; `limit`: "
        "Input should be a valid integer, unable to parse string as an integer\n")
    assert "Traceback" not in result.output


def test_arguments_that_are_not_json_are_a_usage_error(agent_app: Path) -> None:
    result = call(agent_app, "crm__search", '{"query": ')
    assert result.exit_code == 2
    assert result.stderr.splitlines()[0] == (
        "error: the arguments are not valid JSON: Expecting value (line 1, column 11)")
    assert "Traceback" not in result.output


def test_arguments_can_come_from_a_file(agent_app: Path, tmp_path: Path) -> None:
    (tmp_path / "args.json").write_text('{"times": 4}')
    result = call(agent_app, "gizmo__spin", f"@{tmp_path / 'args.json'}")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout) == {"spins": 4}


def test_an_unknown_tool_suggests_names(agent_app: Path) -> None:
    result = call(agent_app, "spin")
    assert result.exit_code == 1
    assert result.stderr == (
        "error: the agent has no tool `spin`\n\nhint: did you mean `gizmo__spin`?\n")


TWO_CRMS = {
    "extensions/crm.py": mount_file("acme_crm", 'api_key="k1"'),
    "extensions/company.py": mount_file("acme_crm", 'api_key="k2"'),
    "channels/company__webhook.py": """\
        import dataclasses
        from acme_crm.extension.channels.webhook import channel as original
        channel = dataclasses.replace(original, route="/company/webhook")
        """,
}


def migrate(root: Path, *args: str) -> Result:
    return CliRunner().invoke(cli, ["state", "migrate", *args, "--path", str(root)])


def test_state_migrate_moves_old_keys(agent_app: Path, tmp_path: Path) -> None:
    snapshot = tmp_path / "session.json"
    snapshot.write_text(json.dumps({"state": {"acme-crm.requests": 3, "gizmo.spins": 1}}))
    result = migrate(agent_app, str(snapshot), "-o", str(tmp_path / "new.json"))
    assert result.exit_code == 0, result.output
    assert json.loads((tmp_path / "new.json").read_text()) == {
        "formatVersion": 1, "state": {"extensions/crm:requests": 3}, "approvals": {}}
    assert result.stderr == (
        f"{snapshot}: warning state/key-dropped: `gizmo.spins` was dropped: no mount of "
        "`gizmo` defines the state `spins`\n")
    assert result.stdout == (f"Migrated `{snapshot}` into `{tmp_path / 'new.json'}`: "
                             "1 key moved, 1 dropped\n")
    assert list(tmp_path.glob(".new.json.*")) == []  # no temporary file left behind


def test_state_migrate_rejects_an_ambiguous_key_and_leaves_the_file_alone(
    app: Callable[..., Path], tmp_path: Path
) -> None:
    root = app(["acme-crm"], TWO_CRMS)
    snapshot = tmp_path / "session.json"
    snapshot.write_bytes(b'{"state": {"acme-crm.requests": 3},  "approvals": {}}')
    before = snapshot.read_bytes()
    result = migrate(root, str(snapshot))
    assert result.exit_code == 1
    assert snapshot.read_bytes() == before
    assert result.stderr.splitlines()[0] == (
        f"{snapshot}: error state/key-ambiguous: `acme-crm.requests` cannot be moved: 2 mounts "
        "of `acme-crm` define the state `requests` (`extensions/company:requests`, "
        "`extensions/crm:requests`)")
    assert result.stderr.splitlines()[-1] == "error: cannot migrate the session snapshot: 1 error"
    assert "Traceback" not in result.output


def test_state_migrate_in_place(agent_app: Path, tmp_path: Path) -> None:
    snapshot = tmp_path / "session.json"
    snapshot.write_text('{"state": {"acme-crm.requests": 3}}')
    result = migrate(agent_app, str(snapshot))
    assert result.exit_code == 0, result.output
    assert json.loads(snapshot.read_text())["state"] == {"extensions/crm:requests": 3}


def test_state_migrate_quiet_prints_nothing_on_success(agent_app: Path, tmp_path: Path) -> None:
    snapshot = tmp_path / "session.json"
    snapshot.write_text(json.dumps({"state": {"acme-crm.requests": 3, "gizmo.spins": 1}}))
    result = migrate(agent_app, str(snapshot), "-q")
    assert (result.exit_code, result.stdout, result.stderr) == (0, "", "")
    assert json.loads(snapshot.read_text())["state"] == {"extensions/crm:requests": 3}


def test_a_failing_result_hook_is_a_warning_and_the_call_still_succeeds(
    app: Callable[..., Path],
) -> None:
    root = app(["hook-raise", "gizmo"], {
        "extensions/boom.py": mount_file("hook_raise", 'events=["action.result"]'),
        "extensions/gizmo.py": mount_file("gizmo"),
    })
    result = call(root, "gizmo__spin", '{"times": 1}')
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout) == {"spins": 1}
    assert result.stderr == (
        "warning: hook `boom` of mount `boom` raised RuntimeError: action.result hook is down\n")
