"""`eve add` is all or nothing, in a real project venv with a real wheel installed.

The agent mounts acme-crm from its wheel as `crm`. Adding acme-crm's source folder as
`wx` installs it editable over the wheel and writes `wx.py`, and then the agent does
not build (both mounts claim `POST /crm/webhook`): the wheel must be installed again,
exactly, and the project files be as before, so that once the user moves the second
channel the same command succeeds, says what it replaced and updates pyproject.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.conftest import FIXTURES
from tests.integration.conftest import Dists, Venv, create_venv
from tests.integration.test_add import PYPROJECT, _eve

pytestmark = pytest.mark.integration

MOVED_CHANNEL = """\
from acme_crm.extension.channels.webhook import handle

from eve_build.sdk import define_channel

channel = define_channel(route="/wx/webhook", handle=handle, method="POST")
"""


def _project_files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and p.relative_to(root).parts[0] not in {".venv", ".eve"}}


def _installed(venv: Venv) -> dict[str, bytes]:
    """Every file of acme-crm's installation (and any editable hook), by name."""
    found = [*venv.site_packages.glob("acme_crm*"), *venv.site_packages.glob("_acme_crm*"),
             *venv.site_packages.glob("_editable_impl_acme_crm*")]
    files = {}
    for top in found:
        for path in [top] if top.is_file() else sorted(top.rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts:
                files[path.relative_to(venv.site_packages).as_posix()] = path.read_bytes()
    return files


def test_a_failed_add_puts_back_the_wheel_and_the_files(
        tmp_path: Path, base_venv: Venv, acme_dists: Dists) -> None:
    root = tmp_path / "support-agent"
    (root / "agent").mkdir(parents=True)
    (root / "pyproject.toml").write_text(PYPROJECT)
    (root / "agent" / "instructions.md").write_text("You support customers.\n")
    venv = create_venv(root / ".venv", base_venv)
    home = tmp_path / "home"
    source = tmp_path / "acme-crm-src"
    shutil.copytree(FIXTURES / "extensions" / "acme-crm", source,
                    ignore=shutil.ignore_patterns("build", "dist", "__pycache__"))
    first = _eve(root, home, "add", str(acme_dists.wheel), "--as", "crm")
    assert first.returncode == 0, first.stdout + first.stderr
    files, installed = _project_files(root), _installed(venv)
    record = next(venv.site_packages.glob("acme_crm-*.dist-info"))
    assert "archive_info" in json.loads((record / "direct_url.json").read_text())

    failed = _eve(root, home, "add", str(source), "--as", "wx")

    assert failed.returncode == 1
    assert "error mount/route-conflict" in failed.stderr
    assert ("error add/build-failed: the agent does not build with the extension mounted, "
            "so adding it was undone") in failed.stderr
    assert "the mount file, pyproject.toml and the environment are as before" in failed.stderr
    assert "Traceback" not in failed.stdout + failed.stderr
    assert _project_files(root) == files  # no wx.py, pyproject.toml byte for byte
    assert not (root / "agent" / "extensions" / "wx.py").exists()
    assert _installed(venv) == installed  # the wheel's files, its direct_url.json, no .pth

    (root / "agent" / "channels").mkdir()
    (root / "agent" / "channels" / "wx__webhook.py").write_text(MOVED_CHANNEL)
    again = _eve(root, home, "add", str(source), "--as", "wx")

    assert again.returncode == 0, again.stdout + again.stderr
    wheel = acme_dists.wheel.resolve()
    assert again.stdout.splitlines()[:2] == [
        "Added acme-crm 0.3.0 as `wx` (wx.py); the agent is built",
        f"  replaced: acme-crm 0.3.0 installed from the wheel {wheel}"]
    # the config's key as the namespace's variable, then the one its connection's header reads
    assert again.stdout.splitlines()[-1] == "Set before running the agent: WX_API_KEY, CRM_API_KEY"
    pyproject = (root / "pyproject.toml").read_text()
    assert [line.strip() for line in pyproject.splitlines() if "acme-crm @" in line] == [
        f'"acme-crm @ {source.resolve().as_uri()}",']  # replaced in place, not added twice
