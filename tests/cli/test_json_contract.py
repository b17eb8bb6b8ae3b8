"""Every command's `--json` output, on success and on failure, validated with jsonschema
against the schema shipped in eve_build/schemas/."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from typer.testing import CliRunner

import eve_build.dev.loop
from eve_build.cli import app as cli
from eve_build.schemas import list_schemas, read_schema
from tests.conftest import FIXTURES, copy_fixture_tree
from tests.json_schemas import validate
from tests.runtime.apps import compile_app, make_app, mount_file


def run(*args: str, env: dict[str, str] | None = None, stdin: str | None = None,
        code: int = 0) -> Any:
    result = CliRunner(env=env).invoke(cli, list(args), input=stdin)
    assert result.exit_code == code, result.output
    assert "Traceback" not in result.output
    return json.loads(result.stdout)


@pytest.fixture(scope="module")
def agent_app(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = make_app(tmp_path_factory.mktemp("contract") / "app", ["gizmo"],
                    {"extensions/gizmo.py": mount_file("gizmo")})
    compile_app(root)
    return root


@pytest.mark.parametrize("name", list_schemas())
def test_every_schema_is_valid_and_extends_the_envelope(name: str) -> None:
    schema = read_schema(name)
    Draft202012Validator.check_schema(schema)
    assert schema["$id"].endswith(f"/{name}")
    if name != "_envelope.json":
        assert {"$ref": "_envelope.json"} in schema["allOf"]


def test_the_envelope_rejects_a_failure_without_an_error() -> None:
    with pytest.raises(Exception, match="'error' is a required property"):
        validate("build.json", {"status": "failed",
                                "diagnostics": {"errors": 0, "warnings": 0, "items": []}})


def test_a_schema_rejects_an_undocumented_field() -> None:
    with pytest.raises(Exception, match="Unevaluated properties"):
        validate("state-migrate.json", {
            "status": "migrated", "snapshot": "s", "output": "o", "moved": 0, "dropped": 0,
            "surprise": 1, "diagnostics": {"errors": 0, "warnings": 0, "items": []}})


def test_extension_build(tmp_path: Path) -> None:
    root = copy_fixture_tree(FIXTURES / "extensions" / "gizmo", tmp_path / "gizmo")
    validate("extension-build.json", run("extension", "build", "--json", "--path", str(root)))

    failed = run("extension", "build", "--json", "--path", str(tmp_path), code=1)
    validate("extension-build.json", failed)
    assert failed["diagnostics"]["items"][0]["code"] == "project/pyproject-missing"


def test_extension_init(tmp_path: Path) -> None:
    target = tmp_path / "acme-notes"
    created = run("extension", "init", "acme-notes", "--dir", str(target), "--no-install",
                  "--no-git", "--json")
    validate("extension-init.json", created)
    assert "pyproject.toml" in created["files"]

    refused = run("extension", "init", "acme-notes", "--dir", str(target), "--no-install",
                  "--no-git", "--json", code=1)
    validate("extension-init.json", refused)


def test_extension_pack_failure(tmp_path: Path) -> None:
    validate("extension-pack.json",
             run("extension", "pack", "--json", "--path", str(tmp_path), code=1))


def test_build_and_info(agent_app: Path, tmp_path: Path) -> None:
    validate("build.json", run("build", "--json", "--path", str(agent_app)))
    info = run("info", "--json", "--path", str(agent_app))
    validate("info.json", info)
    assert [(e["mount"], e["mountPath"]) for e in info["extensions"]] == [
        ("gizmo", "extensions/gizmo")]

    (tmp_path / "agent").mkdir()  # no instructions.md: the agent does not compile
    failed_info = run("info", "--json", "--path", str(tmp_path), code=1)
    validate("info.json", failed_info)
    assert failed_info["diagnostics"]["errors"] >= 1
    validate("build.json", run("build", "--json", "--path", str(tmp_path), code=1))


def test_call(agent_app: Path) -> None:
    ok = run("call", "gizmo__spin", "-", "--json", "--path", str(agent_app),
             stdin='{"times": 2}')
    validate("call.json", ok)
    assert (ok["status"], ok["value"]) == ("ok", {"spins": 2})

    blocked = run("call", "gizmo__spin", '{"times": 13}', "--json", "--path", str(agent_app),
                  code=1)
    validate("call.json", blocked)
    assert blocked["status"] == "blocked"

    bad = run("call", "gizmo__spin", "[1]", "--json", "--path", str(agent_app), code=2)
    validate("call.json", bad)
    assert bad["status"] == "failed"


def test_state_migrate(agent_app: Path, tmp_path: Path) -> None:
    snapshot = tmp_path / "session.json"
    snapshot.write_text(json.dumps({"state": {"gizmo.spins": 1}}))
    migrated = run("state", "migrate", str(snapshot), "--json", "--path", str(agent_app))
    validate("state-migrate.json", migrated)
    assert (migrated["moved"], migrated["dropped"], migrated["diagnostics"]["warnings"]) == (
        0, 1, 1)

    snapshot.write_text("{not json")
    broken = run("state", "migrate", str(snapshot), "--json", "--path", str(agent_app), code=1)
    validate("state-migrate.json", broken)
    assert broken["status"] == "failed"

    missing = CliRunner().invoke(cli, ["state", "migrate", str(tmp_path / "none.json"),
                                       "--json", "--path", str(agent_app)])
    assert (missing.exit_code, missing.stdout) == (2, "")  # a usage error: no JSON at all


def test_dev_prints_one_json_line_per_generation(agent_app: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    real_run_dev = eve_build.dev.loop.run_dev
    changed = agent_app / "agent" / "instructions.md"

    def one_change(_paths: list[Path]) -> Iterator[set[Path]]:
        changed.write_text("You are a changed test agent.\n")
        yield {changed}

    monkeypatch.setattr(eve_build.dev.loop, "run_dev",
                        lambda session, show, **kw: real_run_dev(session, show,
                                                                 watch=one_change, **kw))
    result = CliRunner().invoke(cli, ["dev", "--no-serve", "--json", "--path", str(agent_app)])

    assert result.exit_code == 0, result.output
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    for line in lines:
        validate("dev.json", line)
    assert [(g["generation"], g["status"]) for g in lines] == [(1, "ready"), (2, "ready")]
    assert lines[1]["changed"] == ["agent/instructions.md"]
    assert lines[0]["contributions"]["tools"] == 1
    assert lines[0]["contributions"]["mounts"] == 1


def test_local_and_node_commands(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("EVE_HOME", str(tmp_path / "home"))
    project = tmp_path / "project"
    project.mkdir()

    empty = run("trust", "--json", "--path", str(project))
    validate("trust.json", empty)
    assert empty["status"] == "empty"

    created = run("extension", "new-local", "jot", "--json", "--path", str(project))
    validate("extension-new-local.json", created)
    trusted = run("trust", "--yes", "--json", "--path", str(project))
    validate("trust.json", trusted)
    assert (trusted["status"], trusted["files"]) == ("trusted", ["jot.py"])
    validate("trust.json", run("trust", "--revoke", "--json", "--path", str(project)))

    listed = run("ext", "list", "--json")
    validate("ext-list.json", listed)
    assert listed["nodes"] == []
    for args, schema in ((["ext", "add", str(project), "--yes"], "ext-add.json"),
                         (["ext", "start", "ghost"], "ext-start.json"),
                         (["ext", "remove", "ghost"], "ext-remove.json")):
        failed = run(*args, "--json", code=1)
        validate(schema, failed)
        assert failed["status"] == "failed"
