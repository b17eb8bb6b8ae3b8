"""The official MCP conformance suite (`@modelcontextprotocol/conformance` 0.1.16, on
Node 24) against `eve serve` of fixtures/conformance: every scenario passes except the
ones `expected-failures.yml` lists with the reason eve cannot express them.

Node and the suite come from the npm registry into a cache folder, once
(tests/mcp/conformance_suite.py; `.ci/run` installs them before the tests). The suite
takes only a URL (no stdio server), so `eve mcp` is covered by tests/mcp/test_complete.py
with the Python SDK's client instead.
"""

from __future__ import annotations

import json
import os
import queue
import re
import shutil
import signal
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from tests.conftest import FIXTURES
from tests.mcp import conformance_suite
from tests.mcp.conftest import eve_command

FIXTURE = FIXTURES / "conformance"
EXTENSIONS = ("extensions/conformance_tools.py", "extensions/conformance_prompts.py")


@pytest.fixture(scope="module")
def suite() -> tuple[Path, Path]:
    """Node 24 and the suite's script; a machine without npm skips, unless under CI."""
    try:
        return conformance_suite.install()
    except conformance_suite.InstallError as exc:
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail(f"the conformance suite is not installed and CI is set: {exc}")
        pytest.skip(f"the conformance suite could not be installed: {exc}")


@pytest.fixture
def served(tmp_path: Path) -> Iterator[str]:
    """`eve build` then `eve serve --port 0` of a copy of the fixture; its /mcp URL."""
    app = tmp_path / "conformance"
    shutil.copytree(FIXTURE, app, ignore=shutil.ignore_patterns(".eve", "__pycache__"))
    env = {**os.environ, "EVE_HOME": str(tmp_path / "eve-home"), "NO_COLOR": "1"}
    built = subprocess.run(eve_command("build", "--path", str(app)), capture_output=True,
                           text=True, timeout=300, env=env, check=False)
    assert built.returncode == 0, built.stdout + built.stderr
    extensions = [arg for path in EXTENSIONS for arg in ("-e", str(app / path))]
    process = subprocess.Popen(eve_command("serve", "--path", str(app), "--port", "0",
                                           *extensions),
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               env=env)
    try:
        assert process.stdout is not None
        lines: queue.Queue[str] = queue.Queue()
        out = process.stdout
        threading.Thread(target=lambda: [lines.put(t) for t in out], daemon=True).start()
        line = lines.get(timeout=120)  # `serving on URL` once the app has started
        assert line.startswith("serving on http://127.0.0.1:"), line
        yield f"{line.split()[2]}/mcp"
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            process.kill()
            process.communicate(timeout=60)


def test_the_conformance_suite_passes_against_eve_serve(
        suite: tuple[Path, Path], served: str, tmp_path: Path) -> None:
    node, script = suite
    expected = FIXTURE / "expected-failures.yml"
    listed = yaml.safe_load(expected.read_text())["server"]
    assert len(listed) <= 3, "at most three scenarios may be listed as eve cannot express"
    env = {**os.environ, "PATH": f"{node.parent}{os.pathsep}{os.environ.get('PATH', '')}",
           "NO_COLOR": "1", "FORCE_COLOR": "0"}
    done = subprocess.run([str(node), str(script), "server", "--url", served,
                           "--expected-failures", str(expected), "-o", str(tmp_path / "out")],
                          capture_output=True, text=True, timeout=900, env=env, check=False)
    results = read_results(tmp_path / "out")
    failed = sorted(name for name, checks in results.items()
                    if any(c["status"] == "FAILURE" for c in checks))
    summary = done.stdout[done.stdout.find("=== SUMMARY ==="):]
    # every scenario ran; the ones failing are exactly the listed ones (the suite's own
    # exit code says the same: an unlisted failure, or a listed scenario that passes, is 1)
    assert len(results) >= 30, summary
    assert failed == sorted(listed), summary
    assert done.returncode == 0, summary + done.stderr


def read_results(folder: Path) -> dict[str, list[dict[str, object]]]:
    """Each scenario's checks, from the suite's output folder (`server-NAME-TIME/checks.json`)."""
    found: dict[str, list[dict[str, object]]] = {}
    for checks in sorted(folder.glob("server-*/checks.json")):
        name = re.sub(r"-\d{4}-\d{2}-\d{2}T[\d-]+Z$", "",
                      checks.parent.name.removeprefix("server-"))
        found[name] = json.loads(checks.read_text())
    return found


def test_without_the_registry_the_install_fails_with_npms_reason(tmp_path: Path) -> None:
    import sys

    from tests.mcp.servers import refusing_port

    if shutil.which("npm") is None:
        pytest.skip("needs npm on PATH")
    with refusing_port() as port:  # a registry that refuses: the network is absent
        done = subprocess.run(
            [sys.executable, str(Path(conformance_suite.__file__))], capture_output=True,
            text=True, timeout=300, check=False,
            env={**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache"),
                 "npm_config_registry": f"http://127.0.0.1:{port}/",
                 "npm_config_fetch_retries": "0", "npm_config_cache": str(tmp_path / "npm")})

    assert done.returncode == 1
    package = conformance_suite.node_package()
    assert done.stderr.startswith(f"error: `npm install {package}@24` failed"), done.stderr
    assert "ECONNREFUSED" in done.stderr
    assert "Traceback" not in done.stderr
    assert not conformance_suite.installed(tmp_path / "cache" / "eve-build-tests")
