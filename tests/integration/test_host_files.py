"""Host files in artifacts (issue 23 item 2): real `python -m build --no-isolation`.

A symlink to /etc/passwd, hatchling's `force-include` of /etc/passwd and a hard link
to a file outside the project must fail the sdist and the wheel, naming the path,
and leave no archive behind.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.integration.conftest import python_build

pytestmark = pytest.mark.integration

Copy = Callable[[str], Path]


def _refused(root: Path, outdir: Path, *targets: str) -> str:
    result = python_build(root, outdir, "--no-isolation", *targets)
    assert result.returncode != 0, result.stdout
    assert "Traceback" not in result.stdout.split("HookBuildError")[-1]
    made = [*outdir.glob("*.tar.gz"), *outdir.glob("*.whl")] if outdir.exists() else []
    assert made == []
    return result.stdout


def test_a_symlink_to_etc_passwd_fails_the_sdist(copy_fixture: Copy, tmp_path: Path) -> None:
    root = copy_fixture("extensions/gizmo")
    (root / "docs").mkdir()
    (root / "docs" / "users.txt").symlink_to("/etc/passwd")

    output = _refused(root, tmp_path / "dist", "--sdist")

    assert ("docs/users.txt: error pack/path-outside-project: `docs/users.txt` would ship "
            "`/etc/passwd`, outside the project (through a symlink at `docs/users.txt`)") in output
    assert "replace a link with a copy of the file" in output


@pytest.mark.parametrize("target", ["sdist", "wheel"])
def test_force_include_of_etc_passwd_fails_the_build(
        copy_fixture: Copy, tmp_path: Path, target: str) -> None:
    root = copy_fixture("extensions/gizmo")
    with (root / "pyproject.toml").open("a") as stream:
        stream.write(f'\n[tool.hatch.build.targets.{target}.force-include]\n'
                     '"/etc/passwd" = "passwd.txt"\n')

    output = _refused(root, tmp_path / "dist", f"--{target}")

    assert ("passwd.txt: error pack/path-outside-project: `passwd.txt` would ship "
            "`/etc/passwd`, outside the project (`/etc/passwd` is named by a hatchling "
            "option)") in output


def test_a_hard_link_outside_fails_the_sdist_and_the_wheel(
        copy_fixture: Copy, tmp_path: Path) -> None:
    root = copy_fixture("extensions/gizmo")
    secret = tmp_path / "shadow-copy"
    secret.write_text("root:$6$canary-hard-link\n")
    secret.chmod(0o600)
    (root / "extension" / "lib").mkdir()
    os.link(secret, root / "extension" / "lib" / "notes.txt")

    sdist = _refused(root, tmp_path / "sdist", "--sdist")
    wheel = _refused(root, tmp_path / "wheel", "--wheel")

    assert ("extension/lib/notes.txt: error pack/path-outside-project: "
            "`extension/lib/notes.txt` is a hard link") in sdist
    assert ("extension/lib/notes.txt: error discover/hard-link-outside: "
            "`extension/lib/notes.txt` is a hard link with 1 other name") in wheel
    assert not (root / "build" / "eve").exists()


def test_a_fifo_in_the_project_fails_the_sdist_without_hanging(
        copy_fixture: Copy, tmp_path: Path) -> None:
    root = copy_fixture("extensions/gizmo")
    (root / "docs").mkdir()
    os.mkfifo(root / "docs" / "pipe")

    output = _refused(root, tmp_path / "dist", "--sdist")  # the run's time limit bounds it

    assert ("docs/pipe: error pack/file-not-regular: `docs/pipe` is not a regular file "
            "(a FIFO, socket or device)") in output
    assert "exclude it in `[tool.hatch.build]`" in output


def test_eve_extension_pack_lists_every_host_file_before_it_builds(
        copy_fixture: Copy, tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from eve_build.cli import app

    root = copy_fixture("extensions/gizmo")
    (root / "docs").mkdir()
    (root / "docs" / "users.txt").symlink_to("/etc/passwd")
    with (root / "pyproject.toml").open("a") as stream:
        stream.write('\n[tool.hatch.build.targets.wheel.force-include]\n'
                     '"/etc/passwd" = "passwd.txt"\n')

    result = CliRunner().invoke(app, ["extension", "pack", "--path", str(root),
                                      "--no-isolation", "--outdir", str(tmp_path / "dist")])

    assert result.exit_code == 1
    assert ("docs/users.txt: error pack/path-outside-project: `docs/users.txt` would ship "
            "`/etc/passwd`") in result.output
    assert ("passwd.txt: error pack/path-outside-project: `passwd.txt` would ship "
            "`/etc/passwd`") in result.output
    assert "error: cannot pack extension: 2 errors" in result.output
    assert "Traceback" not in result.output
    assert not (tmp_path / "dist").exists() and not (root / "build" / "eve").exists()
