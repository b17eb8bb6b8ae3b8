"""Whose state it is in a shared store: the one answer every caller asks for.

    scope = served_scope(store, root)    # project/demo-agent, or EVE_STATE_SCOPE

A served agent keeps its `define_state` values under its scope, its local extensions'
entries under `<scope>#local`, and its schedule runs' claims under its scope, in a store
that many agents may share (one PostgreSQL). The scope names the project, so two
projects never share by accident:

- `EVE_STATE_SCOPE`, when set, is the scope (replicas of one agent set the same);
- else `project/<name>`: `[project] name` of the app root's pyproject.toml
  (normalized like a distribution name: `Demo_Agent` is `demo-agent`);
- else, for `agents/<NAME>/` of a workspace, `project/<workspace>/agents/<NAME>`
  (`<workspace>` is the workspace's `[project] name`, else its folder name);
- else `project/<app folder name>`.

Earlier versions used `serve/<agent folder>`, which is `serve/agent` in every project.
A store that holds state or runs under that legacy scope is ADOPTED by the first agent
that opens it without EVE_STATE_SCOPE: its rows move to that agent's scope, and the
store records which project adopted it (state scope `eve/adopted-scopes`). Any other
project opening the store is then refused (`session/scope-adopted`, naming both) until
it sets EVE_STATE_SCOPE, so that no agent silently starts from another's state or
silently loses its own.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path

from eve_build.errors import DiagnosticsError
from eve_build.project.agent_pyproject import read_agent_pyproject
from eve_build.project.app import AGENTS_DIRECTORY, try_find_app_root
from eve_build.runtime.loader import read_compiled_agent
from eve_build.session.problems import scope_adopted
from eve_build.session.store import SessionStore

SCOPE_ENV = "EVE_STATE_SCOPE"
"""Names the served agent's scope in the store explicitly (replicas set the same)."""
PREFIX = "project/"
LOCAL_SUFFIX = "#local"
"""The scope of local extensions' entries: `<scope>#local`."""
LEGACY_PREFIX = "serve/"
PYPROJECT = "pyproject.toml"


def locate_app_root(root: Path) -> Path:
    """The app root at or above `root`, where `.eve/` is."""
    return try_find_app_root(root.resolve()) or root.resolve()


def project_identity(app_root: Path) -> str:
    """What names the project of the agent app at `app_root` (see the module text)."""
    name = _project_name(app_root)
    if name is not None:
        return name
    if app_root.parent.name == AGENTS_DIRECTORY:
        workspace = app_root.parent.parent
        return f"{_project_name(workspace) or workspace.name}/{AGENTS_DIRECTORY}/{app_root.name}"
    return app_root.name


def derive_scope(app_root: Path, environ: Mapping[str, str] | None = None) -> str:
    """EVE_STATE_SCOPE, else `project/<identity>` (the same on every replica)."""
    env = os.environ if environ is None else environ
    given = env.get(SCOPE_ENV, "").strip()
    return given or f"{PREFIX}{project_identity(app_root)}"


def served_scope(store: SessionStore, root: Path, environ: Mapping[str, str] | None = None,
                 *, adopt: bool = True) -> str:
    """The scope of the served agent of `root` in `store` (raises DiagnosticsError).

    Without EVE_STATE_SCOPE, the legacy scope `serve/<agent folder>` is adopted (its rows
    moved, the adoption recorded) when it holds anything; `adopt` False only reads (a
    listing): an unadopted legacy scope is then the answer as it is. A legacy scope
    adopted by another project is refused."""
    env = os.environ if environ is None else environ
    app_root = locate_app_root(root)
    if env.get(SCOPE_ENV, "").strip():
        return derive_scope(app_root, env)
    project = project_identity(app_root)
    scope = f"{PREFIX}{project}"
    legacy = f"{LEGACY_PREFIX}{read_compiled_agent(root).agent_dir}"
    owner = store.adopt_legacy_scope(legacy, scope, project, suffixes=(LOCAL_SUFFIX,),
                                     write=adopt)
    if owner is None:
        return scope
    if owner.project != project:
        raise scope_adopted(legacy, owner.project, owner.scope, project, scope, SCOPE_ENV)
    return owner.scope


def _project_name(folder: Path) -> str | None:
    """`[project] name` of `folder/pyproject.toml`, normalized; None without one. A file
    that does not parse, or whose fields have the wrong types, is refused
    (`project.agent_pyproject`, the one reader of the agent's pyproject)."""
    data, problems = read_agent_pyproject(folder, shown=str(folder / PYPROJECT))
    if problems:
        raise DiagnosticsError("cannot name the served agent's state", problems)
    project = (data or {}).get("project")
    name = project.get("name") if isinstance(project, dict) else None
    if not isinstance(name, str) or not name.strip():
        return None
    return re.sub(r"[-_.]+", "-", name.strip()).lower()
