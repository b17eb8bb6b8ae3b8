"""The `eve` hook driven by hatchling's own builders, in-process (no frontend, no venv)."""

from __future__ import annotations

import json
import shutil
import tarfile
import tempfile
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest
from hatchling.builders.sdist import SdistBuilder
from hatchling.builders.wheel import WheelBuilder

from eve_build.formats.freshness import RECORD_FILE
from eve_build.hatch.build_data import HookBuildError
from eve_build.hatch.options import HookOptionError

pytestmark = pytest.mark.integration

DIST_INFO = "acme_crm-0.3.0.dist-info"


def build_wheel(project: Path, outdir: Path, version: str = "standard") -> Path:
    (artifact,) = WheelBuilder(str(project)).build(directory=str(outdir), versions=[version])
    return Path(artifact)


def names(wheel: Path) -> list[str]:
    with zipfile.ZipFile(wheel) as archive:
        return archive.namelist()


@pytest.fixture
def acme(copy_fixture: Callable[[str], Path]) -> Path:
    root = copy_fixture("extensions/acme-crm")
    for generated in ("build", "dist"):  # in case the checkout's fixture was built in place
        shutil.rmtree(root / generated, ignore_errors=True)
    return root


def test_the_hook_is_registered_under_its_name() -> None:
    from hatchling.plugin.manager import PluginManager

    from eve_build.hatch.plugin import EveBuildHook

    assert PluginManager().build_hook.get("eve") is EveBuildHook


def test_the_wheel_ships_the_build_output_and_the_manifest_copy(acme: Path, tmp_path: Path) -> None:
    wheel = build_wheel(acme, tmp_path / "dist")

    shipped = [n for n in names(wheel) if not n.startswith(DIST_INFO)]
    built = sorted(p.relative_to(acme / "build" / "eve").as_posix()
                   for p in (acme / "build" / "eve").rglob("*")
                   if p.is_file() and p.name != RECORD_FILE)  # the record stays home
    assert sorted(shipped) == built
    with zipfile.ZipFile(wheel) as archive:
        copy = archive.read(f"{DIST_INFO}/extra_metadata/eve-manifest.json")
    assert copy == (acme / "build/eve/acme_crm/extension/_manifest.json").read_bytes()


def test_an_editable_wheel_ships_only_a_path_file(
    acme: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))

    wheel = build_wheel(acme, tmp_path / "dist", version="editable")

    assert [n for n in names(wheel) if not n.startswith(DIST_INFO)] == ["_acme_crm_eve.pth"]
    with zipfile.ZipFile(wheel) as archive:
        assert archive.read("_acme_crm_eve.pth").decode() == f"{acme.resolve()}/build/eve\n"
    assert (acme / "build" / "eve" / "acme_crm" / "__init__.py").is_file()
    assert not list(scratch.glob("eve-editable-*")), "the scratch folder is removed"


def test_a_failed_build_raises_the_cli_diagnostics(copy_fixture: Callable[[str], Path],
                                                   tmp_path: Path) -> None:
    project = copy_fixture("extensions/bad/tool-description-missing")

    with pytest.raises(HookBuildError) as caught:
        build_wheel(project, tmp_path / "dist")

    assert str(caught.value).splitlines() == [
        "",
        "extension/tools/search.py:18: error tool/description-missing: the tool has no "
        "description",
        "  hint: pass `description=\"...\"` to define_tool(): the model reads it to decide when "
        "to call the tool",
        "error: cannot build extension `bad-tool-description-missing`: 1 error",
    ]
    assert not (project / "build" / "eve").exists()  # no output (only the build cache)


def test_a_wrong_hook_option_fails_the_build(acme: Path, tmp_path: Path) -> None:
    pyproject = acme / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace(
        "require-runtime-dependencies = true", 'require-runtime-dependencies = "yes"'))

    with pytest.raises(HookOptionError,
                       match="Option `require-runtime-dependencies` for build hook `eve` must be "
                             "a boolean"):
        build_wheel(acme, tmp_path / "dist")


def test_the_sdist_target_does_not_build(acme: Path, tmp_path: Path) -> None:
    (artifact,) = SdistBuilder(str(acme)).build(directory=str(tmp_path / "dist"))

    assert not (acme / "build").exists()
    with tarfile.open(artifact) as archive:
        assert "acme_crm-0.3.0/extension/extension.py" in archive.getnames()


def test_the_sdist_warns_when_the_output_would_ship(
    acme: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (acme / ".gitignore").unlink()
    (acme / "build" / "eve").mkdir(parents=True)
    (acme / "build" / "eve" / "stale.txt").write_text("stale\n")

    list(SdistBuilder(str(acme)).build(directory=str(tmp_path / "dist")))

    captured = capsys.readouterr()
    assert "eve: the sdist includes the generated `build/eve/`; add `build/eve/` to " \
        "`.gitignore`" in captured.out + captured.err


def test_the_manifest_copy_records_external_dependencies(acme: Path, tmp_path: Path) -> None:
    wheel = build_wheel(acme, tmp_path / "dist")

    with zipfile.ZipFile(wheel) as archive:
        manifest = json.loads(archive.read(f"{DIST_INFO}/extra_metadata/eve-manifest.json"))
    assert manifest["build"]["externalDependencies"] == ["packaging"]


def test_an_undeclared_external_dependency_fails_the_wheel(
    copy_fixture: Callable[[str], Path], tmp_path: Path
) -> None:
    project = copy_fixture("extensions/bad/external-dependency-undeclared")

    with pytest.raises(HookBuildError, match="error project/external-dependency-undeclared: "
                                             "`grpcio` is listed in"):
        build_wheel(project, tmp_path / "dist")


def test_the_sdist_refuses_root_files_linking_outside_the_package(acme: Path,
                                                                   tmp_path: Path) -> None:
    elsewhere = tmp_path / "LICENSE-of-another-project"
    elsewhere.write_text("Someone else's license\n")
    (acme / "LICENSE").symlink_to(elsewhere)

    with pytest.raises(HookBuildError, match="pack/file-outside-package: `LICENSE` is a "
                       "symlink to"):
        list(SdistBuilder(str(acme)).build(directory=str(tmp_path / "dist")))
    assert not list((tmp_path / "dist").glob("*.tar.gz"))
