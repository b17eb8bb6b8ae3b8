"""Special files where eve-build reads user input: FIFOs, devices, links to them.

Each is a real FIFO (`os.mkfifo`) or a real link to `/dev/zero` / `/dev/urandom`. A
read that blocks or never ends would hang the test (every process has a timeout);
the promise is one diagnostic naming the file, no traceback, and nothing lost.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from eve_build.errors import DiagnosticsError
from eve_build.extension.build import build_extension
from eve_build.local.trust import read_trust
from eve_build.runtime.snapshot import read_snapshot
from eve_build.userfile import UserFileError, read_user_bytes
from tests.golden_files import read_files
from tests.reliability.agents import make_misbehaving_agent, run_eve

Copy = Callable[[str], Path]
SPECIAL = ["fifo", "/dev/zero", "/dev/urandom"]


def make_special(path: Path, kind: str) -> None:
    if kind == "fifo":
        os.mkfifo(path)
    else:
        path.symlink_to(kind)


@pytest.mark.parametrize("kind", SPECIAL)
def test_the_one_reader_refuses_what_is_not_a_regular_file(tmp_path: Path, kind: str) -> None:
    path = tmp_path / "input"
    make_special(path, kind)
    with pytest.raises(UserFileError, match="not a regular file; the trust file is not read"):
        read_user_bytes(path, what="trust file")
    big = tmp_path / "big"
    big.write_bytes(b"x" * 1025)
    with pytest.raises(UserFileError, match="is larger than 1024 bytes") as caught:
        read_user_bytes(big, limit=1024)
    assert caught.value.too_large
    assert read_user_bytes(big, limit=1025).data == b"x" * 1025


@pytest.mark.parametrize("where", ["lib/pipe", "lib/pipe.py", "tools/pipe.py"])
def test_a_fifo_in_the_source_is_an_error_not_a_hang(copy_fixture: Copy, tmp_path: Path,
                                                     where: str) -> None:
    root = copy_fixture("extensions/gizmo")
    home = tmp_path / "home"
    assert run_eve("extension", "build", cwd=root, env={"EVE_HOME": str(home)}).returncode == 0
    before = read_files(root / "build" / "eve")
    fifo = root / "extension" / where
    fifo.parent.mkdir(exist_ok=True)
    os.mkfifo(fifo)
    done = run_eve("extension", "build", cwd=root, env={"EVE_HOME": str(home)}, timeout=60)
    stderr = done.stderr.decode()
    assert done.returncode == 1
    assert (f"extension/{where}: error source/special-file: `extension/{where}` is a FIFO "
            "(named pipe), not a regular file") in stderr
    assert "replace it with a regular file" in stderr
    assert "Traceback" not in stderr
    assert read_files(root / "build" / "eve") == before


def test_a_link_to_a_fifo_inside_the_package_is_named_with_its_target(
        copy_fixture: Copy) -> None:
    root = copy_fixture("extensions/gizmo")
    os.mkfifo(root / "pipe")
    (root / "extension" / "lib").mkdir()
    (root / "extension" / "lib" / "data.txt").symlink_to("../../pipe")
    with pytest.raises(DiagnosticsError) as caught:
        build_extension(root)
    assert [(d.code, d.message) for d in caught.value.diagnostics] == [(
        "source/special-file", "`extension/lib/data.txt` (a symlink to `../../pipe`) is a "
        "FIFO (named pipe), not a regular file; eve-build does not read it (it could block "
        "or never end)")]


@pytest.mark.parametrize("kind", ["/dev/zero", "/dev/urandom"])
def test_a_device_link_in_the_source_is_an_error_not_memory_exhaustion(
        copy_fixture: Copy, kind: str) -> None:
    root = copy_fixture("extensions/gizmo")
    (root / "extension" / "lib").mkdir()
    (root / "extension" / "lib" / "noise.py").symlink_to(kind)
    with pytest.raises(DiagnosticsError) as caught:
        build_extension(root)
    assert [d.file for d in caught.value.diagnostics] == ["extension/lib/noise.py"]
    assert caught.value.diagnostics[0].is_error


def test_a_fifo_in_a_workspace_member_stops_the_agent_build_naming_it(
        tmp_path: Path) -> None:
    from tests.conftest import FIXTURES, copy_fixture_tree

    root = tmp_path / "app"
    copy_fixture_tree(FIXTURES / "apps" / "directory-mount", root)
    copy_fixture_tree(FIXTURES / "extensions" / "acme-crm", root / "packages" / "acme-crm")
    os.mkfifo(root / "packages" / "acme-crm" / "extension" / "pipe")
    done = run_eve("build", cwd=root, timeout=90)
    stderr = done.stderr.decode()
    assert done.returncode == 1
    assert "packages/acme-crm/extension/pipe: error source/special-file" in stderr
    assert "workspace/extension-build-failed" in stderr
    assert "Traceback" not in stderr


@pytest.mark.parametrize("kind", ["fifo", "/dev/zero"])
def test_a_pyproject_that_is_a_special_file_is_a_diagnostic(copy_fixture: Copy,
                                                            kind: str) -> None:
    root = copy_fixture("extensions/gizmo")
    (root / "pyproject.toml").unlink()
    make_special(root / "pyproject.toml", kind)
    with pytest.raises(DiagnosticsError) as caught:
        build_extension(root)
    assert [d.code for d in caught.value.diagnostics] == ["project/pyproject-invalid"]
    assert "not a regular file" in caught.value.diagnostics[0].message


@pytest.mark.parametrize("kind", SPECIAL)
def test_a_trust_file_that_is_a_special_file_trusts_nothing(tmp_path: Path, kind: str) -> None:
    make_special(tmp_path / "trust.json", kind)
    projects, problems = read_trust(tmp_path)
    assert projects == {}
    assert [(d.code, d.file) for d in problems] == [
        ("local/trust-file-invalid", str(tmp_path / "trust.json"))]
    assert "not a regular file" in problems[0].message


@pytest.mark.parametrize("kind", SPECIAL)
def test_a_snapshot_that_is_a_special_file_is_a_diagnostic(tmp_path: Path, kind: str) -> None:
    path = tmp_path / "snapshot.json"
    make_special(path, kind)
    with pytest.raises(DiagnosticsError) as caught:
        read_snapshot(path)
    assert [(d.code, d.file) for d in caught.value.diagnostics] == [
        ("state/snapshot-invalid", str(path))]
    assert "not a regular file" in caught.value.diagnostics[0].message


@pytest.fixture(scope="module")
def agent_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_misbehaving_agent(tmp_path_factory.mktemp("special") / "app")


def test_a_fifo_or_device_as_at_file_is_a_usage_error(agent_root: Path) -> None:
    fifo = agent_root / "args.fifo"
    os.mkfifo(fifo)
    for name, what in [(str(fifo), "a FIFO (named pipe)"), ("/dev/zero", "a character device")]:
        done = run_eve("call", "fine", f"@{name}", cwd=agent_root, timeout=60)
        assert done.returncode == 2
        assert done.stderr.decode() == (
            f"error: cannot read `{name}`: it is {what}, not a regular file; the argument "
            "file is not read\n\nhint: pass a regular file, or pipe the JSON in with `@-`\n")
    done = run_eve("call", "fine", "@-", cwd=agent_root, stdin=json.dumps({}).encode())
    assert done.returncode == 0  # a pipe is what `@-` is for
