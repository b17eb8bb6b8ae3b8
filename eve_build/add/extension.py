"""`eve add`: the pipeline, in the order that keeps a mistake from changing anything.

    result = add_extension(Path("."), "dist/acme_crm-0.3.0-py3-none-any.whl", "crm")

find the app -> read the target's manifest (not an extension: stop) -> check the
namespace (invalid or taken: stop) -> derive the new pyproject text (invalid TOML:
stop) -> install (failed: stop) -> write pyproject.toml and
`agent/extensions/<ns>.py` -> build the agent. Only after the install succeeded is
anything in the project written.
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
from eve_build.add.mount_file import serialize_mount_file
from eve_build.add.namespace import find_namespace_problems
from eve_build.add.target import TITLE, derive_candidate
from eve_build.consumer.app import locate_app
from eve_build.consumer.build import replace_file
from eve_build.diagnostics import Diagnostic, error
from eve_build.errors import DiagnosticsError
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
    env: tuple[str, ...]  # variables to set before the agent loads
    tools: tuple[str, ...]  # the tools the mount adds, as the agent sees them
    command: tuple[str, ...]  # the install command that ran


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
        raise _fail("add/project-invalid", PYPROJECT, str(exc),
                    'write it as a list, e.g. `dependencies = ["acme-crm"]`; nothing was '
                    "changed") from None
    except Exception as exc:  # tomlkit's ParseError and friends: the user's TOML is wrong
        raise _fail("add/project-invalid", PYPROJECT, f"`{PYPROJECT}` cannot be edited: {exc}",
                    "fix its TOML syntax; nothing was changed") from None
    command = derive_install_command(environment, candidate.install)
    done = runner(command, app.root)
    if done.returncode != 0:
        last = "; ".join(line.strip() for line in done.stdout.strip().splitlines()[-3:])
        raise _fail("add/install-failed", target, f"installing `{target}` failed: "
                    f"{last or 'no output'}", "fix the cause above and run `eve add` again; "
                    "nothing was changed")
    if after != before:
        replace_file(pyproject, after.encode("utf-8"))
    mount = serialize_mount_file(manifest.package.import_name, namespace, manifest.config)
    replace_file(mount_file, mount.text.encode("utf-8"))
    _build(app.root, environment.python, runner)
    tools = tuple(f"{namespace}__{name}" for name in _tool_names(manifest.contributions))
    return AddResult(namespace, manifest.package.name, manifest.package.version, mount_file,
                     pyproject, mount.env, tools, tuple(command))


def _tool_names(contributions: dict[str, Any]) -> list[str]:
    return [str(t["name"]) for t in contributions.get("tools", [])
            if isinstance(t, dict) and "name" in t]


def _refuse_namespace(namespace: str, shown: str) -> None:
    raise _fail("add/namespace-invalid", shown, f"`{namespace[:40]}` cannot be a namespace: "
                f"{'; '.join(find_namespace_problems(namespace))}",
                "pick another with `--as NS`; nothing was changed")


def _build(app_root: Path, python: Path, runner: Runner) -> None:
    """`eve build` where the extension was installed: here, or in the project's venv."""
    if is_running_environment(python):
        from eve_build.consumer.build import build_agent

        importlib.invalidate_caches()
        build_agent(app_root)
        return
    done: subprocess.CompletedProcess[str] = runner(
        [str(python), "-m", "eve_build", "build", "--path", str(app_root)], app_root)
    if done.returncode != 0:
        raise _fail("add/build-failed", PYPROJECT, "the extension was added, but `eve build` "
                    f"failed:\n{done.stdout.strip()}", "fix what it says, then run `eve build`")


def _fail(code: str, file: str, message: str, hint: str) -> DiagnosticsError:
    found: list[Diagnostic] = [error(code, file, message, hint)]
    return DiagnosticsError(TITLE, found)
