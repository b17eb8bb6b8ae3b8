"""The TypeScript MCP SDK, installed with npm into a cache folder once, for tests that
drive eve with a client other than the Python SDK's."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

PACKAGE = "@modelcontextprotocol/sdk@1"
CLIENT = Path(__file__).with_name("ts_client.mjs")


def cache_folder() -> Path:
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "eve-build-tests" / "ts-mcp-sdk"


def install_ts_sdk() -> Path:
    """The folder holding node_modules/@modelcontextprotocol/sdk and the client script;
    skips (saying why) only when node or npm is not on PATH."""
    missing = [tool for tool in ("node", "npm") if shutil.which(tool) is None]
    if missing:
        pytest.skip(f"the TypeScript SDK tests need {' and '.join(missing)} on PATH")
    folder = cache_folder()
    if not (folder / "node_modules/@modelcontextprotocol/sdk/package.json").is_file():
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "package.json").write_text(json.dumps({"name": "eve-ts-client",
                                                         "private": True, "type": "module"}))
        subprocess.run(["npm", "install", "--no-audit", "--no-fund", "--silent", PACKAGE],
                       cwd=folder, check=True, timeout=300)
    shutil.copyfile(CLIENT, folder / CLIENT.name)  # node resolves the SDK beside the script
    return folder


def run_ts_client(folder: Path, *args: str, env: dict[str, str]) -> dict[str, object]:
    done = subprocess.run(["node", str(folder / CLIENT.name), *args], capture_output=True,
                          text=True, timeout=120, env=env)
    assert done.returncode == 0, done.stderr
    seen: dict[str, object] = json.loads(done.stdout)
    return seen
