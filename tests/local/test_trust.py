"""Trust: the project's `.eve/extensions/` loads only as approved with `eve trust`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from eve_build.cli import app as cli
from eve_build.local.trust import approve_trust, check_trust, derive_content_hash
from eve_build.runtime import Agent
from eve_build.source.tree import DiskTree
from tests.local.conftest import place

MAIN = "from eve_build.cli import main; main()"


def trust(app: Path, *args: str, input: str | None = None) -> Result:
    result = CliRunner().invoke(cli, ["trust", "--path", str(app), *args], input=input)
    assert "Traceback" not in result.output
    return result


def project_dir(app: Path) -> Path:
    return app / ".eve" / "extensions"


def test_the_hash_covers_names_and_bytes_but_not_pycache(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("x = 1\n")
    first, files = derive_content_hash(DiskTree(tmp_path, tmp_path))
    assert files == ("a.py",)
    (tmp_path / "__pycache__").mkdir()
    (tmp_path / "__pycache__" / "a.cpython-311.pyc").write_bytes(b"\0")
    assert derive_content_hash(DiskTree(tmp_path, tmp_path))[0] == first
    (tmp_path / "a.py").rename(tmp_path / "b.py")
    assert derive_content_hash(DiskTree(tmp_path, tmp_path))[0] != first


def test_an_untrusted_project_folder_is_skipped_with_one_notice(
        app: Path, load: Callable[..., Agent]) -> None:
    place(project_dir(app), "notes.py", "greeter.py")
    agent = load(app)
    assert [(r.name, r.status) for r in agent.local_extensions] == [
        ("greeter", "untrusted"), ("notes", "untrusted")]
    assert [(d.code, d.message) for d in agent.local.host.diagnostics] == [(
        "local/project-untrusted",
        "untrusted: never approved; the project's local extensions are skipped")]
    assert "note" not in agent.tools()
    assert agent.call_tool("ping", {}).value == {"pong": "ping"}


def test_trusted_loads_and_any_edit_asks_again(
        app: Path, eve_home: Path, load: Callable[..., Agent]) -> None:
    place(project_dir(app), "notes.py")
    approve_trust(app, eve_home)
    assert [r.status for r in load(app).local_extensions] == ["loaded"]
    (project_dir(app) / "extra.txt").write_text("added\n")
    agent = load(app)
    assert [r.status for r in agent.local_extensions] == ["untrusted"]
    assert agent.local.host.diagnostics[0].message.startswith(
        "untrusted: changed since approved")
    approve_trust(app, eve_home)
    (project_dir(app) / "extra.txt").unlink()
    assert check_trust(app, eve_home).state == "changed"


def test_a_project_extension_shadows_a_global_one(
        app: Path, eve_home: Path, global_dir: Path, load: Callable[..., Agent]) -> None:
    place(project_dir(app), "notes.py")
    place(global_dir, "notes.py")
    untrusted = load(app)  # an untrusted project extension shadows nothing
    assert [(r.origin, r.status) for r in untrusted.local_extensions] == [
        ("project", "untrusted"), ("global", "loaded")]
    approve_trust(app, eve_home)
    agent = load(app)
    assert [(r.origin, r.status) for r in agent.local_extensions] == [
        ("project", "loaded"), ("global", "shadowed")]


def test_eve_trust_shows_the_files_asks_and_records(app: Path, eve_home: Path) -> None:
    place(project_dir(app), "notes.py", "folder-with-helpers")
    declined = trust(app, input="n\n")
    assert declined.exit_code == 1
    assert declined.stdout.splitlines()[1:3] == ["  folder-with-helpers/extension.py",
                                                 "  folder-with-helpers/helpers.py"]
    assert "error: not trusted" in declined.stderr
    assert not (eve_home / "trust.json").exists()
    accepted = trust(app, input="y\n")
    assert accepted.exit_code == 0, accepted.output
    assert accepted.stdout.splitlines()[-1].startswith(
        "Trusted `.eve/extensions` (3 files, sha256:")
    recorded = json.loads((eve_home / "trust.json").read_text())
    assert recorded["formatVersion"] == 1
    (entry,) = recorded["projects"].values()
    assert entry["files"] == ["folder-with-helpers/extension.py",
                              "folder-with-helpers/helpers.py", "notes.py"]
    assert trust(app).stdout == "`.eve/extensions` is already trusted as it is (3 files)\n"
    revoked = trust(app, "--revoke")
    assert (revoked.exit_code, check_trust(app, eve_home).state) == (0, "untrusted")


def test_a_corrupt_trust_file_is_a_diagnostic(
        app: Path, eve_home: Path, load: Callable[..., Agent]) -> None:
    place(project_dir(app), "notes.py")
    (eve_home / "trust.json").write_text("{not json")
    agent = load(app)
    codes = [d.code for d in agent.local.host.diagnostics]
    assert codes == ["local/trust-file-invalid", "local/project-untrusted"]
    assert agent.call_tool("ping", {}).ok
    result = trust(app, "--yes")
    assert result.exit_code == 1
    assert f"{eve_home / 'trust.json'}: error local/trust-file-invalid: the trust file is " \
           "corrupt" in result.stderr
    assert (eve_home / "trust.json").read_text() == "{not json"


def test_the_trust_flow_end_to_end_in_a_subprocess(app: Path, eve_home: Path) -> None:
    place(project_dir(app), "notes.py")
    env = {**os.environ, "EVE_HOME": str(eve_home)}

    def eve(*args: str) -> subprocess.CompletedProcess[str]:
        done = subprocess.run([sys.executable, "-c", MAIN, *args, "--path", str(app)],
                              capture_output=True, text=True, env=env, timeout=60, check=False)
        assert "Traceback" not in done.stderr
        return done

    def status() -> str:
        rows = json.loads(eve("extensions", "list", "--json").stdout)["extensions"]
        return next(r["status"] for r in rows if r["name"] == "notes")

    assert status() == "untrusted"
    assert eve("trust", "--yes").returncode == 0
    assert eve("command", "notes").stdout == "0 notes\n"
    with (project_dir(app) / "notes.py").open("a") as stream:
        stream.write("# edited\n")
    edited = eve("command", "notes")
    assert edited.returncode == 1
    assert "untrusted: changed since approved" in edited.stderr


def test_a_trust_file_that_cannot_be_written_is_an_error_not_a_traceback(
        app: Path, eve_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    place(project_dir(app), "notes.py")

    def refuse(path: Path, text: str) -> None:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr("eve_build.local.trust.write_file", refuse)
    result = trust(app, "--yes")
    assert result.exit_code == 1
    assert result.stderr == (f"error: cannot write `{eve_home / 'trust.json'}`: Permission "
                             "denied\n\nhint: check that EVE_HOME points to a folder you can "
                             "write\n")
