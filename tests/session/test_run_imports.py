"""`eve run --model test` imports only what its turn needs: with no node registered in
`$EVE_HOME`, the node client (scan, protocol, client) is never imported, nor the
`.env` parser without a `.env` file, nor packaging or multiprocessing, and the turn still
runs (issue 28's offline-turn target; the time is measured by
bench/offline_turn_bench.py, never here)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from eve_build.consumer.build import build_agent
from tests.local.conftest import LOCAL
from tests.runtime.apps import make_app

NODE_CLIENT = {"eve_build.node.scan", "eve_build.node.client", "eve_build.node.protocol"}
UNUSED = {"dotenv", "packaging.utils", "multiprocessing.connection"}
"""No `.env` file, no snapshot to migrate, no worker process: none of these is needed."""
SCRIPT_LOADING = {"eve_build.local.source_loader", "eve_build.local.trust",
                  "eve_build.local.spec", "cronsim"}
"""Importing a local extension's script, the trust check and the Spec check: needed only
when there is a script to load (`-e`, `.eve/extensions/`, `$EVE_HOME/extensions/`)."""


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("run-imports") / "app"
    root.mkdir()
    make_app(root, [], {})
    build_agent(root)
    return root


def _run(app: Path, home: Path, *extra: str,
         ) -> tuple[subprocess.CompletedProcess[str], set[str]]:
    environ = {**{k: v for k, v in os.environ.items() if k != "EVE_MODEL"},
               "EVE_HOME": str(home), "NO_COLOR": "1"}
    done = subprocess.run([sys.executable, "-X", "importtime", "-m", "eve_build", "run",
                           "hello", "--model", "test", "--path", str(app), *extra], env=environ,
                          capture_output=True, text=True, timeout=120, check=False)
    imported = {line.rsplit("|", 1)[1].strip() for line in done.stderr.splitlines()
                if line.startswith("import time:") and "|" in line}
    return done, imported


def test_a_plain_run_imports_no_node_client_dotenv_packaging_or_multiprocessing(
        built: Path, tmp_path: Path) -> None:
    done, imported = _run(built, tmp_path / "home")

    assert done.returncode == 0, done.stderr[-2000:]
    assert "session:" in done.stderr
    assert not NODE_CLIENT & imported
    assert not UNUSED & imported


def test_a_dotenv_file_is_still_read(built: Path, tmp_path: Path) -> None:
    (built / ".env").write_text("EVE_MODEL=test\n")
    try:
        done, imported = _run(built, tmp_path / "home")
    finally:
        (built / ".env").unlink()

    assert done.returncode == 0, done.stderr[-2000:]
    assert "dotenv" in imported


def test_a_registered_node_is_still_scanned(built: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "nodes.json").write_text(json.dumps({"formatVersion": 1, "nodes": {}}))

    done, imported = _run(built, home)

    assert done.returncode == 0, done.stderr[-2000:]
    assert "eve_build.node.scan" in imported


def test_a_plain_run_imports_no_script_loading(built: Path, tmp_path: Path) -> None:
    done, imported = _run(built, tmp_path / "home")

    assert done.returncode == 0, done.stderr[-2000:]
    assert not SCRIPT_LOADING & imported


def test_an_explicit_script_is_still_loaded_and_its_spec_placed(built: Path,
                                                                 tmp_path: Path) -> None:
    done, imported = _run(built, tmp_path / "home", "-e", str(LOCAL / "notes.py"))

    assert done.returncode == 0, done.stderr[-2000:]
    assert "tool: note ok" in done.stderr  # its tool was placed, offered and called
    assert {"eve_build.local.source_loader", "eve_build.local.spec"} <= imported


def test_a_project_script_is_still_trust_checked(built: Path, tmp_path: Path) -> None:
    folder = built / ".eve" / "extensions"
    folder.mkdir(parents=True)
    (folder / "marker.py").write_text("def setup(ctx):\n    raise SystemExit('marker-setup-ran')\n")
    try:
        done, imported = _run(built, tmp_path / "home")
    finally:
        (folder / "marker.py").unlink()
        folder.rmdir()

    assert done.returncode == 0, done.stderr[-2000:]
    assert "eve_build.local.trust" in imported
    assert "marker-setup-ran" not in done.stderr  # untrusted: never imported
