"""`eve init NAME`: scaffold an agent project that builds, tests and runs offline.

The same machinery as `eve extension init` (`init.py`), one owner each: the name rules
(`names`), where it goes (`placement`, `membership`), the templates (`render`, from
`templates/agent/`), the all-or-nothing write (`staging`), git and `.venv` (`steps`).
What differs: the agent templates and pyproject, the model (`define_agent(model=...)`
from `EVE_MODEL` when set), a first `eve build` instead of `eve extension build`, and
the next steps (`eve add`, `eve chat --model test`). A bad name or target is a
Diagnostic (`init/...`), found before anything is written.
"""

from __future__ import annotations

import os
import shlex
import shutil
from collections.abc import Mapping
from pathlib import Path

from eve_build.diagnostics import error
from eve_build.errors import DiagnosticsError, EveBuildError, UsageError
from eve_build.process import Runner, run_subprocess
from eve_build.scaffold.init import InitResult, derive_eve_build_source, set_up_scaffold
from eve_build.scaffold.installer import locate_uv
from eve_build.scaffold.names import parse_extension_name
from eve_build.scaffold.placement import derive_placement
from eve_build.scaffold.render import AGENT_TEMPLATE, derive_context, render_scaffold
from eve_build.scaffold.staging import FORCE_HINT, check_target, write_scaffold_files
from eve_build.scaffold.steps import (
    TEST_EXTRA,
    StepReporter,
    report_nothing,
)

TITLE = "cannot create the agent project"
MODEL_VARIABLE = "EVE_MODEL"
"""Read once by `eve init`: its value becomes `define_agent(model=...)`."""
ADD_PLACEHOLDER = "PACKAGE_OR_PATH"
"""What the printed `eve add` line takes: a package name, a wheel or a folder."""


def check_agent_init(name: str, target: Path, *, force: bool = False) -> None:
    """Raise the Diagnostic of a bad `name` (exit 2) or `target` (exit 1); writes nothing.

    The CLI calls it before printing anything; `init_agent` calls it again, first.
    """
    try:
        parse_extension_name(name, "agent project")
    except UsageError as exc:
        failure = DiagnosticsError(TITLE, [error("init/name-invalid", name, exc.message,
                                                 exc.hint)])
        failure.exit_code = UsageError.exit_code
        raise failure from None
    try:
        check_target(target, force=force)
    except EveBuildError as exc:
        code = "init/target-not-empty" if exc.hint == FORCE_HINT else "init/target-not-a-folder"
        hint = (f"choose another folder (`--dir`), or {exc.hint}; nothing was written"
                if code == "init/target-not-empty" else f"{exc.hint}; nothing was written")
        raise DiagnosticsError(TITLE, [error(code, str(target), exc.message, hint)]) from None


def read_model(environ: Mapping[str, str] | None = None) -> str:
    """The model for `define_agent(model=...)`: `EVE_MODEL` when set, else empty."""
    return (environ if environ is not None else os.environ).get(MODEL_VARIABLE, "").strip()


def init_agent(
    name: str,
    target: Path,
    *,
    install: bool = True,
    git: bool = True,
    force: bool = False,
    model: str | None = None,
    runner: Runner | None = None,
    report: StepReporter | None = None,
    uv: str | None = None,
) -> InitResult:
    """Scaffold the agent project `name` in `target`, as `init_extension` does a package.

    Args:
        model: the agent's model; None reads `EVE_MODEL` (empty: the line stays commented).
        The rest: as `init_extension`.

    Raises:
        DiagnosticsError: a bad name (`init/name-invalid`, exit 2), a non-empty target
            (`init/target-not-empty`) or one in the way (`init/target-not-a-folder`),
            or the first build found problems.
        EveBuildError: a step (git, the install) failed.
    """
    check_agent_init(name, target, force=force)
    run = runner or run_subprocess
    tell: StepReporter = report or report_nothing
    installer = uv if uv is not None or runner is not None else locate_uv()
    use_git = git and shutil.which("git") is not None
    placement = derive_placement(run, target, git=use_git)
    root = target.resolve()
    member = ("" if placement.workspace_root is None else
              root.relative_to(placement.workspace_root.resolve()).as_posix())
    context = derive_context(name, authors=placement.authors,
                             own_repository=placement.own_repository, member_path=member,
                             model=read_model() if model is None else model)
    files = render_scaffold(context, kind=AGENT_TEMPLATE)
    try:
        written = write_scaffold_files(files, root, force=force)
    except EveBuildError as exc:  # something in the way, found before anything moved
        raise DiagnosticsError(TITLE, [error("init/target-not-a-folder", str(target),
                                             exc.message, exc.hint)]) from None
    steps = set_up_scaffold(root, name, written, placement, what="project", source=False,
                            git=git, install=install, run=run, installer=installer, tell=tell,
                            build=build_agent_scaffold, building="building the agent")
    return InitResult(
        target=root,
        files=written,
        steps=steps,
        next_steps=(derive_member_next_steps(placement.workspace_root, name, member)
                    if placement.workspace_root is not None
                    else derive_next_steps(target, installed=install)),
    )


def build_agent_scaffold(root: Path) -> str:
    """`eve build` once, with the running eve-build; the step done."""
    # Imported here: the build pulls in the whole pipeline, which `init` may not need.
    from eve_build.consumer.build import build_agent

    try:
        build_agent(root)
    except EveBuildError as exc:
        if not exc.hint:
            exc.hint = f"fix the problems above, then run `eve build` in `{root}`"
        raise
    return "built the agent (eve build)"


def derive_next_steps(target: Path, *, installed: bool) -> list[str]:
    """Shell lines to run next, each passing as printed (`PACKAGE_OR_PATH` filled in)."""
    bin_dir = ".venv\\Scripts\\" if os.name == "nt" else ".venv/bin/"
    python = f"{bin_dir}python"
    lines = [] if target.resolve() == Path.cwd().resolve() else [f"cd {shlex.quote(str(target))}"]
    if not installed:
        source = derive_eve_build_source()
        lines += [
            "python -m venv .venv",
            f"{python} -m pip install {shlex.quote(source)}",
            f'{python} -m pip install --no-build-isolation -e ".[{TEST_EXTRA}]"',
        ]
    return [*lines, f"{python} -m pytest", f"{bin_dir}eve add {ADD_PLACEHOLDER}",
            f"{bin_dir}eve chat --model test"]


def derive_member_next_steps(workspace_root: Path, name: str, member: str) -> list[str]:
    """A workspace member is installed, tested and run from the workspace root."""
    lines = [] if workspace_root.resolve() == Path.cwd().resolve() else [
        f"cd {shlex.quote(str(workspace_root))}"]
    path = shlex.quote(member)
    return [*lines, "uv sync --all-packages",
            f"uv run --package {name} --extra {TEST_EXTRA} pytest {path}",
            f"uv run --package {name} eve add {ADD_PLACEHOLDER} --path {path}",
            f"uv run --package {name} eve chat --model test --path {path}"]

