"""Shared generators for the benchmarks: extension packages of N tools."""

from __future__ import annotations

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
