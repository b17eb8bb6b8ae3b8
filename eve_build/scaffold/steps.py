"""The commands `eve extension init` runs after writing the files: git, venv, pip.

Every command goes through a `Runner`, `(argv, cwd) -> (returncode, output)`, so
tests can replace the subprocesses. A failing command raises an error that names
the step, shows the end of its output and says how to run it again by hand.
"""

from __future__ import annotations

import os
import shlex
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from eve_build._version import __version__
from eve_build.errors import EveBuildError
from eve_build.process import Runner, derive_output_tail
from eve_build.scaffold.toolchain import try_locate_checkout, write_installed_wheel

GIT_IDENTITY = (("user.name", "eve-build"), ("user.email", "eve-build@localhost"))
"""Used for the first commit only where the user has configured no identity."""


def run_step(runner: Runner, step: str, argv: Sequence[str], cwd: Path) -> str:
    """Run one command; its output on success.

    Raises:
        EveBuildError: the command failed; the message names `step` and ends with
            the command's last output lines.
    """
    code, output = runner(list(argv), cwd)
    if code != 0:
        # Paths inside `cwd` read better relative, as the user would type them.
        prefix = f"{cwd}{os.sep}"
        shown = [arg.removeprefix(prefix) for arg in argv]
        raise EveBuildError(
            f"{step} failed (exit code {code}); its last output:\n{derive_output_tail(output)}",
            hint=f"fix the cause, then run it by hand in `{cwd}`: `{shlex.join(shown)}`",
        )
    return output


def commit_scaffold(runner: Runner, target: Path, message: str) -> list[str]:
    """`git init` and a first commit of everything in `target`; the steps done.

    A target already inside a git work tree (a monorepo, or `--force` over a
    repository) is left to the user: committing there would commit their files too.
    """
    code, output = runner(["git", "rev-parse", "--is-inside-work-tree"], target)
    if code == 0 and output.strip() == "true":
        return ["skipped `git init`: the folder is already inside a git work tree"]
    run_step(runner, "`git init`", ["git", "init", "-q"], target)
    run_step(runner, "`git add`", ["git", "add", "-A"], target)
    identity: list[str] = []
    for key, value in GIT_IDENTITY:
        code, output = runner(["git", "config", key], target)
        if code != 0 or not output.strip():
            identity += ["-c", f"{key}={value}"]
    run_step(runner, "`git commit`", ["git", *identity, "commit", "-q", "-m", message], target)
    return ["git init", f"git commit: {message}"]


def derive_venv_python(target: Path) -> Path:
    """The interpreter of `target/.venv`."""
    if os.name == "nt":
        return target / ".venv" / "Scripts" / "python.exe"
    return target / ".venv" / "bin" / "python"


def install_environment(runner: Runner, target: Path, name: str) -> list[str]:
    """Create `target/.venv`, install the running eve-build, then the package editable.

    Returns:
        The steps done.
    """
    run_step(runner, "creating `.venv`", [sys.executable, "-m", "venv", ".venv"], target)
    python = str(derive_venv_python(target))
    checkout = try_locate_checkout()
    with tempfile.TemporaryDirectory(prefix="eve-build-wheel-") as scratch:
        if checkout is not None:
            source, origin = str(checkout), f"its source checkout `{checkout}`"
        else:
            source, origin = str(write_installed_wheel(Path(scratch))), "its installed files"
        run_step(
            runner, "installing eve-build", [python, "-m", "pip", "install", "-q", source], target
        )
    run_step(
        runner,
        f"installing `{name}`",
        [python, "-m", "pip", "install", "-q", "--no-build-isolation", "-e", ".[test]"],
        target,
    )
    return [
        "created .venv",
        f"installed eve-build {__version__} from {origin}",
        f"installed {name} editable, with its test extra",
    ]
