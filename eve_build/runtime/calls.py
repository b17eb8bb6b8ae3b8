"""One tool call, step by step: arguments, `action.call` hooks, approval, execute,
`action.result` hooks. Each step that stops the call gives the result its status:
`failed` (bad arguments, a raising tool), `blocked` (a hook) or `refused` (approval).
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from eve_build.diagnostics import Diagnostic, Severity
from eve_build.errors import DiagnosticsError, EveBuildError
from eve_build.runtime.approval import (
    ApprovalRequest,
    ApprovalSession,
    Approver,
    derive_approval_key,
)
from eve_build.runtime.content import ContentError, check_content, derive_content, is_plain
from eve_build.runtime.pipeline import Outcome, Trace
from eve_build.runtime.surface import Surface
from eve_build.runtime.tools import (
    ToolCallError,
    ToolEntry,
    check_json_value,
    derive_timeout,
    execute_tool,
    resolve_tool,
    select_tool,
    validate_arguments,
)
from eve_build.runtime.workers import WorkerPool
from eve_build.sdk.binding import ToolContext
from eve_build.sdk.definitions import Tool
from eve_build.sdk.mount import ToolResult
from eve_build.sdk.results import ContentPart


class ToolNotFoundError(EveBuildError, KeyError):
    """The agent (or the subagent asked for) has no tool of that name."""

    def __str__(self) -> str:  # KeyError would quote the message
        return self.message


class ConnectionToolMissingError(ToolNotFoundError, DiagnosticsError):
    """The tool would come from an MCP connection that did not open: the connection's
    diagnostic (its code, its file, a hint), as an error of this call."""

    def __init__(self, message: str, hint: str, problem: Diagnostic) -> None:
        DiagnosticsError.__init__(self, message, [replace(problem, severity=Severity.ERROR)])
        self.message, self.hint = message, hint
        self.args = (message,)


@dataclass
class ToolCall:
    surface: Surface
    entry: ToolEntry
    approvals: ApprovalSession
    pool: WorkerPool
    approver: Approver | None = None
    on_progress: Callable[[str], None] | None = None
    progress: list[str] = field(default_factory=list)
    trace: Trace = field(default_factory=list)
    _arguments: dict[str, Any] = field(default_factory=dict)  # as the action.call hooks left them
    _ran: bool = False  # execute started: its result or failure goes to action.result

    async def run(self, arguments: Mapping[str, Any]) -> ToolResult:
        self._arguments = dict(arguments)
        self._ran = False
        done = await self._attempt(arguments)
        if not self._ran:  # blocked, refused, or failed before it ran: not a result
            return done
        rich = not is_plain(done.content, done.details)
        outcome = Outcome(done.details, tuple(done.content) if rich else None,
                          done.error if done.status == "failed" else None)
        outcome, steps = await self.surface.pipeline.on_outcome(
            self.entry.name, self._arguments, outcome, self.entry.identity)
        self.trace.extend(steps)
        if outcome.error is not None:
            return self._result("failed", error=outcome.error,
                                content=outcome.content or ())
        try:  # an action.result hook may have returned something that is not JSON
            value = check_json_value(self.entry.name, outcome.value)
            content = (check_content(self.entry.name, outcome.content)
                       if outcome.content is not None else derive_content(value))
        except (ToolCallError, ContentError) as exc:
            return self._result("failed", error=f"after the `action.result` hooks: {exc}")
        return self._result("ok", value=value, content=content)

    async def _attempt(self, arguments: Mapping[str, Any]) -> ToolResult:
        """The call up to its result, before the `action.result` handlers."""
        name, pipeline = self.entry.name, self.surface.pipeline
        if self.entry.binding.unavailable:  # its mount did not open: nothing of it may run
            return self._result("failed", error=f"`{name}` cannot run: "
                                                f"{self.entry.binding.unavailable}")
        try:
            tool, model = select_tool(await resolve_tool(self.entry, self.pool), name,
                                      arguments)
            verdict = await pipeline.on_call(name, dict(arguments), self.entry.identity)
            self.trace.extend(verdict.trace)
            self._arguments = verdict.arguments
            if verdict.blocked is not None:
                return self._result("blocked", error=verdict.blocked)
            if verdict.rewritten_by is not None:  # rewritten arguments are validated again
                try:
                    model = validate_arguments(tool, name, verdict.arguments)
                except ToolCallError as exc:
                    raise ToolCallError(f"after the rewrite by {verdict.rewritten_by.describe()}"
                                        f": {exc}") from None
            request = ApprovalRequest(name, dict(verdict.arguments),
                                      tool.approval.policy if tool.approval else "never",
                                      self.entry.identity, self.entry.mount)
            key = derive_approval_key(self.surface.path, name)
            refusal = await self.approvals.refuse(tool, request, self.approver, key=key)
            if refusal is not None:
                return self._result("refused", error=refusal)
            context: Any = ToolContext(name=name, namespace=self.entry.mount,
                                       progress=self._report)
            if self.entry.make_context is not None:
                context = self.entry.make_context(context)
            self._ran = True
            produced = await execute_tool(tool, self.entry, model, context, self.pool)
        except ToolCallError as exc:
            return self._result("failed", error=str(exc))
        if produced.is_error:
            return self._result("failed", error=produced.error, content=produced.content)
        return self._result("ok", value=produced.details, content=produced.content)

    def _report(self, text: str) -> None:
        self.progress.append(text)
        if self.on_progress is not None:
            self.on_progress(text)

    def _result(self, status: str, *, value: Any = None, error: str | None = None,
                content: Sequence[ContentPart] = ()) -> ToolResult:
        return ToolResult(name=self.entry.name, status=status, details=value, error=error,
                          content=tuple(content), is_error=status != "ok",
                          identity=self.entry.identity, trace=tuple(self.trace),
                          progress=tuple(self.progress))


CALL_SLACK = 2.0
"""Seconds a whole call may run past the sum of its budgets before a watchdog gives up."""


def derive_call_bound(surface: Surface, entry: ToolEntry) -> float:
    """The longest one call of `entry` can take when every budget is honoured: the tool's
    timeout (twice for a dynamic tool: resolve, then execute), each `action.call` and
    `action.result` handler's budget, and CALL_SLACK. Past it, something blocked the
    event loop itself (sync code in an `async def`), and only a watchdog can end it."""
    definition = entry.definition
    tool = derive_timeout(definition) if isinstance(definition, Tool) else 2 * derive_timeout(
        None)
    runs = sum(1 for hook in surface.pipeline.hooks for event in ("action.call",
                                                                  "action.result")
               if hook.handler(event) is not None)
    return tool + runs * surface.pipeline.budget + CALL_SLACK


def suggest_tools(name: str, tools: Mapping[str, ToolEntry]) -> str:
    """A hint for an unknown tool name: close names, or the names of same local name."""
    same_local = [n for n, e in tools.items() if e.local_name == name]
    close = same_local or difflib.get_close_matches(name, list(tools), n=3)
    if close:
        return f"did you mean {', '.join(f'`{n}`' for n in sorted(close))}?"
    if not tools:
        return "the agent has no tools"
    return f"the agent's tools: {', '.join(f'`{n}`' for n in sorted(tools))}"
