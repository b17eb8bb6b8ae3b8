"""The tools a session adds beside the agent's own: `load_skill` (the root agent's
skills, listed in its instructions) and one `delegate_<subagent>` per direct
subagent of a tree, which runs that subagent's own session and reports its answer.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic_ai import RunContext
from pydantic_ai.exceptions import ModelRetry
from pydantic_ai.tools import Tool
from pydantic_ai.toolsets import FunctionToolset

from eve_build.diagnostics import Diagnostic, warning
from eve_build.errors import EveBuildError
from eve_build.local.messages import expand_skill
from eve_build.runtime.agent import Agent
from eve_build.session.errors import SESSION_FILE
from eve_build.session.toolset import TOOL_RETRIES, RunState
from eve_build.session.transcript import ToolCallRecord

if TYPE_CHECKING:
    from eve_build.formats.compiled import CompiledTree

SKILL_TOOL = "load_skill"
DELEGATE_PREFIX = "delegate_"
Delegate = Callable[[str, str, RunContext[Any]], Awaitable[str]]
"""(subagent path, task, the caller's run context) -> the subagent's answer."""


class DelegationFailed(Exception):
    """The subagent cannot run (its model does not open): this delegation fails, with the
    diagnostic's message and hint as the tool's answer; the caller's turn goes on."""

    def __init__(self, path: str, error: EveBuildError) -> None:
        first = getattr(error, "diagnostics", [None])[0]
        message = first.message if first is not None else error.message
        hint = first.hint if first is not None else error.hint
        super().__init__(f"the subagent `{path}` cannot run: {message}"
                         + (f" ({hint})" if hint else ""))


def derive_skill_lines(tree: CompiledTree) -> str:
    """The instructions' skills section (empty for a tree without skills)."""
    if not tree.skills:
        return ""
    lines = [f"- {s.name}: {s.details.get('description') or ''}".rstrip() for s in tree.skills]
    return (f"Skills (call `{SKILL_TOOL}` with a skill's name to read it before you follow "
            "it):\n" + "\n".join(lines))


def derive_extra_toolset(agent: Agent, app_root: Path, tree: CompiledTree, root: bool,
                         delegate: Delegate, state: RunState,
                         found: list[Diagnostic]) -> FunctionToolset[Any]:
    toolset: FunctionToolset[Any] = FunctionToolset(id=f"eve-extras-{tree.path or 'agent'}",
                                                    max_retries=TOOL_RETRIES)
    taken = set(agent.tools(tree.path if not root else None))
    if root and tree.skills:
        def load_skill(name: str = "") -> str:
            try:
                body = expand_skill(agent, app_root, str(name), "")
            except EveBuildError as exc:
                state.tool_calls.append(ToolCallRecord(SKILL_TOOL, {"name": name}, "failed",
                                                       reason=exc.message))
                raise ModelRetry(f"{exc.message}; {exc.hint}") from None
            state.tool_calls.append(ToolCallRecord(SKILL_TOOL, {"name": name}, "ok", body))
            return body

        names = sorted(s.name for s in tree.skills)
        schema = {"type": "object", "properties": {"name": {
            "type": "string", "enum": names, "description": "The skill's name."}},
            "required": ["name"]}
        toolset.add_tool(Tool.from_schema(
            load_skill, SKILL_TOOL, "Read one of the skills listed in your instructions.",
            schema))
    for sub in tree.subagents:
        name = DELEGATE_PREFIX + sub.path.rsplit("/", 1)[-1]
        if name in taken:
            found.append(warning("session/subagent-tool-skipped", SESSION_FILE,
                                 f"the subagent `{sub.path}` gets no delegation tool: "
                                 f"`{name}` is already a tool", "rename the tool"))
            continue
        toolset.add_function(_delegation(name, sub.path, delegate, state), name=name,
                             takes_ctx=True,
                             description=f"Hand a task to the subagent `{sub.path}`"
                             + (f" ({sub.description})" if sub.description else "")
                             + "; it works on it with its own tools and answers.")
    return toolset


def _delegation(name: str, path: str, delegate: Delegate,
                state: RunState) -> Callable[..., Awaitable[str]]:
    async def delegate_task(ctx: RunContext[Any], task: str) -> str:
        """task: what the subagent should do, with everything it needs to know."""
        try:
            reply = await delegate(path, task, ctx)
        except DelegationFailed as exc:
            state.tool_calls.append(ToolCallRecord(name, {"task": task}, "failed",
                                                   reason=str(exc)))
            return f"failed: {exc}"
        state.tool_calls.append(ToolCallRecord(name, {"task": task}, "ok", reply))
        return reply

    return delegate_task
