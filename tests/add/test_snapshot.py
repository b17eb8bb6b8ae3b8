"""`all_or_nothing`: the project files and the distribution's files come back on failure."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

from eve_build.add.installer import ProjectEnvironment
from eve_build.add.snapshot import all_or_nothing
from eve_build.diagnostics import error
from eve_build.errors import DiagnosticsError


class FakeEnvironment:
    """A distribution whose files live in `site`; the probe reads them, pip may refuse."""

    def __init__(self, site: Path, uninstall_code: int = 0) -> None:
        self.site, self.uninstall_code = site, uninstall_code
        self.calls: list[list[str]] = []

    def __call__(self, argv: Sequence[str], cwd: Path) -> subprocess.CompletedProcess[str]:
        del cwd
        self.calls.append(list(argv))
        if "-c" in argv:  # the probe: the version is what the installed files say
            files = sorted(str(p) for p in self.site.rglob("*") if p.is_file())
            init = self.site / "acme_crm" / "__init__.py"
            version = None if not init.is_file() else (
                "0.3.0" if "OLD" in init.read_text() else "0.4.0")
            data = None if version is None else {
                "version": version, "origin": None, "files": files}
            return subprocess.CompletedProcess(list(argv), 0, stdout=json.dumps(data))
        if "uninstall" in argv:
            if self.uninstall_code == 0:
                for path in self.site.rglob("*"):
                    if path.is_file():
                        path.unlink()
            return subprocess.CompletedProcess(list(argv), self.uninstall_code,
                                               stdout="ERROR: permission denied")
        raise AssertionError(argv)


def _install_new(site: Path) -> None:
    (site / "acme_crm" / "__init__.py").write_text("NEW = True\n")
    (site / "_acme_crm.pth").write_text("/src/acme-crm\n")


def test_a_failure_puts_back_the_files_and_the_previous_installation(tmp_path: Path) -> None:
    site = tmp_path / "site"
    (site / "acme_crm").mkdir(parents=True)
    (site / "acme_crm" / "__init__.py").write_text("OLD = True\n")
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text("[project]\n")
    mount = tmp_path / "agent" / "extensions" / "wx.py"
    fake = FakeEnvironment(site)
    environment = ProjectEnvironment(python=Path(sys.executable), uv=None)

    with pytest.raises(DiagnosticsError) as caught, all_or_nothing(
            [pyproject, mount], environment, "acme-crm", fake):
        _install_new(site)
        pyproject.write_text("[project]\ndependencies = ['acme-crm']\n")
        mount.parent.mkdir(parents=True)
        mount.write_text("mount = ...\n")
        raise DiagnosticsError("cannot add the extension", [error("add/build-failed", "x", "y")])

    assert pyproject.read_text() == "[project]\n"
    assert not mount.exists() and not (tmp_path / "agent" / "extensions").exists()
    assert (site / "acme_crm" / "__init__.py").read_text() == "OLD = True\n"
    assert not (site / "_acme_crm.pth").exists()
    assert sum("uninstall" in c for c in fake.calls) == 1  # the environment's own uninstall
    # the last probe read the previous installation again: no add/restore-failed
    assert [d.code for d in caught.value.diagnostics] == ["add/build-failed"]


def test_an_environment_that_cannot_be_put_back_is_a_diagnostic(tmp_path: Path) -> None:
    site = tmp_path / "site"
    (site / "acme_crm").mkdir(parents=True)
    (site / "acme_crm" / "__init__.py").write_text("OLD = True\n")
    fake = FakeEnvironment(site, uninstall_code=1)
    environment = ProjectEnvironment(python=Path(sys.executable), uv=None)

    with pytest.raises(DiagnosticsError) as caught, all_or_nothing(
            [tmp_path / "pyproject.toml"], environment, "acme-crm", fake):
        _install_new(site)
        raise DiagnosticsError("cannot add the extension", [error("add/build-failed", "x", "y")])

    codes = [d.code for d in caught.value.diagnostics]
    assert codes == ["add/build-failed", "add/restore-failed"]
    restore = caught.value.diagnostics[-1]
    assert restore.message == ("`eve add` failed and could not put `acme-crm` back as it was "
                               "(acme-crm 0.3.0 installed from a package index): ERROR: "
                               "permission denied")
    assert restore.hint.startswith("install it again as it was (acme-crm 0.3.0")
