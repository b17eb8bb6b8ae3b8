"""`eve dev`: build, then rebuild on every change, keeping the last good generation.

Each round calls the same `build_agent` as `eve build`. Workspace extensions whose
sources did not change are up to date and skipped, so a change rebuilds only the
affected extension. Extension builds and `.eve/compile/` are both published
atomically, so a round that fails leaves the previous good generation in place.
Watching is a seam (`watch`), so tests drive rounds with explicit change sets.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from eve_build.diagnostics import Diagnostic
from eve_build.errors import DiagnosticsError, UsageError

if TYPE_CHECKING:
    import watchfiles

    from eve_build.formats.compiled import CompiledAgent

OUTPUT_FOLDERS = frozenset({"build", "dist", ".eve"})
"""Ignored only at the top of a watched root (app or member): `agent/tools/build/x.py`
is a source. Everything else that is not a source (editor swap and temporary files,
`__pycache__`, `.git`, `.venv`, tool caches) is watchfiles' own `DefaultFilter`."""
EXTRA_IGNORED_DIRS = (".ruff_cache",)
EXTRA_IGNORED_ENTITIES = (
    r"^#.*#$",             # emacs auto-save (`#search.py#`; `.#search.py` is watchfiles')
    r"^4913$",             # vim's probe that the folder is writable
    r"\.(tmp|temp|bak|orig|rej)$",
    r"\.tmp\.\d+$",         # atomic saves (`search.py.tmp.12345`)
    r"^\.goutputstream-",  # gedit and other GIO editors
    r"\.kate-swp$",
    r"\.crswap$",          # editors on Chrome's file system API
    r"^sed[A-Za-z0-9]{6}$",  # `sed -i` writes `sedXXXXXX` beside the file, then renames it
)
"""Editor temporary files watchfiles' DefaultFilter lets through: never a round."""

Changes = set[Path]
Watcher = Callable[[list[Path]], Iterable[Changes]]


@dataclass(frozen=True)
class Generation:
    """The outcome of one round."""

    number: int
    ok: bool
    rebuilt: tuple[str, ...] = ()  # workspace extensions built in this round
    diagnostics: tuple[Diagnostic, ...] = ()
    changed: tuple[str, ...] = ()  # the changed paths that triggered it, relative
    upgrades: tuple[str, ...] = ()  # mounted packages that changed since the last build
    contributions: dict[str, int] = field(default_factory=dict)  # kind -> count, every tree


@dataclass(frozen=True)
class LocalRound:
    """Local extensions loaded again after a change in their folders (trust checked again)."""

    number: int
    rows: tuple[dict[str, Any], ...]  # the `eve extensions list` rows of the local extensions
    changed: tuple[str, ...] = ()


@dataclass
class DevSession:
    app_root: Path
    agent: str | None = None
    history: list[Generation] = field(default_factory=list)
    local_rounds: list[LocalRound] = field(default_factory=list)
    extensions: tuple[Path, ...] = ()  # `-e` paths, loaded in every local round
    bundled: tuple[Path, ...] = ()  # bundled development extensions, loaded after `-e`

    @property
    def loaded_extensions(self) -> tuple[Path, ...]:
        """What every load of the agent gets besides the usual local extensions."""
        return (*self.extensions, *self.bundled)

    @property
    def output_root(self) -> Path:
        """Where the builds write `.eve/`: the app, or `agents/NAME` of a workspace."""
        root = self.app_root.resolve()
        return root / "agents" / self.agent if self.agent else root

    def record_status(self, generation: Generation, problems: Iterable[Diagnostic] = (),
                      serving: int | None = None) -> None:
        """`.eve/dev/status.json` for this round (what the `eve_dev` extension shows)."""
        from eve_build.dev.status import derive_status, write_status

        last = self.last_good
        if self.output_root.is_dir():
            write_status(self.output_root, derive_status(
                generation, last_good=last.number if last else None, problems=problems,
                serving=serving))

    @property
    def last_good(self) -> Generation | None:
        return next((g for g in reversed(self.history) if g.ok), None)

    def build(self, changed: Iterable[Path] = ()) -> Generation:
        """One round: build the workspace's stale extensions and compile the agent."""
        from eve_build.consumer.build import build_agent

        number = len(self.history) + 1
        shown = tuple(sorted(self._shown(p) for p in changed))
        try:
            result = build_agent(self.app_root, self.agent)
        except DiagnosticsError as exc:
            generation = Generation(number, False, diagnostics=tuple(exc.diagnostics),
                                    changed=shown)
        else:
            rebuilt = tuple(m.name for m in result.extensions if m.state == "built")
            generation = Generation(number, True, rebuilt, tuple(result.warnings), shown,
                                    result.changes, count_contributions(result.compiled))
        self.history.append(generation)
        self.record_status(generation)
        return generation

    def watched_paths(self) -> list[Path]:
        """The app folder, every workspace member folder and every extension project
        installed from a path or editable."""
        from eve_build.consumer.workspace import locate_workspace
        from eve_build.project.app import try_find_app_root

        root = try_find_app_root(self.app_root.resolve()) or self.app_root.resolve()
        from eve_build.consumer.sources import find_installed_sources

        paths = [root, *find_installed_sources()]  # path and editable installs too
        workspace, _ = locate_workspace(root)
        if workspace is not None:
            paths.extend(m.resolve() for m in workspace.members)
        return sorted(set(paths))

    def local_paths(self) -> list[Path]:
        """The local extension folders that exist: the project's, the global one, and the
        folder of running nodes' sockets."""
        from eve_build.local.discovery import (
            GLOBAL_FOLDER,
            locate_eve_home,
            locate_project_folder,
        )

        folders = [locate_project_folder(self.app_root.resolve()),
                   locate_eve_home() / GLOBAL_FOLDER,
                   locate_eve_home() / "run",  # a node starting or stopping (section 8)
                   *(p.resolve() if p.is_dir() else p.resolve().parent for p in self.extensions)]
        return sorted({f.resolve() for f in folders if f.is_dir()})

    def reload_local(self, changed: Iterable[Path] = ()) -> LocalRound:
        """Load the local extensions again, as the host would now."""
        from eve_build.errors import DiagnosticsError
        from eve_build.local.listing import derive_extension_rows
        from eve_build.runtime.loader import read_compiled_agent

        try:
            compiled = read_compiled_agent(self.app_root)
        except DiagnosticsError:
            compiled = None
        rows = [r for r in derive_extension_rows(self.app_root, compiled,
                                                 self.loaded_extensions)
                if r["origin"] != "mount"]
        round_ = LocalRound(len(self.local_rounds) + 1, tuple(rows),
                            tuple(sorted(self._shown(p) for p in changed)))
        self.local_rounds.append(round_)
        return round_

    def _shown(self, path: Path) -> str:
        try:
            return path.resolve().relative_to(self.app_root.resolve()).as_posix()
        except ValueError:
            return path.as_posix()


CONTRIBUTION_KINDS = ("tools", "skills", "channels", "connections", "schedules", "hooks",
                      "instructions", "mounts", "subagents", "states")


def count_contributions(compiled: CompiledAgent) -> dict[str, int]:
    """How many of each contribution kind the root agent has, as `eve info` lists them
    (a subagent's tools are its own), and how many subagents there are at any depth."""
    from eve_build.formats.compiled import walk_trees

    counts = {kind: len(getattr(compiled.root, kind)) for kind in CONTRIBUTION_KINDS
              if kind != "subagents"}
    counts["subagents"] = len(walk_trees(compiled.root)) - 1
    return {kind: counts[kind] for kind in CONTRIBUTION_KINDS}


def derive_watch_filter() -> watchfiles.DefaultFilter:
    """watchfiles' DefaultFilter, plus this project's own caches."""
    import watchfiles

    return watchfiles.DefaultFilter(
        ignore_dirs=(*watchfiles.DefaultFilter.ignore_dirs, *EXTRA_IGNORED_DIRS),
        ignore_entity_patterns=(*watchfiles.DefaultFilter.ignore_entity_patterns,
                                *EXTRA_IGNORED_ENTITIES))


def is_source_change(path: Path) -> bool:
    """`path` is relative to its watched root (the app or a workspace member). Changes to
    outputs never trigger a round, nor anything watchfiles' DefaultFilter ignores."""
    import watchfiles

    if path.parts and path.parts[0] in OUTPUT_FOLDERS:
        return False
    return bool(derive_watch_filter()(watchfiles.Change.modified, str(path)))


def watch_with_watchfiles(
    paths: list[Path], stop_event: threading.Event | None = None
) -> Iterator[Changes]:
    """Batches of changed paths from the OS file watcher, until `stop_event`; Ctrl-C raises
    KeyboardInterrupt (the CLI ends quietly on it)."""
    import watchfiles

    for batch in watchfiles.watch(*paths, watch_filter=derive_watch_filter(), debounce=300,
                                  raise_interrupt=True, stop_event=stop_event):
        yield {Path(changed) for _change, changed in batch}


def run_dev(
    session: DevSession,
    on_generation: Callable[[Generation], None],
    watch: Watcher = watch_with_watchfiles,
    on_local: Callable[[LocalRound], None] | None = None,
) -> None:
    """Build once, then once per batch of relevant source changes until the watcher ends.

    With `on_local`, the local extension folders are watched too, and a change there
    loads the local extensions again (no build).
    """
    if not session.app_root.is_dir():
        raise UsageError(f"`{session.app_root}` is not a folder, so there is nothing to watch",
                         "pass the app (or workspace) root with `--path`")
    on_generation(session.build())
    roots = session.watched_paths()
    local = session.local_paths() if on_local is not None else []
    everything = sorted({*roots, *local})
    outermost = [r for r in everything
                 if not any(r != o and r.is_relative_to(o) for o in everything)]
    for batch in watch(outermost):
        relevant = {p for p in batch if is_source_change(_relative(p, roots))
                    and (not local or any(p.is_relative_to(r) for r in roots))}
        if relevant:
            on_generation(session.build(relevant))
        touched = {p for p in batch if any(p.is_relative_to(f) for f in local)
                   and "__pycache__" not in p.parts}
        if touched and on_local is not None:
            on_local(session.reload_local(touched))


def _relative(path: Path, roots: list[Path]) -> Path:
    """`path` relative to the innermost watched root that holds it."""
    holding = [root for root in roots if path.is_relative_to(root)]
    if not holding:
        return path
    return path.relative_to(max(holding, key=lambda root: len(root.parts)))
