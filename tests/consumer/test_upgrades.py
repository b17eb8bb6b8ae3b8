"""Upgrade safety in one process: the host refuses a changed package, `eve build` says what
changed, and a newer eve-build's extension is a warning.

The extension is a workspace member rebuilt alone (`eve extension build`) behind the
agent's back, which is what installing another release does to an installed one; the
integration tests (tests/integration/test_upgrades.py) do it with real wheels.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from eve_build._version import __version__
from eve_build.consumer.build import build_agent
from eve_build.errors import DiagnosticsError
from eve_build.extension.build import build_extension
from eve_build.formats.compiled import read_compiled
from eve_build.formats.manifest import derive_manifest_path
from eve_build.install_hint import derive_install_hint
from eve_build.runtime import load_agent
from eve_build.runtime.upgrades import try_derive_change
from tests.conftest import FIXTURES, copy_fixture_tree
from tests.consumer.conftest import MakeApp
from tests.runtime.apps import compile_app, mount_file
from tests.runtime.apps import make_app as make_runtime_app

REGION_OPTIONAL = '''
from pydantic import BaseModel
from eve_build.sdk import define_extension


class Config(BaseModel):
    region: str = "eu"


extension = define_extension(config=Config)
'''
REGION_REQUIRED = REGION_OPTIONAL.replace('region: str = "eu"', "region: str")
WIND_TOOL = '''
from pydantic import BaseModel
from eve_build.sdk import define_tool


class WindInput(BaseModel):
    turns: int


tool = define_tool(description="Wind the gizmo up.", input=WindInput,
                   execute=lambda input, ctx: {"wound": input.turns})
'''


def _gizmo_app(tmp_path: Path) -> Path:
    root = make_runtime_app(tmp_path / "app", ["gizmo"],
                    {"extensions/gizmo.py": mount_file("gizmo", 'region="us"')})
    member = root / "extensions" / "gizmo"
    (member / "extension" / "extension.py").write_text(REGION_OPTIONAL)
    compile_app(root)
    return root


def _release(root: Path, version: str, *, required: bool = True, tool: bool = True) -> None:
    """Change the member into another release and rebuild only the extension."""
    member = root / "extensions" / "gizmo"
    pyproject = member / "pyproject.toml"
    text = pyproject.read_text(encoding="utf-8")
    current = next(line for line in text.splitlines() if line.startswith("version = "))
    pyproject.write_text(text.replace(current, f'version = "{version}"'), encoding="utf-8")
    (member / "extension" / "extension.py").write_text(
        REGION_REQUIRED if required else REGION_OPTIONAL)
    wind = member / "extension" / "tools" / "wind.py"
    if tool:
        wind.write_text(WIND_TOOL)
    else:
        wind.unlink(missing_ok=True)
    build_extension(member)


def _refusal(root: Path) -> list[str]:
    with pytest.raises(DiagnosticsError) as caught:
        load_agent(root, environ={})
    return [d.message for d in caught.value.diagnostics]


def test_the_compiled_agent_records_each_mounts_version_and_manifest_hash(
        tmp_path: Path) -> None:
    root = _gizmo_app(tmp_path)
    mount = read_compiled(root).root.mounts[0]
    manifest = derive_manifest_path(root / "extensions/gizmo/build/eve/gizmo")
    assert mount.version == "1.0.0"
    assert mount.manifest_hash.startswith("sha256:")
    assert mount.manifest_hash.removeprefix("sha256:") != ""
    import hashlib
    assert mount.manifest_hash == "sha256:" + hashlib.sha256(manifest.read_bytes()).hexdigest()


def test_an_upgraded_package_refuses_to_load_until_eve_build(tmp_path: Path) -> None:
    root = _gizmo_app(tmp_path)
    _release(root, "1.1.0")
    assert _refusal(root) == ["extension gizmo changed since the agent was built "
                              "(1.0.0 -> 1.1.0): run eve build"]
    result = build_agent(root)
    assert result.changes == ("gizmo 1.0.0 -> 1.1.0: 1 tool added (gizmo__wind), "
                              "config field region now required",)
    with load_agent(root, environ={}) as agent:
        assert agent.call_tool("gizmo__wind", {"turns": 3}).value == {"wound": 3}


def test_a_downgrade_is_refused_and_reported_the_other_way(tmp_path: Path) -> None:
    root = _gizmo_app(tmp_path)
    _release(root, "1.1.0")
    build_agent(root)
    _release(root, "0.9.0", required=False, tool=False)
    assert _refusal(root) == ["extension gizmo changed since the agent was built "
                              "(1.1.0 -> 0.9.0): run eve build"]
    assert build_agent(root).changes == ("gizmo 1.1.0 -> 0.9.0: 1 tool removed (gizmo__wind), "
                                         "config field region now optional",)
    with load_agent(root, environ={}) as agent:
        assert agent.tools() == ["gizmo__spin"]


def test_a_rebuild_with_other_contents_under_the_same_version_is_refused(
        tmp_path: Path) -> None:
    root = _gizmo_app(tmp_path)
    _release(root, "1.0.0", required=False)
    assert _refusal(root) == ["extension gizmo changed since the agent was built "
                              "(1.0.0, rebuilt with other contents): run eve build"]
    assert build_agent(root).changes == ("gizmo 1.0.0 rebuilt: 1 tool added (gizmo__wind)",)


def test_an_unchanged_build_reports_no_change(tmp_path: Path) -> None:
    root = _gizmo_app(tmp_path)
    assert build_agent(root).changes == ()
    with load_agent(root, environ={}) as agent:
        assert agent.call_tool("gizmo__spin", {"times": 2}).value == {"spins": 2}


def test_a_removed_package_is_refused_with_the_version_it_was_built_with(
        tmp_path: Path) -> None:
    root = _gizmo_app(tmp_path)
    import shutil
    shutil.rmtree(root / "extensions/gizmo/build")
    assert _refusal(root) == ["extension gizmo is no longer installed (the agent was built "
                              "with 1.0.0): install it again or run eve build"]


def test_an_extension_built_by_a_newer_eve_build_is_a_warning(
        make_app: MakeApp, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    package = copy_fixture_tree(FIXTURES / "extensions" / "gizmo", tmp_path / "site" / "gizmo")
    build_extension(package)
    manifest_path = derive_manifest_path(package / "build" / "eve" / "gizmo")
    data = json.loads(manifest_path.read_text(encoding="utf-8"))
    data["builtWithEve"] = "99.0.0"
    manifest_path.write_text(json.dumps(data), encoding="utf-8")
    monkeypatch.syspath_prepend(str(package / "build" / "eve"))

    result = build_agent(make_app("installed"))
    [found] = result.warnings
    assert found.code == "compat/built-with-newer-eve"
    assert found.file == "agent/extensions/gizmo.py"
    assert found.message.endswith(f"built with eve-build 99.0.0), newer than this eve-build "
                                  f"{__version__}")
    assert found.hint.startswith("upgrade eve-build to 99.0.0 or later")


def test_a_source_backed_extension_edited_in_place_is_refused_until_eve_build(
        tmp_path: Path) -> None:
    root = _gizmo_app(tmp_path)
    (root / "extensions/gizmo/extension/tools/wind.py").write_text(WIND_TOOL)
    assert _refusal(root) == ["extension gizmo changed since the agent was built "
                              "(1.0.0, its source was edited): run eve build"]
    result = build_agent(root)
    assert [m.state for m in result.extensions] == ["built"]
    assert result.changes == ("gizmo 1.0.0 rebuilt: 1 tool added (gizmo__wind)",)
    with load_agent(root, environ={}) as agent:
        assert agent.tools() == ["gizmo__spin", "gizmo__wind"]


def test_the_hint_for_a_source_backed_member_says_eve_build_not_pip_install(
        tmp_path: Path) -> None:
    root = _gizmo_app(tmp_path)
    (root / "extensions/gizmo/extension/tools/wind.py").write_text(WIND_TOOL)
    with pytest.raises(DiagnosticsError) as caught:
        load_agent(root, environ={})
    [found] = caught.value.diagnostics
    assert found.code == "runtime/extension-changed"
    assert found.hint == ("run `eve build`: it rebuilds `gizmo` from its source and compiles "
                          "the agent against it (mounted by `agent/extensions/gizmo.py`)")
    assert "pip install" not in found.hint


def test_the_hint_for_an_installed_package_says_what_eve_build_does_and_how_to_go_back(
        tmp_path: Path) -> None:
    """An installed wheel (not source-backed): `eve build` recompiles against what is
    installed and installs or rebuilds nothing; going back is an install, named for the
    environment eve runs in."""
    root = _gizmo_app(tmp_path)
    _release(root, "1.1.0")
    [mount] = read_compiled(root).root.mounts
    installed = mount.model_copy(update={"source_backed": False})
    paths = [str(root / "extensions" / "gizmo" / "build" / "eve")]

    found = try_derive_change(installed, paths)
    assert found is not None
    back = derive_install_hint("gizmo==1.0.0")
    assert found.hint == (
        "run `eve build`: it reads the installed `gizmo`'s manifest (nothing is installed or "
        "rebuilt), checks it and the mount's config in `agent/extensions/gizmo.py`, compiles "
        f"the agent against it and lists what changed; or put back the version the agent "
        f"was built with: `{back}`")
    assert back.endswith(" -m pip install gizmo==1.0.0") or back.startswith("uv pip")
    # what the hint says eve build does, it does: the change listed, gizmo left as it was
    assert build_agent(root).changes[0].startswith("gizmo 1.0.0 -> 1.1.0")


def test_the_hint_for_a_removed_installed_package_says_eve_build_installs_nothing(
        tmp_path: Path) -> None:
    root = _gizmo_app(tmp_path)
    [mount] = read_compiled(root).root.mounts
    installed = mount.model_copy(update={"source_backed": False})

    found = try_derive_change(installed, [str(tmp_path / "nowhere")])
    assert found is not None
    assert found.message == ("extension gizmo is no longer installed (the agent was built "
                             "with 1.0.0): install it again or run eve build")
    assert found.hint.startswith(
        f"install `gizmo` again (`{derive_install_hint('gizmo==1.0.0')}`, or the wheel or "
        "folder it came from): `eve build` installs nothing; or delete its mount "
        "`agent/extensions/gizmo.py`, then run `eve build`")
