"""The compatibility check reads the manifest before any extension code is imported."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from eve_build.consumer.build import build_agent
from eve_build.extension.build import build_extension
from eve_build.formats.manifest import SOURCE_PACKAGE_DIR, derive_manifest_path
from eve_build.output.generate import SOURCE_PACKAGE
from tests.conftest import FIXTURES, copy_fixture_tree
from tests.consumer.conftest import MakeApp, build_errors

Edit = Callable[[Path], None]


def _json_edit(change: Callable[[dict[str, Any]], None]) -> Edit:
    def edit(path: Path) -> None:
        data = json.loads(path.read_text())
        change(data)
        path.write_text(json.dumps(data))

    return edit


def _require(name: str, version: int) -> Edit:
    return _json_edit(lambda d: d["requires"].__setitem__(name, version))


@pytest.fixture
def installed_gizmo(make_app: MakeApp, tmp_path: Path,
                    monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """The `installed` app and the manifest of a gizmo build on sys.path whose code, if
    imported, would fail loudly."""
    package = tmp_path / "site" / "gizmo"
    copy_fixture_tree(FIXTURES / "extensions" / "gizmo", package)
    build_extension(package)
    built = package / "build" / "eve" / "gizmo"
    (built / "__init__.py").write_text("raise RuntimeError('gizmo was imported')\n")
    monkeypatch.syspath_prepend(str(package / "build" / "eve"))
    return make_app("installed"), built / "extension" / "_manifest.json"


CASES = [
    ("missing", lambda p: p.unlink(), "compat/manifest-missing",
     "mounts `gizmo` (`", "which has no compatibility manifest `extension/_manifest.json`"),
    ("malformed", lambda p: p.write_text("{not json"), "compat/manifest-invalid",
     "mounts `gizmo` (`", "the manifest is not valid JSON"),
    ("wrong kind", _json_edit(lambda d: d.__setitem__("kind", "npm-package")),
     "compat/manifest-invalid", "mounts `gizmo` (`",
     "the manifest's kind is 'npm-package', not 'eve-extension'"),
    ("unknown format", _json_edit(lambda d: d.__setitem__("formatVersion", 99)),
     "compat/manifest-invalid", "mounts `gizmo` (`",
     "the manifest's formatVersion 99 is not one this eve-build reads"),
    ("dropped", _require("tool", 0), "compat/capability-dropped", "mounts `gizmo` 1.0.0 (`",
     "requires tool contract v0, which was dropped: version 0 was the eve-build development "
     "preview contract"),
    ("newer", _require("tool", 2), "compat/capability-newer", "mounts `gizmo` 1.0.0 (`",
     "requires tool contract v2, but this eve-build supports tool contract versions: v1"),
    ("unknown capability", _require("teleport", 1), "compat/capability-unknown",
     "mounts `gizmo` 1.0.0 (`", "requires capability `teleport`, which this eve-build does "
     "not know"),
    ("external dependency", _json_edit(lambda d: d["build"].__setitem__(
        "externalDependencies", ["surely-not-installed-dist"])),
     "compat/external-dependency-missing", "mounts `gizmo` 1.0.0 (`",
     "needs the external dependency `surely-not-installed-dist`; it is not installed"),
]


@pytest.mark.parametrize(("edit", "code", "package", "problem"),
                         [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_each_incompatibility_names_the_mount_file_and_the_package(
    installed_gizmo: tuple[Path, Path], edit: Edit, code: str, package: str, problem: str
) -> None:
    root, manifest = installed_gizmo
    edit(manifest)

    errors = build_errors(root)

    assert len(errors) == 1, errors  # nothing was imported: no load/import-failed
    head = errors[0].splitlines()[0]
    assert head.startswith(f"agent/extensions/gizmo.py:5: error {code}: "
                           f"`agent/extensions/gizmo.py` {package}"), head
    assert problem in head


def test_a_dropped_version_shows_the_migration(installed_gizmo: tuple[Path, Path]) -> None:
    root, manifest = installed_gizmo
    _require("tool", 0)(manifest)

    [message] = build_errors(root)

    assert message.splitlines()[1] == (
        "  hint: migration: rebuild the extension with this eve-build (`eve extension build`) "
        "and publish a new release")


def test_a_newer_version_says_to_upgrade(installed_gizmo: tuple[Path, Path]) -> None:
    root, manifest = installed_gizmo
    _require("tool", 2)(manifest)

    [message] = build_errors(root)

    assert message.splitlines()[1] == (
        "  hint: upgrade eve-build, or install an extension release built for this one")


def test_a_compatible_installed_extension_then_imports(installed_gizmo: tuple[Path, Path]
                                                       ) -> None:
    root, _ = installed_gizmo  # the manifest is fine; importing the package fails loudly

    errors = build_errors(root)

    assert any("gizmo was imported" in e for e in errors), errors


def test_the_check_runs_on_workspace_extensions_too(make_app: MakeApp) -> None:
    root = make_app("flat", "gizmo")
    pyproject = root / "packages" / "gizmo" / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace(
        'dependencies = ["eve-build", "pydantic>=2"]',
        'dependencies = ["eve-build", "pydantic>=2", "surely-not-installed-dist"]',
    ).replace('output = "build/eve"',
              'output = "build/eve"\nexternal-dependencies = ["surely-not-installed-dist"]'))

    errors = build_errors(root)

    assert [e.splitlines()[0] for e in errors] == [
        "extensions/gizmo.py:5: error compat/external-dependency-missing: "
        "`extensions/gizmo.py` mounts `gizmo` 1.0.0 (`packages/gizmo/build/eve/gizmo`, built "
        "with eve-build 0.1.0), which needs the external dependency "
        "`surely-not-installed-dist`; it is not installed"]


def test_the_manifest_path_is_where_a_build_writes_it(make_app: MakeApp) -> None:
    root = make_app("flat", "gizmo")
    build_agent(root)
    package_dir = root / "packages" / "gizmo" / "build" / "eve" / "gizmo"

    assert derive_manifest_path(package_dir).is_file()
    assert SOURCE_PACKAGE_DIR == SOURCE_PACKAGE  # one layout, named in two modules
