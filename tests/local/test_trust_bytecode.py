"""Trusted code is exactly what was approved: no `.pyc` planted after `eve trust` runs.

Python's own loader runs `__pycache__/<name>.cpython-XY.pyc` in place of the source
when the cache is an unchecked-hash one, whatever the source says. Each test first
shows that the planted file would run under a plain import, then that the host runs
the approved source instead.
"""

from __future__ import annotations

import hashlib
import importlib.util
import py_compile
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from eve_build.local.source_loader import UnapprovedSourceError, import_source
from eve_build.local.trust import approve_trust
from eve_build.runtime import Agent
from tests.local.conftest import place

APPROVED = '''\
from eve_build.sdk import Spec, define_command


def setup(ctx):
    return Spec(commands={"who": define_command(description="Who runs.",
                                                run=lambda args, c: "approved")})
'''
PLANTED = '''\
from pathlib import Path

from eve_build.sdk import Spec, define_command

Path({marker!r}).write_text("planted code ran")


def setup(ctx):
    return Spec(commands={{"who": define_command(description="Who runs.",
                                                 run=lambda args, c: "planted")}})
'''


def plant(source: Path, marker: Path, tmp_path: Path) -> Path:
    """Compile other code into `source`'s cache slot as an unchecked-hash .pyc."""
    other = tmp_path / "other.py"
    other.write_text(PLANTED.format(marker=str(marker)))
    cache = Path(importlib.util.cache_from_source(str(source)))
    py_compile.compile(str(other), cfile=str(cache), dfile=str(source), doraise=True,
                       invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH)
    return cache


def would_run_under_plain_import(source: Path, marker: Path, name: str) -> bool:
    spec = importlib.util.spec_from_file_location(name, source)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    finally:
        sys.modules.pop(name, None)
    ran = marker.exists()
    marker.unlink(missing_ok=True)
    return ran


def test_a_planted_pyc_beside_an_approved_script_does_not_run(
        app: Path, eve_home: Path, tmp_path: Path, load: Callable[..., Agent]) -> None:
    folder = app / ".eve" / "extensions"
    folder.mkdir(parents=True)
    script = folder / "who.py"
    script.write_text(APPROVED)
    approve_trust(app, eve_home)
    marker = tmp_path / "marker"
    cache = plant(script, marker, tmp_path)
    assert would_run_under_plain_import(script, marker, "probe_who")  # the hole is real
    agent = load(app)
    assert [(r.name, r.status) for r in agent.local_extensions] == [("who", "loaded")]
    assert agent.run_command("who", "").text == "approved"
    assert not marker.exists()
    assert cache.exists()  # left alone, and never written by the host either
    assert sorted(p.name for p in cache.parent.iterdir()) == [cache.name]


def test_a_planted_pyc_of_a_sibling_module_does_not_run(
        app: Path, eve_home: Path, tmp_path: Path, load: Callable[..., Agent]) -> None:
    folder = app / ".eve" / "extensions"
    (extension,) = place(folder, "folder-with-helpers")
    approve_trust(app, eve_home)
    marker = tmp_path / "marker"
    helpers = extension / "helpers.py"
    plant(helpers, marker, tmp_path)
    assert would_run_under_plain_import(helpers, marker, "probe_helpers")
    # a sourceless module beside it is not importable either (it has no approved source)
    py_compile.compile(str(helpers), cfile=str(extension / "extra.pyc"), doraise=True)
    agent = load(app)
    assert [(r.name, r.status) for r in agent.local_extensions] == [
        ("folder-with-helpers", "loaded")]
    assert agent.run_command("hello", "you").text == "hello you"
    assert not marker.exists()


def test_bytes_other_than_the_checked_ones_are_refused(tmp_path: Path) -> None:
    script = tmp_path / "late.py"
    script.write_text("VALUE = 'approved'\n")
    checked = {"late.py": hashlib.sha256(script.read_bytes()).hexdigest()}
    assert import_source("_eve_probe_late", script, verify=checked,
                         base=tmp_path).VALUE == "approved"
    script.write_text("VALUE = 'swapped after the check'\n")
    with pytest.raises(UnapprovedSourceError, match=r"`late\.py` is not the file that "
                       r"was approved"):
        import_source("_eve_probe_late", script, verify=checked, base=tmp_path)
    assert "_eve_probe_late" not in sys.modules
