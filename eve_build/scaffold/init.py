"""`eve extension init NAME`: scaffold an extension package that builds and tests.

The core of the command, without printing: validate the name, render the
templates, write them through a staging folder, then (each optional) make the
first git commit, create `.venv` with the running eve-build and the package
installed editable, and build once. The CLI prints the returned `InitResult`.
"""

from __future__ import annotations

import os
import shlex
import shutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from eve_build._version import __version__
from eve_build.errors import EveBuildError
from eve_build.process import Runner, run_subprocess
from eve_build.scaffold.installer import locate_uv
from eve_build.scaffold.membership import join_workspace
from eve_build.scaffold.names import parse_extension_name
from eve_build.scaffold.placement import Placement, derive_placement
from eve_build.scaffold.render import derive_context, render_scaffold
from eve_build.scaffold.staging import write_scaffold_files
from eve_build.scaffold.steps import (
    TEST_EXTRA,
    StepReporter,
    commit_scaffold,
    install_environment,
    report_nothing,
)
from eve_build.toolchain import try_locate_checkout, try_locate_installed_wheel


@dataclass(frozen=True)
class InitResult:
    """What `init_extension` set up, for the CLI to report."""

    target: Path
    """The package folder, absolute."""
    files: list[str]
    """The scaffold files written, relative POSIX paths, sorted."""
    steps: list[str]
    """What was done, in order, as short lines."""
    next_steps: list[str]
    """Shell lines the user can run next."""


def init_extension(
    name: str,
    target: Path,
    *,
    install: bool = True,
    git: bool = True,
    force: bool = False,
    runner: Runner | None = None,
    report: StepReporter | None = None,
    uv: str | None = None,
) -> InitResult:
    """Scaffold the extension package `name` in `target`.

    Args:
        name: the distribution name, `acme-crm`.
        target: the package folder; created when missing.
        install: create `.venv` and install eve-build and the package into it.
        git: `git init` and commit the scaffold (when `git` is on PATH).
        force: write over same-named files in a non-empty `target`.
        runner: runs the git and pip commands; a real subprocess when None.
        report: told of each step as it starts and ends (`StepReporter`).
        uv: the uv executable to create the venv and install with; None: found on PATH
            for a real runner (venv + pip without it), never looked up for a given runner.

    Returns:
        The files written, the steps done and the next steps.

    Raises:
        UsageError: `name` cannot name an extension package.
        EveBuildError: `target` is not empty (without `force`), or a step failed.
        DiagnosticsError: the first build found problems.
    """
    parse_extension_name(name)
    run = runner or run_subprocess
    tell: StepReporter = report or report_nothing
    installer = uv if uv is not None or runner is not None else locate_uv()
    use_git = git and shutil.which("git") is not None
    placement = derive_placement(run, target, git=use_git)
    root = target.resolve()
    member = ("" if placement.workspace_root is None else
              root.relative_to(placement.workspace_root.resolve()).as_posix())
    files = render_scaffold(derive_context(name, authors=placement.authors,
                                          own_repository=placement.own_repository,
                                          member_path=member))
    written = write_scaffold_files(files, root, force=force)
    steps = set_up_scaffold(root, name, written, placement, what="package", source=True,
                            git=git, install=install, run=run, installer=installer, tell=tell,
                            build=build_scaffold, building="building the extension")
    return InitResult(
        target=root,
        files=written,
        steps=steps,
        next_steps=(derive_member_next_steps(placement.workspace_root, name, member)
                    if placement.workspace_root is not None
                    else derive_next_steps(target, installed=install)),
    )


def set_up_scaffold(root: Path, name: str, written: Sequence[object], placement: Placement, *,
                    what: str, source: bool, git: bool, install: bool, run: Runner,
                    installer: str | None, tell: StepReporter, build: Callable[[Path], str],
                    building: str) -> list[str]:
    """After the files are written (`eve extension init`, `eve init`): join the uv
    workspace, or `git init` and commit; install `.venv`; build once. The steps done."""
    steps = [f"wrote {len(written)} file{'' if len(written) == 1 else 's'}"]
    if placement.workspace_root is not None:
        steps += join_workspace(placement.workspace_root, root, name, source=source)
        steps.append(f"skipped `git init` and `.venv`: the {what} is a member of the uv "
                     f"workspace at `{placement.workspace_root}`")
        git = install = False
    if git and shutil.which("git") is not None:
        steps += commit_scaffold(run, root, f"Scaffold {name} with eve-build {__version__}",
                                 tell)
    elif git:
        steps.append("skipped `git init`: `git` is not on PATH")
    if install:
        steps += install_environment(run, root, name, uv=installer, report=tell)
    tell("start", building)
    try:
        steps.append(build(root))
    except EveBuildError:
        tell("failed", building)
        raise
    tell("done", building)
    return steps


def build_scaffold(root: Path) -> str:
    """Build the new package once, with the running eve-build; the step done."""
    # Imported here: the build pulls in the whole pipeline, which `init` may not need.
    from eve_build.extension.build import build_extension

    try:
        build_extension(root)
    except EveBuildError as exc:
        if not exc.hint:
            exc.hint = f"fix the problems above, then run `eve extension build` in `{root}`"
        raise
    return "built the extension (eve extension build)"


def derive_eve_build_source() -> str:
    """What `pip install` needs to get the running eve-build, for the next steps."""
    checkout = try_locate_checkout()
    if checkout is not None:
        return str(checkout)
    wheel = try_locate_installed_wheel()
    return str(wheel) if wheel is not None else f"eve-build=={__version__}"


def derive_next_steps(target: Path, *, installed: bool) -> list[str]:
    """Shell lines to run next: test and build, after setting up `.venv` if needed."""
    bin_dir = ".venv\\Scripts\\" if os.name == "nt" else ".venv/bin/"
    python = f"{bin_dir}python"
    lines = [] if target.resolve() == Path.cwd().resolve() else [f"cd {shlex.quote(str(target))}"]
    if not installed:
        lines += [
            "python -m venv .venv",
            f"{python} -m pip install {shlex.quote(derive_eve_build_source())}",
            f'{python} -m pip install --no-build-isolation -e ".[test]"',
        ]
    lines += [f"{python} -m pytest", f"{bin_dir}eve extension build"]
    return lines


def derive_member_next_steps(workspace_root: Path, name: str, member: str) -> list[str]:
    """A workspace member is installed, tested and built from the workspace root; its
    pytest comes with its `test` extra (`uv sync` installs no extras)."""
    lines = [] if workspace_root.resolve() == Path.cwd().resolve() else [
        f"cd {shlex.quote(str(workspace_root))}"]
    return [*lines, "uv sync --all-packages",
            f"uv run --package {name} --extra {TEST_EXTRA} pytest",
            f"uv run --package {name} eve extension build --path {shlex.quote(member)}"]
