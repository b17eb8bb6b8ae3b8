"""check-wheel-contents on eve wheels built with the real `build` frontend.

An extension's wheel fails one check only, W002 (duplicate files: the manifest and its
dist-info copy, on purpose), which the scaffold's pyproject.toml ignores; eve-build's
own wheel passes every check (docs/publishing.md, "Checking the wheel").
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from eve_build.scaffold.metadata import derive_pyproject
from tests.integration.conftest import Dists, run

pytestmark = pytest.mark.integration

CHECK = str(Path(sys.executable).parent / "check-wheel-contents")


def test_an_extension_wheel_fails_only_the_duplicate_manifest_check(acme_dists: Dists,
                                                                   tmp_path: Path) -> None:
    done = run([CHECK, str(acme_dists.wheel)], tmp_path)  # no configuration here

    assert done.returncode == 1, done.stdout
    assert set(re.findall(r"\b[WE]\d{3}\b", done.stdout)) == {"W002"}, done.stdout
    assert "acme_crm/extension/_manifest.json" in done.stdout
    assert "dist-info/extra_metadata/eve-manifest.json" in done.stdout


def test_in_a_scaffold_the_extension_wheel_passes(acme_dists: Dists, tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(derive_pyproject("acme-crm", "0.1.0"))

    done = run([CHECK, str(acme_dists.wheel)], tmp_path)  # reads [tool.check-wheel-contents]

    assert done.returncode == 0, done.stdout
    assert done.stdout.strip().endswith(": OK")


def test_eve_builds_own_wheel_passes_every_check(eve_build_wheel_dir: Path,
                                                 tmp_path: Path) -> None:
    (wheel,) = eve_build_wheel_dir.glob("eve_build-*.whl")

    done = run([CHECK, str(wheel)], tmp_path)

    assert done.returncode == 0, done.stdout
