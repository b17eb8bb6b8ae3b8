"""A Python with LangChain's MCP adapters, for tests/mcp/test_frameworks.py: a venv of
its own, built once with `uv` into the tests' cache folder (a file lock keeps parallel
test workers from racing), since `langchain-mcp-adapters` needs the MCP SDK 1.x and
eve-build the 2.x (docs/frameworks.md).

The versions are pinned to ones known to work together. `.ci/run` runs this file with the
test venv's Python (`.venv/bin/python tests/mcp/langchain_env.py`, `uv` comes with the
`[test]` extra) before the tests, so the tests never download anything.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import sys
from pathlib import Path

ADAPTERS_VERSION = "0.3.2"
REQUIREMENTS = (f"langchain-mcp-adapters=={ADAPTERS_VERSION}", "mcp==1.30.0",
                "langchain-core==1.8.3")
PROBE = "import langchain_mcp_adapters.client"
BUILD_TIMEOUT = 600.0
DONE = ".eve-built"  # written last: a venv without it is a build that did not finish


class BuildError(RuntimeError):
    """uv is missing or could not build the venv (the message carries uv's words)."""


def cache_root() -> Path:
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "eve-build-tests"


def folder(root: Path | None = None) -> Path:
    return (root or cache_root()) / f"langchain-{ADAPTERS_VERSION}"


def python(root: Path | None = None) -> Path:
    return folder(root) / "bin" / "python"


def built(root: Path | None = None) -> bool:
    return (folder(root) / DONE).is_file() and python(root).is_file()


def uv_binary() -> str:
    """The `uv` of this Python's environment (the `[test]` extra), else the one on PATH."""
    try:
        from uv import find_uv_bin

        return str(find_uv_bin())
    except (ImportError, FileNotFoundError):
        found = shutil.which("uv")
        if found is None:
            raise BuildError("uv is not installed (it comes with eve-build's [test] extra): "
                             "it is needed once to build LangChain's venv") from None
        return found


def build(root: Path | None = None) -> Path:
    """The venv's Python, built once; raises BuildError with the reason."""
    root = root or cache_root()
    root.mkdir(parents=True, exist_ok=True)
    with open(root / ".langchain.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # one builder at a time; the others then find it
        if not built(root):
            venv = folder(root)
            shutil.rmtree(venv, ignore_errors=True)  # a build that did not finish
            uv = uv_binary()
            _run([uv, "venv", "--quiet", "--python", sys.executable, str(venv)],
                 "`uv venv`")
            _run([uv, "pip", "install", "--quiet", "--python", str(python(root)),
                  *REQUIREMENTS], f"`uv pip install {' '.join(REQUIREMENTS)}`")
            _run([str(python(root)), "-c", PROBE], f"`{PROBE}` in the new venv")
            (venv / DONE).write_text(" ".join(REQUIREMENTS) + "\n")
    return python(root)


def _run(command: list[str], what: str) -> None:
    try:
        done = subprocess.run(command, capture_output=True, text=True,
                              timeout=BUILD_TIMEOUT, check=False)
    except subprocess.TimeoutExpired:
        raise BuildError(f"{what} did not finish in {BUILD_TIMEOUT:.0f} s") from None
    if done.returncode != 0:
        words = (done.stderr or done.stdout).strip().splitlines()[-4:]  # uv's reason
        raise BuildError(f"{what} failed (exit {done.returncode}): " + " | ".join(words))


def main() -> int:
    try:
        built_python = build()
    except BuildError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(f"langchain python: {built_python}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
