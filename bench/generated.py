"""Shared generators for the benchmarks: extension packages of N tools."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

EXTENSION = """from pydantic import BaseModel
from eve_build.sdk import define_extension


class Config(BaseModel):
    greeting: str = "Hello"
{extra_fields}

extension = define_extension(config=Config)
"""
TOOL = '''from pydantic import BaseModel
from eve_build.sdk import define_tool


class Input(BaseModel):
    query: str
    limit: int = {index}


def run(input: Input, ctx: object) -> dict[str, object]:
    return {{"query": input.query, "limit": input.limit}}


tool = define_tool(description="Tool number {index}.", input=Input, execute=run)
'''
PYPROJECT = """[project]
name = "{name}"
version = "0.1.0"
dependencies = ["eve-build", "pydantic>=2"]

[tool.eve.extension]
source = "extension"
"""


def write_extension(root: Path, name: str, tools: int, extra_fields: str = "") -> Path:
    """An extension package at `root` with `tools` tools, each its own module."""
    source = root / "extension"
    (source / "tools").mkdir(parents=True)
    (root / "pyproject.toml").write_text(PYPROJECT.format(name=name))
    (source / "extension.py").write_text(EXTENSION.format(extra_fields=extra_fields))
    (source / "instructions.md").write_text("Benchmark extension.\n")
    for index in range(tools):
        (source / "tools" / f"tool_{index:04d}.py").write_text(TOOL.format(index=index))
    return root


TS_PACKAGE = """{{"name": "{name}", "version": "0.1.0", "type": "module",
 "eve": {{"extension": {{"source": "./extension", "dist": "./dist/extension"}}}},
 "files": ["dist"], "dependencies": {{"zod": "*"}},
 "devDependencies": {{"typescript": "7.0.2", "@types/node": "24.x"}},
 "peerDependencies": {{"eve": "*"}}}}
"""
TS_EXTENSION = """import { defineExtension } from "eve/extension";
import { z } from "zod";

export default defineExtension({
  config: z.object({ greeting: z.string().default("Hello") }),
});
"""
TS_TOOL = """import {{ defineTool }} from "eve/tools";
import {{ z }} from "zod";

export default defineTool({{
  description: "Tool number {index}.",
  inputSchema: z.object({{ query: z.string(), limit: z.number().int().default({index}) }}),
  async execute({{ query, limit }}) {{
    return {{ query, limit }};
  }},
}});
"""


def write_ts_extension(root: Path, name: str, tools: int, node_modules: Path) -> Path:
    """The TypeScript twin of `write_extension` for the reference eve: the same tools,
    one module each, with zod input schemas; `node_modules` is linked, not installed."""
    source = root / "extension"
    (source / "tools").mkdir(parents=True)
    (root / "package.json").write_text(TS_PACKAGE.format(name=name))
    (root / "node_modules").symlink_to(node_modules, target_is_directory=True)
    (source / "extension.ts").write_text(TS_EXTENSION)
    (source / "instructions.md").write_text("Benchmark extension.\n")
    for index in range(tools):
        (source / "tools" / f"tool_{index:04d}.ts").write_text(TS_TOOL.format(index=index))
    return root


def edit_one_tool(source: Path, suffix: str) -> None:
    """Append a comment to the first tool module (`.py` or `.ts`): a one-tool edit."""
    first = sorted((source / "tools").glob(f"tool_*{suffix}"))[0]
    marker = "#" if suffix == ".py" else "//"
    first.write_text(first.read_text() + f"\n{marker} edited\n")


TS_TOOLS = ("typescript@7.0.2", "@types/node@24")
"""The twin's devDependencies, which the reference install (eve alone) does not hold."""


def twin_node_modules(reference: Path, workdir: Path, path: str) -> Path:
    """A node_modules of the reference's packages and TS_TOOLS (installed once with npm
    into ${TMPDIR}/eve-bench-ts), linked entry by entry, `.bin` merged."""
    tools = Path(os.environ.get("TMPDIR", "/tmp")) / "eve-bench-ts"
    if not (tools / "node_modules" / "typescript").is_dir():
        tools.mkdir(parents=True, exist_ok=True)
        env = {**os.environ, "PATH": f"{path}{os.environ.get('PATH', '')}"}
        if not (tools / "package.json").is_file():
            (tools / "package.json").write_text('{"name": "eve-bench-ts", "private": true}')
        subprocess.run(["npm", "install", "--silent", *TS_TOOLS], cwd=tools, env=env,
                       check=True)
    merged = workdir / "node_modules"
    (merged / ".bin").mkdir(parents=True)
    for source in (reference, tools / "node_modules"):
        for entry in source.iterdir():
            target = merged / entry.name
            if entry.name == ".bin":
                for tool in entry.iterdir():
                    if not (target / tool.name).exists():
                        (target / tool.name).symlink_to(tool.resolve())
            elif not target.exists():
                target.symlink_to(entry.resolve(), target_is_directory=True)
    return merged
