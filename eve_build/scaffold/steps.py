"""The commands `eve extension init` runs after writing the files: git, venv, install.

Every command goes through a `Runner`, `(argv, cwd) -> (returncode, output)`, so
tests can replace the subprocesses. Each step is announced to a `StepReporter` as it
starts and ends (the CLI streams them). A failing command raises an error that names
the step, quotes the installer's first error line, shows the end of its output and
says how to run it again by hand. The venv and installs use uv when it is on PATH
(much faster), venv + pip otherwise (`eve_build.scaffold.installer`); with pip,
eve-build's dependencies come re-packed from this environment when they can
(`eve_build.scaffold.wheelhouse`), see `derive_install_commands`.
"""

from __future__ import annotations

import os
import re
import shlex
import tempfile
import tomllib
from collections.abc import Callable, Sequence
from pathlib import Path

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name

from eve_build._version import __version__
from eve_build.errors import EveBuildError
from eve_build.process import Runner, derive_output_tail
from eve_build.scaffold.installer import Installer, can_install_from_outside, derive_installer
from eve_build.scaffold.wheelhouse import write_dependency_wheels
from eve_build.toolchain import try_locate_checkout, write_installed_wheel

TEST_EXTRA = "test"
GIT_IDENTITY = (("user.name", "eve-build"), ("user.email", "eve-build@localhost"))
"""Used for the first commit only where the user has configured no identity."""

StepReporter = Callable[[str, str], None]
"""(event, step) with event `start`, `done` or `failed`: a step as it happens."""
_ERROR_LINE = re.compile(r"^\s*(?:(?:error|fatal)\b|\u00d7)", re.IGNORECASE)  # \u00d7: uv


def report_nothing(event: str, step: str) -> None:
    del event, step


def find_first_error_line(output: str) -> str | None:
    """The first line of an installer's output that reports an error, if any."""
    for line in output.splitlines():
        if _ERROR_LINE.match(line):
            return line.strip()
    return None


def run_step(runner: Runner, step: str, argv: Sequence[str], cwd: Path,
             report: StepReporter = report_nothing) -> str:
    """Run one command, reporting its start and end; its output on success.

    Raises:
        EveBuildError: the command failed; the message names `step`, quotes its first
            error line and ends with the command's last output lines.
    """
    report("start", step)
    code, output = runner(list(argv), cwd)
    if code != 0:
        report("failed", step)
        # Paths inside `cwd` read better relative, as the user would type them.
        prefix = f"{cwd}{os.sep}"
        shown = [arg.removeprefix(prefix) for arg in argv]
        first = find_first_error_line(output)
        reason = f": {first}" if first else ""
        raise EveBuildError(
            f"{step} failed (exit code {code}){reason}; its last output:\n"
            f"{derive_output_tail(output)}",
            hint=f"fix the cause, then run it by hand in `{cwd}`: `{shlex.join(shown)}`",
        )
    report("done", step)
    return output


def commit_scaffold(runner: Runner, target: Path, message: str,
                    report: StepReporter = report_nothing) -> list[str]:
    """`git init` and a first commit of everything in `target`; the steps done.

    A target already inside a git work tree (a monorepo, or `--force` over a
    repository) is left to the user: committing there would commit their files too.
    """
    code, output = runner(["git", "rev-parse", "--is-inside-work-tree"], target)
    if code == 0 and output.strip() == "true":
        return ["skipped `git init`: the folder is already inside a git work tree"]
    run_step(runner, "`git init`", ["git", "init", "-q"], target, report)
    run_step(runner, "`git add`", ["git", "add", "-A"], target, report)
    identity: list[str] = []
    for key, value in GIT_IDENTITY:
        code, output = runner(["git", "config", key], target)
        if code != 0 or not output.strip():
            identity += ["-c", f"{key}={value}"]
    run_step(runner, "`git commit`", ["git", *identity, "commit", "-q", "-m", message], target,
             report)
    return ["git init", f"git commit: {message}"]


def derive_venv_python(target: Path) -> Path:
    """The interpreter of `target/.venv`."""
    if os.name == "nt":
        return target / ".venv" / "Scripts" / "python.exe"
    return target / ".venv" / "bin" / "python"


def derive_scaffold_requirements(target: Path, name: str) -> list[str]:
    """The package's dependencies and its `test` extra, from `target/pyproject.toml`.

    They go into the install of eve-build, so that pip resolves once and the editable
    install of the package itself needs `--no-deps` only.
    """
    try:
        data = tomllib.loads((target / "pyproject.toml").read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise EveBuildError(f"cannot read `{target / 'pyproject.toml'}`: {exc}") from exc
    project = data.get("project", {})
    listed = [*project.get("dependencies", []),
              *project.get("optional-dependencies", {}).get(TEST_EXTRA, [])]
    own = canonicalize_name(name)
    return [item for item in listed if _names_other_than(item, own)]


def _names_other_than(requirement: str, own: str) -> bool:
    try:
        return canonicalize_name(Requirement(requirement).name) != own
    except InvalidRequirement:
        return True  # the installer reports it, with its own words


def derive_install_commands(installer: Installer, source: str, requirements: list[str],
                            wheelhouse: Path | None) -> tuple[list[str], list[str]]:
    """The two installs: eve-build (wheel `source`), then the package editable.

    With a `wheelhouse` (eve-build's dependencies re-packed from this environment) the
    first install uses no index, and the second resolves the package's own requirements
    (its `test` extra: pytest) on the index. Without one, the package's requirements
    join the first install, so the index is resolved once, and the second is `--no-deps`.
    """
    if wheelhouse is None:
        return ([*installer.install, *installer.own_pip, source, *requirements],
                [*installer.install, "--no-deps", "--no-build-isolation", "-e", "."])
    local = [item for item in installer.own_pip if item.endswith(".whl")]
    named = [item for item in installer.own_pip if not item.endswith(".whl")]
    return ([*installer.install, "--no-index", "--find-links", str(wheelhouse), *local, source],
            [*installer.install, *named, "--no-build-isolation", "-e", f".[{TEST_EXTRA}]"])


def install_environment(runner: Runner, target: Path, name: str, *,
                        uv: str | None = None, outside: bool | None = None,
                        report: StepReporter = report_nothing) -> list[str]:
    """Create `target/.venv`, install the running eve-build with the package's
    requirements, then the package editable: with `uv` when given (see `locate_uv`),
    else venv + pip (see `eve_build.scaffold.installer`).

    Args:
        outside: install with the running environment's pip into a venv created
            without one; None: when that pip can (`can_install_from_outside`).

    Returns:
        The steps done.
    """
    python = derive_venv_python(target)
    installer = derive_installer(
        python, uv=uv, outside=can_install_from_outside() if outside is None else outside)
    tool = installer.label
    run_step(runner, f"creating `.venv`{tool}", installer.create, target, report)
    requirements = derive_scaffold_requirements(target, name)
    checkout = try_locate_checkout()
    with tempfile.TemporaryDirectory(prefix="eve-build-wheel-") as scratch:
        if checkout is not None:
            from eve_build.hatch.checkout import build_checkout_wheel

            source = str(build_checkout_wheel(checkout, Path(scratch)))
            origin = f"its source checkout `{checkout}`"
        else:
            source, origin = str(write_installed_wheel(Path(scratch))), "its installed files"
        wheelhouse = Path(scratch) / "dependencies"
        wheelhouse.mkdir()
        # uv resolves in a fraction of a second; pip takes 10 s (see `wheelhouse`)
        repacked = write_dependency_wheels(wheelhouse) if uv is None else None
        first, second = derive_install_commands(
            installer, source, requirements, wheelhouse if repacked is not None else None)
        run_step(runner, f"installing eve-build{tool}", first, target, report)
    run_step(runner, f"installing `{name}`{tool}", second, target, report)
    return [
        f"created .venv{tool}",
        f"installed eve-build {__version__} from {origin}",
        f"installed {name} editable, with its test extra",
    ]
