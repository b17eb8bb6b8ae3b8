"""Locate the app root and its agent folder: where `eve build` runs and `.eve/` goes.

Three layouts:
- `agent/` in the app root (the usual one);
- flat: the app root itself is the agent folder (it has `instructions.md`, no `agent/`);
- a workspace with several agents under `agents/<name>/agent/`: `eve build --agent NAME`
  at the workspace root, or plain `eve build` inside `agents/NAME/`. Each such agent's
  app root is `agents/NAME/`, so each has its own `.eve/`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from eve_build import slots
from eve_build.diagnostics import Diagnostic, error
from eve_build.errors import UsageError
from eve_build.project.options import PYPROJECT

AGENT_DIRECTORY = "agent"
AGENTS_DIRECTORY = "agents"


@dataclass(frozen=True)
class App:
    """An agent app: `root` holds `.eve/`; `agent_dir` is the agent folder."""

    root: Path
    agent_dir: Path

    @property
    def flat(self) -> bool:
        return self.agent_dir == self.root

    @property
    def display(self) -> str:
        """How agent files are shown: `agent/tools/x.py`, or `tools/x.py` when flat."""
        return "" if self.flat else f"{AGENT_DIRECTORY}/"

    @property
    def agent_dir_name(self) -> str:
        """`CompiledAgent.agent_dir`: the agent folder relative to the app root."""
        return "." if self.flat else AGENT_DIRECTORY


def is_app_root(directory: Path) -> bool:
    return (directory / AGENT_DIRECTORY).is_dir() or (
        directory / slots.INSTRUCTIONS_MARKDOWN
    ).is_file()


def try_find_app_root(start: Path) -> Path | None:
    """The app root at or above `start`, like git finds its repository.

    The nearest folder holding `agent/` that is `start` itself, holds the `agent/` that
    `start` is inside, has a pyproject.toml beside it or is `agents/<name>/` of a
    workspace; else the nearest flat app (`instructions.md` and a pyproject.toml, or
    `start` itself). A folder named `agent/` is never an app root of its own, so running
    inside `agent/` never creates `agent/.eve/`. None at a workspace root with several
    agents, or when there is no app. An extension's source root (it has `extension.py`)
    is not a flat app.
    """
    for folder in (start, *start.parents):
        agent_dir = folder / AGENT_DIRECTORY
        if agent_dir.is_dir() and (
            folder == start or start.is_relative_to(agent_dir)
            or (folder / PYPROJECT).is_file() or folder.parent.name == AGENTS_DIRECTORY
        ):
            return folder
        if is_flat_app(folder) and (folder == start or (folder / PYPROJECT).is_file()):
            return folder
        if find_workspace_agents(folder):
            return None
    return None


def is_flat_app(folder: Path) -> bool:
    return ((folder / slots.INSTRUCTIONS_MARKDOWN).is_file() and folder.name != AGENT_DIRECTORY
            and not (folder / slots.EXTENSION_MODULE).is_file())


def find_workspace_agents(root: Path) -> list[str]:
    """The agent names under `agents/`, sorted."""
    folder = root / AGENTS_DIRECTORY
    if not folder.is_dir():
        return []
    return sorted(p.name for p in folder.iterdir()
                  if p.is_dir() and not p.name.startswith(".") and is_app_root(p))


def locate_app(start: Path, agent: str | None = None) -> tuple[App | None, list[Diagnostic]]:
    """The app to build from `start` (and `--agent`); raises UsageError for a wrong `--agent`."""
    start = start.resolve()
    if agent is not None:
        return _locate_named(start, agent), []
    found = try_find_app_root(start)
    if found is not None:
        folder = found / AGENT_DIRECTORY
        return App(root=found, agent_dir=folder if folder.is_dir() else found), []
    start = next((f for f in (start, *start.parents) if find_workspace_agents(f)), start)
    agents = find_workspace_agents(start)
    if agents:
        raise UsageError(
            f"`{start.name}` is a workspace with several agents ({_listed(agents)}): "
            "name one with `--agent NAME`",
            f"run `eve build --agent {agents[0]}` here, or plain `eve build` inside "
            f"`agents/{agents[0]}/`",
        )
    return None, [error(
        "agent/not-found", "",
        f"there is no agent in `{start}`: no `agent/` folder, no `instructions.md` and no "
        "`agents/<name>/`",
        "run `eve build` in the app root (the folder that holds `agent/`), or create "
        "`agent/instructions.md`",
    )]


def _locate_named(start: Path, agent: str) -> App:
    agents = find_workspace_agents(start)
    if agent not in agents:
        known = f"the agents here are {_listed(agents)}" if agents else \
            "there is no `agents/` folder with an agent here"
        raise UsageError(
            f"there is no agent `{agent}` in `{start / AGENTS_DIRECTORY}`: {known}",
            "run `eve build --agent NAME` at the workspace root with NAME one of the folders "
            "under `agents/`",
        )
    root = start / AGENTS_DIRECTORY / agent
    folder = root / AGENT_DIRECTORY
    return App(root=root, agent_dir=folder if folder.is_dir() else root)


def _listed(names: list[str]) -> str:
    return ", ".join(f"`{n}`" for n in names)


def derive_shown(path: Path, app_root: Path) -> str:
    """How messages name `path`: relative to the app root when inside it, else absolute."""
    try:
        return path.relative_to(app_root.resolve()).as_posix()
    except ValueError:
        return path.as_posix()
