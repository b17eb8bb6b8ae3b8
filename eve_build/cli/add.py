"""`eve add PACKAGE|PATH [--as NS]`: install an extension and mount it."""

from __future__ import annotations

from pathlib import Path

import typer

from eve_build.cli.conventions import JSON_OPTION, path_option
from eve_build.cli.output import emit_result, run_core, summary


def register(app: typer.Typer) -> None:
    app.command("add")(add)


def add(
    target: str = typer.Argument(..., metavar="PACKAGE|PATH",
                                 help="A package name or requirement, a wheel file, or an "
                                      "extension project's folder."),
    namespace: str | None = typer.Option(None, "--as", metavar="NS",
                                         help="The namespace to mount it under (default: its "
                                              "import name)."),
    path: Path = path_option("A folder inside the agent project."),
    json_output: bool = JSON_OPTION,
) -> None:
    """Install an extension, add it to pyproject.toml, mount it and build the agent."""
    from eve_build.add.extension import add_extension

    result = run_core(lambda: add_extension(path, target, namespace), json_output=json_output)
    if json_output:
        emit_result("added", namespace=result.namespace, package=result.package,
                    version=result.version, mountFile=str(result.mount_file),
                    env=list(result.env), tools=list(result.tools), replaced=result.replaced)
        return
    summary(f"Added {result.package} {result.version} as `{result.namespace}` "
            f"({result.mount_file.name}); the agent is built")
    if result.replaced:
        summary(f"  replaced: {result.replaced}")
    if result.tools:
        summary(f"  tools: {', '.join(result.tools)}")
    if result.env:
        summary("Set before running the agent: " + ", ".join(result.env))
