"""The TypeScript MCP SDK, installed with npm into a cache folder once, for tests that
drive eve with a client other than the Python SDK's; run on Node 24 of the cache."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.mcp import conformance_suite

CLIENT = Path(__file__).with_name("ts_client.mjs")


def install_ts_sdk() -> Path:
    """The folder holding node_modules/@modelcontextprotocol/sdk and the client script,
    installed once with the Node 24 and npm of tests/mcp/conformance_suite.py (fetched
    over HTTP: no npm or Node on the machine is needed); a failed install skips, saying
    why, unless under CI (`.ci/run` installs it before the tests)."""
    try:
        folder = conformance_suite.install_ts_sdk()
    except conformance_suite.InstallError as exc:
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail(f"the TypeScript MCP SDK is not installed and CI is set: {exc}")
        pytest.skip(f"the TypeScript MCP SDK could not be installed: {exc}")
    shutil.copyfile(CLIENT, folder / CLIENT.name)  # node resolves the SDK beside the script
    return folder


def run_ts_client(folder: Path, *args: str, env: dict[str, str]) -> dict[str, object]:
    node = str(conformance_suite.node_binary())
    done = subprocess.run([node, str(folder / CLIENT.name), *args], capture_output=True,
                          text=True, timeout=120, env=env)
    assert done.returncode == 0, done.stderr
    seen: dict[str, object] = json.loads(done.stdout)
    return seen
