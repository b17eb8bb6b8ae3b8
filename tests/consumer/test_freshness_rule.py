"""One freshness rule (issue 30 item 1): after any edit, one `eve build` settles.

Each edit below, on a copy of the README's demo, is followed by one `eve build`; then
`eve call` loads the agent (the host's upgrade check agrees with the build), the next
`eve build` builds nothing and writes nothing, `eve build --plan` says every extension
is fresh, and `eve extension build` rewrites nothing either. All through the `eve`
command line, in subprocesses.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from eve_build.formats.freshness import RECORD_FILE
from tests.conftest import FIXTURES, copy_fixture_tree

TIMEOUT = 120
Edit = Callable[[Path], None]


def _touch(path: Path) -> None:
    future = time.time() + 3600
    os.utime(path, (future, future))


def _append(path: Path, text: str) -> None:
    path.write_text(path.read_text(encoding="utf-8") + text, encoding="utf-8")


def _add_dependency(demo: Path) -> None:
    pyproject = demo / "packages/gizmo/pyproject.toml"
    text = pyproject.read_text(encoding="utf-8")
    assert '"pydantic>=2"]' in text
    pyproject.write_text(text.replace('"pydantic>=2"]', '"pydantic>=2", "anyio"]'),
                         encoding="utf-8")


def _touch_every_file(demo: Path) -> None:
    for package in ("gizmo", "acme-crm"):
        for path in (demo / "packages" / package).rglob("*"):
            if path.is_file() and "build" not in path.relative_to(demo).parts[2:3]:
                _touch(path)


EDITS: dict[str, Edit] = {
    "touch-pyproject": lambda demo: _touch(demo / "packages/gizmo/pyproject.toml"),
    "add-dependency": _add_dependency,
    "edit-tool": lambda demo: _append(demo / "packages/gizmo/extension/tools/spin.py",
                                      "\n# edited\n"),
    "edit-skill-asset": lambda demo: _append(
        demo / "packages/acme-crm/extension/skills/triage/checklist.md", "\n- one more\n"),
    "edit-lib": lambda demo: _append(demo / "packages/acme-crm/extension/lib/http.py",
                                     "\n# edited\n"),
    "add-file": lambda demo: shutil.copy(demo / "packages/gizmo/extension/tools/spin.py",
                                         demo / "packages/gizmo/extension/tools/twirl.py"),
    "remove-file": lambda demo: (demo / "packages/gizmo/extension/hooks/guard.py").unlink(),
    "touch-every-file": _touch_every_file,
}


def _eve(demo: Path, home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "EVE_HOME": str(home), "NO_COLOR": "1"}
    env.pop("EVE_CACHE_DIR", None)
    return subprocess.run([sys.executable, "-m", "eve_build", *args], cwd=demo, env=env,
                          capture_output=True, text=True, timeout=TIMEOUT, check=False)


def _json(done: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    assert done.returncode == 0, done.stdout + done.stderr
    data: dict[str, Any] = json.loads(done.stdout)
    return data


def _states(payload: dict[str, Any]) -> dict[str, str]:
    return {e["package"]: e["state"] for e in payload["extensions"]}


def _outputs(demo: Path) -> dict[str, tuple[int, int]]:
    """Every file of both outputs, freshness records included, by inode and mtime."""
    found = {}
    for package in ("gizmo", "acme-crm"):
        output = demo / "packages" / package / "build" / "eve"
        for path in sorted(output.rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts:
                info = path.stat()
                found[path.relative_to(demo).as_posix()] = (info.st_ino, info.st_mtime_ns)
    return found


@pytest.fixture
def demo(tmp_path: Path) -> Path:
    """The demo with its two members copied in (the fixture links them)."""
    root = copy_fixture_tree(FIXTURES / "demo", tmp_path / "demo")
    for name in ("acme-crm", "gizmo"):
        (root / "packages" / name).unlink()
        copy_fixture_tree(FIXTURES / "extensions" / name, root / "packages" / name)
    return root


@pytest.mark.parametrize("edit", sorted(EDITS))
def test_one_eve_build_after_an_edit_settles(demo: Path, tmp_path: Path, edit: str) -> None:
    home = tmp_path / "home"
    assert set(_states(_json(_eve(demo, home, "build", "--json"))).values()) == {"built"}
    assert (demo / "packages/gizmo/build/eve" / RECORD_FILE).is_file()

    EDITS[edit](demo)
    _json(_eve(demo, home, "build", "--json"))

    called = _eve(demo, home, "call", "gizmo__spin", "{}")
    assert called.returncode == 0, called.stdout + called.stderr
    assert json.loads(called.stdout) == {"spins": 1}
    before = _outputs(demo)
    again = _json(_eve(demo, home, "build", "--json"))
    assert _states(again) == {"acme-crm": "up-to-date", "gizmo": "up-to-date"}
    assert again["written"] is False
    plan = _json(_eve(demo, home, "build", "--plan", "--json"))
    assert {e["name"]: (e["state"], e["reason"]) for e in plan["extensions"]} == {
        "acme-crm": ("fresh", None), "gizmo": ("fresh", None)}
    _json(_eve(demo, home, "extension", "build", "--json", "--path", "packages/gizmo"))
    assert _outputs(demo) == before  # nothing rewritten, the records included


def test_the_plan_names_the_edit_and_the_host_refuses_until_eve_build(
        demo: Path, tmp_path: Path) -> None:
    """Between the edit and the build the rule says stale everywhere, with one reason."""
    home = tmp_path / "home"
    _json(_eve(demo, home, "build", "--json"))
    _add_dependency(demo)

    plan = _json(_eve(demo, home, "build", "--plan", "--json"))
    assert {e["name"]: (e["state"], e["reason"]) for e in plan["extensions"]} == {
        "acme-crm": ("fresh", None), "gizmo": ("stale", "`pyproject.toml` changed")}
    refused = _eve(demo, home, "call", "gizmo__spin", "{}")
    assert refused.returncode == 1
    assert ("error runtime/extension-changed: extension gizmo changed since the agent was "
            "built (1.0.0, its source was edited): run eve build") in refused.stderr
    built = _json(_eve(demo, home, "build", "--json"))
    assert _states(built) == {"acme-crm": "up-to-date", "gizmo": "built"}
    assert _eve(demo, home, "call", "gizmo__spin", "{}").returncode == 0
