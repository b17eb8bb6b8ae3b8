"""`eve extension init` and `eve extension build`."""

from __future__ import annotations

from pathlib import Path

import typer

from eve_build.cli.output import echo, echo_err, emit_json, render_diagnostics, run_core

app = typer.Typer(help="Author eve extensions: scaffold, build and pack.",
                  no_args_is_help=True)


@app.command("build")
def build(
    path: Path = typer.Option(Path("."), "--path", help="The extension package root."),
    json_output: bool = typer.Option(False, "--json", help="Print the result as JSON."),
) -> None:
    """Build the extension into its output folder (default build/eve/), atomically."""
    from eve_build.extension_build import build_extension

    result = run_core(lambda: build_extension(path), json_output=json_output)
    render_diagnostics(result.warnings)
    if json_output:
        emit_json({
            "status": "built",
            "package": result.project.name,
            "output": str(result.package_dir),
            "requires": result.manifest.requires,
            "files": list(result.files),
            "diagnostics": [d.to_json() for d in result.warnings],
        })
        return
    tools = len(result.manifest.contributions.get("tools", []))
    echo(f"Built {result.project.name} {result.project.version} into "
         f"{_shown(result.package_dir)} ({len(result.files)} files, {tools} "
         f"tool{'' if tools == 1 else 's'})")


@app.command("init")
def init(
    name: str = typer.Argument(..., help="The distribution name, e.g. acme-crm."),
    directory: Path | None = typer.Option(None, "--dir", help="Where to create it "
                                          "(default: ./NAME)."),
    no_install: bool = typer.Option(False, "--no-install", help="Skip the venv and install."),
    no_git: bool = typer.Option(False, "--no-git", help="Skip git init and the first commit."),
    force: bool = typer.Option(False, "--force", help="Write into a non-empty directory."),
) -> None:
    """Scaffold an extension package whose own tests pass out of the box."""
    from eve_build.scaffold.init import init_extension

    target = directory if directory is not None else Path(name)
    echo_err(f"Creating {name} in {_shown(target)}...")
    result = run_core(lambda: init_extension(
        name, target, install=not no_install, git=not no_git, force=force
    ))
    echo(f"Created {name} in {_shown(result.target)}")
    for step in result.steps:
        echo(f"  - {step}")
    echo("\nNext steps:")
    for line in result.next_steps:
        echo(f"  {line}")


def _shown(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(Path.cwd()))
    except ValueError:
        return str(path)
