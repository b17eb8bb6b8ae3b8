"""`eve add`: the pipeline, in the order that keeps a mistake from changing anything.

    result = add_extension(Path("."), "dist/acme_crm-0.3.0-py3-none-any.whl", "crm")

find the app -> read the target's manifest (not an extension: stop) -> check the
namespace (invalid or taken: stop) -> derive the new pyproject text (invalid TOML:
stop) -> check the rest of the agent's pyproject (`project.agent_pyproject`: a field of
the wrong type, a bad requirement: stop) -> install (failed: stop) -> write pyproject.toml and
`agent/extensions/<ns>.py` -> build the agent. Only after the install succeeded is
anything in the project written, and it is all or nothing: when the install, a write
or the build fails (or Ctrl-C), the two files and the extension's installation in the
environment are put back as they were (`snapshot.py`).
"""

from __future__ import annotations

import importlib
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from eve_build.add.dependencies import DependenciesNotListError, derive_pyproject_text
from eve_build.add.installer import (
    Runner,
    derive_install_command,
    is_running_environment,
    locate_environment,
    run_command,
)
from eve_build.add.mount_file import find_connection_variables, serialize_mount_file
from eve_build.add.namespace import find_namespace_problems
from eve_build.add.snapshot import Snapshot, all_or_nothing
from eve_build.add.target import TITLE, Candidate, derive_candidate, describe_install_failure
from eve_build.consumer.build import replace_file
from eve_build.diagnostics import Diagnostic, error, locate_toml_error
from eve_build.errors import DiagnosticsError
from eve_build.project.agent_pyproject import read_agent_pyproject
from eve_build.project.app import locate_app
from eve_build.project.pyproject import PYPROJECT
from eve_build.slots import MOUNTS_DIRECTORY
from eve_build.userfile import read_user_text


@dataclass(frozen=True)
class AddResult:
    namespace: str
    package: str
    version: str
    mount_file: Path
    pyproject: Path
    env: tuple[str, ...]  # variables to set before the agent loads (config, connections)
    tools: tuple[str, ...]  # the tools the mount adds, as the agent sees them
    command: tuple[str, ...]  # the install command that ran
    replaced: str | None = None  # the installation it replaced, described


def add_extension(start: Path, target: str, namespace: str | None = None, *,
                  runner: Runner = run_command) -> AddResult:
    """Install `target`, mount it as `namespace` and build; raises DiagnosticsError."""
    app, found = locate_app(start)
    if app is None:
        raise DiagnosticsError(TITLE, found)
    pyproject = app.root / PYPROJECT
    if not pyproject.is_file():
        raise _fail("add/project-invalid", PYPROJECT, f"there is no `{PYPROJECT}` in "
                    f"`{app.root}`", "create the agent project's pyproject.toml first")
    mount_dir = app.agent_dir / MOUNTS_DIRECTORY
    if namespace is not None and find_namespace_problems(namespace):  # before anything else
        _refuse_namespace(namespace, f"{app.display}{MOUNTS_DIRECTORY}/{namespace[:40]}.py")
    environment = locate_environment(app.root)
    candidate = derive_candidate(target, app.root, environment, runner)
    manifest = candidate.manifest
    namespace = namespace or manifest.package.import_name
    mount_file = mount_dir / f"{namespace}.py"
    shown = f"{app.display}{MOUNTS_DIRECTORY}/{namespace}.py"
    problems = find_namespace_problems(namespace, _tool_names(manifest.contributions))
    if problems:
        raise _fail("add/namespace-invalid", shown, f"`{namespace}` cannot be a namespace: "
                    f"{'; '.join(problems)}", "pick another with `--as NS`; nothing was changed")
    if mount_file.exists() or (mount_dir / namespace).exists():
        raise _fail("add/namespace-taken", shown, f"the namespace `{namespace}` is taken: "
                    f"`{shown}` (or its directory mount) already exists",
                    "pick another with `--as NS`; nothing was changed")
    before = read_user_text(pyproject, what="pyproject")
    try:
        after = derive_pyproject_text(before, candidate.requirement,
                                      uv_source=candidate.uv_source)
    except DependenciesNotListError as exc:
        fix = ("write it as a table: a `[project]` line with `name`, `version` and "
               "`dependencies` below it" if str(exc).startswith("`project`") else
               'write it as a list, e.g. `dependencies = ["acme-crm"]`')
        raise _fail("add/project-invalid", PYPROJECT, str(exc),
                    f"{fix}; nothing was changed") from None
    except Exception as exc:  # tomlkit's ParseError and friends: the user's TOML is wrong
        raise _fail("add/project-invalid", PYPROJECT, f"`{PYPROJECT}` cannot be edited: {exc}",
                    "fix its TOML syntax; nothing was changed",
                    line=locate_toml_error(exc, before)) from None
    _, wrong = read_agent_pyproject(app.root)  # `name = 3`, a bad requirement, ...
    if wrong:  # what the build after the install would refuse: refused before it
        raise DiagnosticsError(TITLE, wrong)
    command = derive_install_command(environment, candidate.install)
    name = manifest.package.name
    with all_or_nothing([pyproject, mount_file], environment, name, runner) as snapshot:
        done = runner(command, app.root)
        if done.returncode != 0:
            raise _fail("add/install-failed", target, f"installing `{target}` failed: "
                        f"{describe_install_failure(done.stdout)}", "fix the cause above and "
                        "run `eve add` again; nothing was changed")
        mount = serialize_mount_file(manifest.package.import_name, namespace, manifest.config)
        for path, data in ((pyproject, after if after != before else None),
                           (mount_file, mount.text)):
            if data is not None:
                _write(path, data, app.root)
        _build(app.root, environment.python, runner)
    tools = tuple(f"{namespace}__{name}" for name in _tool_names(manifest.contributions))
    env = (*mount.env, *find_connection_variables(manifest.contributions, mount.env))
    return AddResult(namespace, name, manifest.package.version, mount_file, pyproject,
                     env, tools, tuple(command), _replaced(snapshot, candidate))


def _write(path: Path, text: str, root: Path) -> None:
    """Write a file of the add; a failure (an immutable or read-only file, a full disk)
    is add/write-failed, and all_or_nothing then puts back what was done."""
    try:
        replace_file(path, text.encode("utf-8"))
    except OSError as exc:
        shown = path.relative_to(root).as_posix() if path.is_relative_to(root) else str(path)
        raise _fail("add/write-failed", shown, f"`{shown}` cannot be written: "
                    f"{exc.strerror or exc}", "make it writable (`lsattr`/`chattr -i` for an "
                    "immutable file) and run `eve add` again; the install was undone") from None


def _replaced(snapshot: Snapshot, candidate: Candidate) -> str | None:
    """What the install replaced, when it came from elsewhere (a wheel, an index, a folder)."""
    was = snapshot.installed
    if was is None:
        return None
    url = str((was.origin or {}).get("url", ""))
    if was.origin is None and "@" not in candidate.requirement and candidate.uv_source is None:
        return None  # from an index before and now
    if url and url in {Path(a).resolve().as_uri() for a in candidate.install if "/" in a}:
        return None  # the same wheel or folder again
    return was.describe()


def _tool_names(contributions: dict[str, Any]) -> list[str]:
    return [str(t["name"]) for t in contributions.get("tools", [])
            if isinstance(t, dict) and "name" in t]


def _refuse_namespace(namespace: str, shown: str) -> None:
    raise _fail("add/namespace-invalid", shown, f"`{namespace[:40]}` cannot be a namespace: "
                f"{'; '.join(find_namespace_problems(namespace))}",
                "pick another with `--as NS`; nothing was changed")


def _build(app_root: Path, python: Path, runner: Runner) -> None:
    """`eve build` where the extension was installed: here, or in the project's venv."""
    undone = ("the mount file, pyproject.toml and the environment are as before `eve add`; "
              "fix what it says, then run `eve add` again")
    if is_running_environment(python):
        from eve_build.consumer.build import build_agent

        importlib.invalidate_caches()
        try:
            build_agent(app_root)
        except DiagnosticsError as exc:
            raise DiagnosticsError(TITLE, [*exc.diagnostics, error(
                "add/build-failed", PYPROJECT, "the agent does not build with the extension "
                "mounted, so adding it was undone", undone)]) from None
        return
    done: subprocess.CompletedProcess[str] = runner(
        [str(python), "-m", "eve_build", "build", "--path", str(app_root)], app_root)
    if done.returncode != 0:
        raise _fail("add/build-failed", PYPROJECT, "the agent does not build with the "
                    f"extension mounted, so adding it was undone:\n{done.stdout.strip()}",
                    undone)


def _fail(code: str, file: str, message: str, hint: str, *,
          line: int | None = None) -> DiagnosticsError:
    found: list[Diagnostic] = [error(code, file, message, hint, line=line)]
    return DiagnosticsError(TITLE, found)
