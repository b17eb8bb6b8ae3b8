"""`eve extension init`, `eve extension build` and `eve extension pack`."""

from __future__ import annotations

from pathlib import Path

import typer

from eve_build.cli.conventions import (
    DIR_OPTION,
    FORCE_OPTION,
    JSON_OPTION,
    NO_GIT_OPTION,
    NO_INSTALL_OPTION,
    path_option,
)
from eve_build.cli.output import (
    detail,
    emit_result,
    note,
    render_diagnostics,
    run_core,
    summary,
)
from eve_build.cli.summaries import counted, describe_extension_built
from eve_build.cli.summaries import shown_path as _shown

app = typer.Typer(help="Author eve extensions: scaffold, build and pack.",
                  no_args_is_help=True)


def _check_name(name: str) -> str:
    """A bad NAME is a usage error (exit 2) before anything is printed or created."""
    from eve_build.errors import UsageError
    from eve_build.scaffold.names import parse_extension_name

    try:
        parse_extension_name(name)
    except UsageError as exc:
        raise typer.BadParameter(f"{exc.message}" + (f" ({exc.hint})" if exc.hint else "")
                                 ) from None
    return name


@app.command("init")
def init(
    name: str = typer.Argument(..., help="The distribution name, e.g. acme-crm.",
                               callback=_check_name),
    directory: Path | None = DIR_OPTION,
    no_install: bool = NO_INSTALL_OPTION,
    no_git: bool = NO_GIT_OPTION,
    force: bool = FORCE_OPTION,
    json_output: bool = JSON_OPTION,
) -> None:
    """Scaffold an extension package whose own tests pass out of the box."""
    from eve_build.cli.steps import make_step_printer, print_created
    from eve_build.scaffold.init import init_extension
    from eve_build.scaffold.staging import check_target

    target = directory if directory is not None else Path(name)
    run_core(lambda: check_target(target, force=force), json_output=json_output)
    if not json_output:  # only once the target is known to be usable
        note(f"Creating {name} in {_shown(target)}...")
    report = make_step_printer()
    result = run_core(lambda: init_extension(
        name, target, install=not no_install, git=not no_git, force=force, report=report
    ), json_output=json_output)
    print_created(result, json_output=json_output, what=name, fields={"package": name})


@app.command("build")
def build(
    path: Path = path_option("The extension package root."),
    json_output: bool = JSON_OPTION,
    no_cache: bool = typer.Option(False, "--no-cache", help="Import every module; neither "
                                  "read nor write the build cache."),
) -> None:
    """Build the extension into its output folder (default build/eve/), atomically."""
    from eve_build.extension.build import build_extension

    result = run_core(lambda: build_extension(path, use_cache=not no_cache),
                      json_output=json_output)
    render_diagnostics(result.warnings)
    if json_output:
        emit_result("built", result.warnings, package=result.project.name,
                    version=result.project.version, output=str(result.package_dir),
                    requires=result.requires, files=list(result.files))
        return
    for written in result.files:
        detail(f"  wrote {written}")
    summary(describe_extension_built(result))


@app.command("pack")
def pack(
    path: Path = path_option("The extension package root."),
    outdir: Path | None = typer.Option(None, "--outdir", help="Where the sdist and wheel go "
                                       "(default: PATH/dist)."),
    no_isolation: bool = typer.Option(False, "--no-isolation", help="Build with this "
                                      "environment's packages (`python -m build --no-isolation`)."),
    json_output: bool = JSON_OPTION,
) -> None:
    """Build the sdist and wheel with `python -m build` and summarise the wheel."""
    from eve_build.hatch.pack import pack_extension

    if not json_output:
        note(f"Packing `{path.resolve().name}` with `python -m build`...")
    result = run_core(lambda: pack_extension(path, outdir=outdir, isolation=not no_isolation),
                      json_output=json_output)
    wheel, manifest = result.wheel, result.wheel.manifest
    requires = ", ".join(f"{name} {version}" for name, version in manifest.requires.items())
    externals = ", ".join(manifest.build.external_dependencies) or "none"
    if json_output:
        emit_result("packed", result.build.warnings, wheel=str(wheel.path),
                    sdist=str(result.sdist) if result.sdist else None, files=wheel.files,
                    package=wheel.import_package, packageFiles=wheel.package_files,
                    requires=manifest.requires,
                    externalDependencies=manifest.build.external_dependencies)
        return
    summary(f"Built {_shown(wheel.path)} ({counted(wheel.files, 'file')})")
    if result.sdist is not None:
        summary(f"  sdist: {_shown(result.sdist)}")
    summary(f"  import package: {wheel.import_package} "
            f"({counted(wheel.package_files, 'file')})")
    summary(f"  manifest requires: {requires}")
    summary(f"  external dependencies: {externals}")
