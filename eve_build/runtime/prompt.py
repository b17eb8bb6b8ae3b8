"""`eve prompt`: the system prompt an agent (or one subagent) would start a turn with.

The run side assembles it, so a session (eve_build.session.engine) and `eve prompt`
read one text from one place, below both.

In order: the agent's own instructions, each mount's fragment in mount order
(static text, and dynamic `instructions.py` rendered under its mount's binding),
the local extensions' guidelines, then one line per tool (local tools included).
A dynamic fragment that raises, runs past its budget or returns no string is named
in the prompt as an error; the rest is rendered. A fragment whose `{{tool:NAME}}`
names a tool that is not on the agent's surface (`agent.surface()`: what `eve info`,
MCP `tools/list` and a session's toolset list too) is left out: the model never reads
about a tool it cannot call (`eve build` warns about it: agent/instructions-tool-missing).
"""

from __future__ import annotations

import asyncio
import dataclasses
import difflib
import importlib
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from eve_build import slots
from eve_build.diagnostics import error
from eve_build.errors import DiagnosticsError, describe_error
from eve_build.formats.compiled import CompiledInstructions, CompiledTree, walk_trees
from eve_build.placeholders import find_missing_tools, resolve_placeholders
from eve_build.runtime.agent import Agent
from eve_build.runtime.handlers import run_bound
from eve_build.runtime.loader import HOOK_BUDGET
from eve_build.runtime.workers import shared_pool
from eve_build.sdk.binding import Binding, ToolContext
from eve_build.sdk.definitions import Instructions, Tool

PartKind = Literal["instructions", "dynamic", "guidelines", "tools"]


@dataclass(frozen=True)
class PromptPart:
    """One section; `error` is set (and `text` None) when a dynamic fragment failed."""

    kind: PartKind
    mount: str | None  # the namespace; None for the agent's own and for local parts
    file: str | None
    text: str | None = None
    error: str | None = None
    omitted: bool = False  # left out (it names a tool the agent does not have): `error` says


    def describe(self) -> str:
        owner = f" of mount `{self.mount}`" if self.mount else ""
        return f"the instructions{owner} (`{self.file}`)"

    def render(self) -> str:
        if self.omitted:
            return ""
        if self.error is not None:
            return f"[error: {self.describe()} could not be rendered: {self.error}]"
        return (self.text or "").strip()

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "mount": self.mount, "file": self.file, "text": self.text,
                "error": self.error}


@dataclass(frozen=True)
class Prompt:
    subagent: str | None
    parts: tuple[PromptPart, ...]

    @property
    def text(self) -> str:
        return "\n\n".join(part.render() for part in self.parts if part.render()) + "\n"

    @property
    def errors(self) -> list[PromptPart]:
        return [part for part in self.parts if part.error is not None]

    def to_json(self) -> dict[str, Any]:
        return {"subagent": self.subagent, "text": self.text,
                "parts": [part.to_json() for part in self.parts],
                "errors": len(self.errors)}


def assemble_loaded_prompt(agent: Agent, subagent: str | None = None, *,
                           guidelines: Sequence[str] | None = None) -> Prompt:
    """`aassemble_loaded_prompt` for code outside an event loop (`eve prompt`)."""
    return asyncio.run(aassemble_loaded_prompt(agent, subagent, guidelines=guidelines))


async def aassemble_loaded_prompt(agent: Agent, subagent: str | None = None, *,
                                  guidelines: Sequence[str] | None = None) -> Prompt:
    """The prompt of a loaded agent, or of one subagent (an agent session renders it each
    turn); raises DiagnosticsError for an unknown subagent.

    Guidelines are the local extensions' that loaded with it (`-e` paths, the trusted
    project folder, `$EVE_HOME/extensions/`), for the root agent; `guidelines` replaces
    them.
    """
    tree = _find_tree(agent, subagent)
    local = [g.text for g in agent.guidelines()] if subagent is None else []
    given = local if guidelines is None else list(guidelines)
    return await _assemble(agent, tree, subagent, given)


async def _assemble(agent: Agent, tree: CompiledTree, subagent: str | None,
                    guidelines: list[str]) -> Prompt:
    surface = agent.surface(subagent)
    parts: list[PromptPart] = []
    for item in tree.instructions:
        part = _resolved(await _fragment(agent, item), surface.tools)
        if part.text is not None and part.mount is not None and any(
                p.text == part.text and p.mount is not None for p in parts):
            continue  # two mounts of one package with a fragment that names no tool
        parts.append(part)
    from_tools = [line for name in sorted(surface.tools)
                  for line in getattr(surface.tools[name].definition, "prompt_guidelines", ())]
    guidelines = list(dict.fromkeys([*guidelines, *from_tools]))  # tools' after the local ones
    if guidelines:
        parts.append(PromptPart("guidelines", None, None,
                                "Guidelines:\n" + "\n".join(f"- {g}" for g in guidelines)))
    tools = [_tool_line(name, surface.tools[name].definition) for name in sorted(surface.tools)]
    if tools:
        parts.append(PromptPart("tools", None, None, "Tools:\n" + "\n".join(tools)))
    return Prompt(subagent, tuple(parts))


async def _fragment(agent: Agent, item: CompiledInstructions) -> PromptPart:
    if item.kind == "markdown":
        return PromptPart("instructions", item.mount, item.file, item.text or "")
    try:
        module = importlib.import_module(item.module or "")
    except Exception as exc:  # user code may raise anything
        return PromptPart("dynamic", item.mount, item.file, error=describe_error(exc))
    definition = getattr(module, slots.INSTRUCTIONS_ATTRIBUTE, None)
    if not isinstance(definition, Instructions) or definition.render is None:
        return PromptPart("dynamic", item.mount, item.file,
                          error="it no longer binds `instructions = define_instructions(...)`")
    context = ToolContext(name="instructions", namespace=item.mount)
    done = await run_bound(definition.render, (context,), binding=_binding(agent, item),
                           pool=shared_pool(), budget=HOOK_BUDGET)
    if done.ending == "timeout":
        return PromptPart("dynamic", item.mount, item.file,
                          error=f"render did not return within {HOOK_BUDGET:g} s")
    if done.ending == "raised":
        return PromptPart("dynamic", item.mount, item.file,
                          error=f"render raised {describe_error(done.error or RuntimeError())}")
    if not isinstance(done.value, str):
        return PromptPart("dynamic", item.mount, item.file,
                          error=f"render returned {type(done.value).__name__}, not a str")
    return PromptPart("dynamic", item.mount, item.file, done.value)


def _resolved(part: PromptPart, tools: Collection[str]) -> PromptPart:
    if part.text is None:
        return part
    missing = find_missing_tools(part.text, part.mount, tools)
    if missing:
        names = ", ".join(f"`{name}`" for name in missing)
        return dataclasses.replace(part, text=None, omitted=True, error=(
            f"not shown to the model: it names {names}, which the agent does not have"))
    return dataclasses.replace(part, text=resolve_placeholders(part.text, part.mount, tools))


def _binding(agent: Agent, item: CompiledInstructions) -> Binding:
    resolver = agent.resolver
    assert resolver is not None  # set by every loader
    if item.mount_path is not None and item.mount_path in resolver.bindings:
        return resolver.bindings[item.mount_path]
    return resolver.agent


def _tool_line(name: str, definition: object) -> str:
    if not isinstance(definition, Tool):
        return f"- {name}: (dynamic: described when it is resolved)"
    return f"- {name}: {definition.prompt_snippet or definition.description or ''}".rstrip()


def _find_tree(agent: Agent, subagent: str | None) -> CompiledTree:
    root = agent.compiled.root
    if not subagent:
        return root
    trees = {tree.path: tree for tree in walk_trees(root) if tree is not root}
    if subagent in trees:
        return trees[subagent]
    close = difflib.get_close_matches(subagent, list(trees), n=3)
    hint = (f"did you mean {', '.join(f'`{p}`' for p in close)}?" if close else
            f"its subagents: {', '.join(f'`{p}`' for p in sorted(trees))}" if trees else
            "the agent has no subagents")
    raise DiagnosticsError("cannot assemble the prompt", [error(
        "serve/subagent-unknown", "", f"the agent has no subagent `{subagent}`", hint)])
