"""The build process writes the manifest from plain data (no pydantic): byte for byte
what the manifest model writes, and an incremental build writes what a full one does."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from eve_build.extension.build import build_extension
from eve_build.formats.manifest import Manifest, serialize_manifest
from tests.golden_files import read_files

PROBE = """
import sys
from pathlib import Path
from eve_build.extension.build import build_extension
result = build_extension(Path(sys.argv[1]))
print(sorted(result.imported), "pydantic" in sys.modules)
"""


def test_the_manifest_written_without_the_model_is_the_models_text(
        copy_fixture: Callable[[str], Path]) -> None:
    root = copy_fixture("extensions/acme-crm")  # config, states, subagents, skills, hooks

    result = build_extension(root, use_cache=False)

    text = (result.package_dir / "extension" / "_manifest.json").read_text()
    assert text == serialize_manifest(result.manifest)
    assert text == serialize_manifest(Manifest.model_validate(json.loads(text)))
    assert set(json.loads(text)["contributions"]) >= {"tools", "states"}


def test_an_edit_builds_in_a_process_without_pydantic_what_a_full_build_writes(
        copy_fixture: Callable[[str], Path], tmp_path: Path) -> None:
    root = copy_fixture("extensions/acme-crm")
    build_extension(root)
    tool = next(path for path in sorted((root / "extension" / "tools").glob("*.py"))
                if 'description="' in path.read_text())
    tool.write_text(tool.read_text().replace('description="', 'description="Edited. ', 1))

    done = subprocess.run([sys.executable, "-c", PROBE, str(root)], capture_output=True,
                          text=True, timeout=120, check=False)

    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"['tools/{tool.name}'] False"  # one import, in a worker
    incremental = read_files(root / "build" / "eve")
    assert b"Edited. " in incremental["acme_crm/extension/_manifest.json"]
    build_extension(root, use_cache=False)
    assert read_files(root / "build" / "eve") == incremental
