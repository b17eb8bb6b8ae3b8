"""Source-backed extensions found through PEP 610 `direct_url.json`."""

from __future__ import annotations

import json
from pathlib import Path

from eve_build.consumer.sources import derive_imported_modules, try_parse_direct_url


def test_a_local_folder_install_points_at_its_folder(tmp_path: Path) -> None:
    editable = {"url": tmp_path.as_uri(), "dir_info": {"editable": True}}
    plain = {"url": tmp_path.as_uri(), "dir_info": {}}
    assert try_parse_direct_url(json.dumps(editable)) == tmp_path.resolve()
    assert try_parse_direct_url(json.dumps(plain)) == tmp_path.resolve()


def test_archives_vcs_remote_and_broken_records_are_not_source_backed(tmp_path: Path) -> None:
    wheel = tmp_path / "acme_crm-0.3.0-py3-none-any.whl"
    wheel.write_bytes(b"")
    assert try_parse_direct_url(json.dumps(
        {"url": wheel.as_uri(), "archive_info": {"hash": "sha256=00"}})) is None
    assert try_parse_direct_url(json.dumps(
        {"url": "https://github.com/acme/crm.git", "vcs_info": {"vcs": "git"}})) is None
    assert try_parse_direct_url(json.dumps(
        {"url": (tmp_path / "gone").as_uri(), "dir_info": {}})) is None
    assert try_parse_direct_url("{not json") is None
    assert try_parse_direct_url(None) is None


def test_mount_files_name_the_modules_they_import(tmp_path: Path) -> None:
    mount = tmp_path / "crm.py"
    mount.write_text("from __future__ import annotations\nimport os\n"
                     "from acme_crm import acme_crm\nfrom eve_build.sdk import env\n"
                     "import gizmo.tools\nfrom . import sibling\n"
                     "mount = acme_crm(api_key=env('K'))\n")
    broken = tmp_path / "broken.py"
    broken.write_text("from nowhere import (\n")
    assert derive_imported_modules([mount, broken]) == {"acme_crm", "gizmo"}
