"""Test harnesses: an extension or an agent, loaded in one line, called in one line.

    ext = load_extension("path/to/acme-crm", api_key="k")
    assert ext.call("search", {"query": "ada"}).ok

An extension is built into its own output folder (as `eve extension build` does)
and mounted once, under its import name as the namespace; tool names may be
given with or without that prefix, and so may subagents (`subagent="reviewer"` or
`subagent="acme_crm__reviewer"`, the path `eve call --subagent` and `eve info` show;
nested ones as `reviewer/checker`).
"""

from __future__ import annotations

import dataclasses
import shutil
import sys
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path
from types import FrameType
from typing import Any, TypeVar

from eve_build.diagnostics import Diagnostic
from eve_build.errors import DiagnosticsError, EveBuildError
from eve_build.host import open_agent
from eve_build.runtime.agent import Agent, EventOutcome
from eve_build.runtime.approval import ApprovalRequest, Approver
from eve_build.runtime.loader import HOOK_BUDGET
from eve_build.sdk.binding import derive_state_key
from eve_build.sdk.mount import Mount, ToolResult

Approve = bool | Approver | None
T = TypeVar("T")


class HarnessError(EveBuildError):
    """Loading failed; the message lists every diagnostic, so pytest shows them."""


class AgentHarness:
    """A loaded agent with one-line calls; closes the agent on `close()`."""

    namespace: str | None = None  # tool names without it are tried with it too

    def __init__(self, agent: Agent, *, cleanup: Path | None = None) -> None:
        self.agent = agent
        self._cleanup = cleanup

    def tool_name(self, tool: str, subagent: str | None = None) -> str:
        """`tool` as given when the agent (or subagent) has it, else with the namespace."""
        subagent = self.subagent_path(subagent)
        if self.namespace is None or tool in self.agent.surface(subagent).tools:
            return tool
        return f"{self.namespace}__{tool}"

    def subagent_path(self, subagent: str | None) -> str | None:
        """`subagent` as `eve call --subagent` takes it: the path `eve info` lists
        (`acme_crm__reviewer`, `acme_crm__reviewer/checker`); in an extension's harness the
        extension's own name for it (`reviewer`, `reviewer/checker`) is that path too.
        An unknown name is left as given: the call then says which subagents there are."""
        if not subagent or self.namespace is None:
            return subagent
        from eve_build.formats.compiled import walk_trees

        root = self.agent.compiled.root
        paths = {tree.path for tree in walk_trees(root) if tree is not root}
        prefixed = f"{self.namespace}__{subagent}"
        return prefixed if subagent not in paths and prefixed in paths else subagent

    def call(self, tool: str, arguments: Mapping[str, Any] | None = None, *,
             approve: Approve = None, subagent: str | None = None,
             on_progress: Callable[[str], None] | None = None) -> ToolResult:
        """Call a tool; `approve=True` approves every request, a callable decides."""
        path = self.subagent_path(subagent)
        return self.agent.call_tool(self.tool_name(tool, path), arguments, subagent=path,
                                    approver=derive_approver(approve), on_progress=on_progress)

    async def acall(self, tool: str, arguments: Mapping[str, Any] | None = None, *,
                    approve: Approve = None, subagent: str | None = None) -> ToolResult:
        """`call` for code that runs in an event loop."""
        path = self.subagent_path(subagent)
        return await self.agent.acall_tool(self.tool_name(tool, path), arguments,
                                           subagent=path, approver=derive_approver(approve))

    def fire(self, event: str, *, subagent: str | None = None, **fields: Any) -> EventOutcome:
        """Run the hooks of one event: `fire("message.received", text="hi")`."""
        path = self.subagent_path(subagent)
        if isinstance(fields.get("tool"), str):
            fields["tool"] = self.tool_name(fields["tool"], path)
        return self.agent.fire(event, subagent=path, **fields)

    def state(self, key: str) -> Any:
        """The value under a state key (`extensions/crm:requests`), None until first used."""
        return self.agent.state(key)

    def snapshot(self) -> dict[str, Any]:
        return self.agent.snapshot()

    def close(self) -> None:
        self.agent.close()
        if self._cleanup is not None:
            shutil.rmtree(self._cleanup, ignore_errors=True)

    def __enter__(self) -> AgentHarness:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class ExtensionHarness(AgentHarness):
    """One extension mounted once, under `namespace` (its import name)."""

    def __init__(self, agent: Agent, namespace: str, *, cleanup: Path | None = None) -> None:
        super().__init__(agent, cleanup=cleanup)
        self.namespace = namespace

    def state(self, name: str) -> Any:
        """The mount's value of the state `name` (None until first used)."""
        return self.agent.state(derive_state_key(f"extensions/{self.namespace}", name))


def derive_approver(approve: Approve) -> Approver | None:
    """True: approve everything; False: deny everything; None: no approver."""
    if approve is True:
        return _yes
    if approve is False:
        return _no
    return approve


def _yes(_request: ApprovalRequest) -> bool:
    return True


def _no(_request: ApprovalRequest) -> bool:
    return False


def load_extension(
    path: str | Path = ".", /, *, config: Mapping[str, Any] | None = None,
    hook_budget: float = HOOK_BUDGET, environ: Mapping[str, str] | None = None,
    **fields: Any,
) -> ExtensionHarness:
    """Build the extension package at `path` and mount it once with this config.

    Config fields are keyword arguments (values may be `env("NAME")`); `config=`
    takes a mapping for fields whose names clash with the options here.
    """
    from eve_build.extension.build import build_extension
    from eve_build.testing.compiled import MountSource, derive_compiled_agent

    values = {**dict(config or {}), **fields}
    built = _raise_readably(lambda: build_extension(Path(path)))
    namespace = built.project.import_name
    caller = find_calling_file()
    line = find_calling_line()
    compiled = _raise_readably(lambda: derive_compiled_agent(
        [MountSource(namespace, built.manifest, built.output_dir, values,
                     file=caller)]), caller, line)
    app_root = Path(tempfile.mkdtemp(prefix="eve-test-"))
    (app_root / compiled.agent_dir).mkdir()
    mount = Mount(package=built.project.name, import_name=namespace,
                  version=built.project.version, config=values)
    try:
        agent = _raise_readably(lambda: open_agent(
            compiled, app_root, environ=environ, hook_budget=hook_budget,
            mounts={compiled.root.mounts[0].mount_path: mount}), caller, line)
    except BaseException:
        shutil.rmtree(app_root, ignore_errors=True)
        raise
    return ExtensionHarness(agent, namespace, cleanup=app_root)


def load_app(path: str | Path, *, hook_budget: float = HOOK_BUDGET,
             environ: Mapping[str, str] | None = None) -> AgentHarness:
    """Build the agent app at `path` with `eve build` (in place) and load it."""
    from eve_build.consumer.build import build_agent
    from eve_build.host import load_agent

    root = Path(path)
    _raise_readably(lambda: build_agent(root))
    return AgentHarness(_raise_readably(lambda: load_agent(
        root, environ=environ, hook_budget=hook_budget, local=False)))


def find_calling_file() -> str | None:
    """The first file up the stack outside eve-build and pytest: the test that mounts.

    Relative to the working folder when inside it, as diagnostics show paths."""
    frame = _calling_frame()
    if frame is None:
        return None
    path = Path(frame.f_code.co_filename)
    try:
        return path.resolve().relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return path.as_posix()


def find_calling_line() -> int | None:
    """The line of that file that made the mount call."""
    frame = _calling_frame()
    return frame.f_lineno if frame is not None else None


def _calling_frame() -> FrameType | None:
    package = Path(__file__).resolve().parent.parent
    frame: FrameType | None = sys._getframe(1)
    while frame is not None:
        path = Path(frame.f_code.co_filename)
        internal = path.is_relative_to(package) or any(
            part in ("_pytest", "pluggy") for part in path.parts)
        if not internal and path.suffix == ".py":
            return frame
        frame = frame.f_back
    return None


def _raise_readably(action: Callable[[], T], file: str | None = None,
                    line: int | None = None) -> T:
    """`action()`; its diagnostics as one HarnessError, those about `file` at `line`."""
    try:
        return action()
    except DiagnosticsError as exc:
        placed = [dataclasses.replace(d, line=line) if file and d.file == file and d.line is None
                  else d for d in exc.diagnostics]
        raise HarnessError(_render(exc.message, placed)) from None


def _render(title: str, diagnostics: list[Diagnostic]) -> str:
    return "\n".join([title, *(d.render() for d in diagnostics)])
