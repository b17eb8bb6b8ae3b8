"""Agent apps for runtime tests: a uv workspace of fixture extensions plus an agent folder.

`make_app` copies the named fixture extensions into `<app>/extensions/`, declares them
as workspace members and writes the agent files; `compile_app` runs `eve build`
(`build_agent`), which writes `.eve/compile/compiled-agent.json`. The members are built
in this process first, so `eve build` finds them current and starts no build workers.
"""

from __future__ import annotations

import shutil
import textwrap
from pathlib import Path

from eve_build.consumer.build import build_agent
from eve_build.extension.build import build_extension
from eve_build.formats.compiled import CompiledAgent
from tests.conftest import FIXTURES

WORKSPACE = """\
[project]
name = "demo-agent"
version = "0.1.0"

[tool.uv.workspace]
members = ["extensions/*"]
"""


def make_app(root: Path, extensions: list[str], files: dict[str, str]) -> Path:
    """An app at `root`: fixture extensions as workspace members, and `agent/<path>` files."""
    for name in extensions:
        shutil.copytree(FIXTURES / "extensions" / name, root / "extensions" / name,
                        symlinks=True, ignore=shutil.ignore_patterns("build", "dist"))
    (root / "pyproject.toml").write_text(WORKSPACE)
    files = {"instructions.md": "You are a test agent.\n", **files}
    for relative, text in files.items():
        path = root / "agent" / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    return root


def compile_app(root: Path) -> CompiledAgent:
    """`eve build` in `root`, after building the member extensions in this process."""
    for member in sorted((root / "extensions").iterdir()):
        build_extension(member)
    return build_agent(root).compiled


def mount_file(factory: str, arguments: str = "") -> str:
    """The text of a mount file: `mount = factory(arguments)`."""
    return (f"from eve_build.sdk import env\nfrom {factory} import {factory}\n\n"
            f"mount = {factory}({arguments})\n")
