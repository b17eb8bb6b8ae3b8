"""One agent session: a message in, the turns it needs, the reply out.

    session = Session(agent, app_root, "s1", SessionOptions(model="test"))
    result = await session.asend("hello")

A message first goes through `message.received` exactly as `eve message` does (a
`handled` reply or a `/command` starts no turn; `/skill:name` is expanded); what
reaches a turn runs on pydantic-ai with the agent's tools (toolset.py), the extra
tools (extras.py) and `eve prompt`'s instructions, streamed (stream.py). Messages
that local extensions queue with `ctx.send_user_message` each get a turn after it.

A message has one wall-clock deadline, EVE_TURN_TIMEOUT (TURN_TIMEOUT seconds unless
set), for everything it starts: hooks, every model request however slowly it streams,
tool calls, the turns queued after it. Past it the work is cancelled and the message
fails with `session/turn-timeout`; the session is left as it was before the message
(history, pending messages), so nothing of it is committed.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic_ai import Agent as EngineAgent
from pydantic_ai import RunContext
from pydantic_ai.messages import ModelMessage
from pydantic_ai.usage import RunUsage, UsageLimits

from eve_build.diagnostics import Diagnostic
from eve_build.errors import DiagnosticsError
from eve_build.local.messages import aroute_message
from eve_build.runtime.agent import Agent
from eve_build.runtime.approval import Approver
from eve_build.runtime.events import emit
from eve_build.runtime.prompt import aassemble_loaded_prompt
from eve_build.sdk.interaction import SampleRequest, interacting
from eve_build.session.answerers import SessionLog, find_subagent, sample_once
from eve_build.session.errors import session_error
from eve_build.session.extras import DelegationFailed, derive_extra_toolset, derive_skill_lines
from eve_build.session.failures import derive_run_failure
from eve_build.session.models import (
    ModelChoice,
    derive_agent_file,
    derive_model_choice,
    derive_model_settings,
    describe_endpoint,
    open_model,
)
from eve_build.session.stream import StreamRelay
from eve_build.session.toolset import TOOL_RETRIES, AgentToolset, RunState
from eve_build.session.transcript import Listener, RunResult, SessionEvent, Usage, ignore
from eve_build.settings import read_setting

if TYPE_CHECKING:
    from pydantic_ai.models import Model

    from eve_build.formats.compiled import CompiledTree

MAX_REQUESTS = 50
TURN_TIMEOUT = 600.0
"""Seconds one message may take, all its turns included (docs/sessions.md)."""
TURN_TIMEOUT_VARIABLE = "EVE_TURN_TIMEOUT"


@dataclass(frozen=True)
class SessionOptions:
    model: str | None = None  # `--model`
    recorded: str | None = None  # the model the resumed session recorded in the store
    max_requests: int = MAX_REQUESTS
    environ: Mapping[str, str] = field(default_factory=dict)
    instance: Any = None  # a pydantic-ai Model for every tree (tests, the benchmark)


@dataclass
class _Tree:
    tree: CompiledTree
    choice: ModelChoice
    model: Model
    engine: EngineAgent[None, str]
    tools: AgentToolset


class Session:
    def __init__(self, agent: Agent, app_root: Path, session_id: str, options: SessionOptions,
                 history: list[ModelMessage] | None = None) -> None:
        self.agent, self.app_root, self.id, self.options = agent, app_root, session_id, options
        derive_model_settings(options.environ)  # an invalid EVE_MODEL_TIMEOUT: before any turn
        self.history: list[ModelMessage] = list(history or [])
        self.pending: list[ModelMessage] = []  # new since the last commit
        self.custom: list[dict[str, Any]] = []
        self.warnings: list[Diagnostic] = []
        self.last_usage = Usage()
        self._trees: dict[str, _Tree] = {}
        self._state = RunState(None, ignore, self._flush)
        self._usage = RunUsage()  # the message's (a subagent run by a tool adds to it)
        self.root = self._open("")
        if agent.local is not None:
            agent.local.request.session.model = self.root.choice.name

    @property
    def model(self) -> str:
        return self.root.choice.name

    def _open(self, path: str) -> _Tree:
        if path in self._trees:
            return self._trees[path]
        trees = {t.path: t for t in _walk(self.agent.compiled.root)}
        tree, root = trees[path] if path else self.agent.compiled.root, self.agent.compiled.root
        if self.options.instance is not None:
            choice = ModelChoice(self.options.model or "given", "the caller")
            model = self.options.instance
        else:
            agent_dir = self.agent.compiled.agent_dir
            choice = derive_model_choice(
                self.options.model, self.options.environ, tree.model if path else None,
                root.model, recorded=self.options.recorded,
                agent_file=derive_agent_file(root.agent_module, agent_dir),
                own_file=derive_agent_file(tree.agent_module, agent_dir) if path else None)
            model = open_model(choice, self.options.environ)
        silence_engine_banner()
        tools = AgentToolset(self.agent, self._state, path or None)
        extras = derive_extra_toolset(self.agent, self.app_root, tree, not path,
                                      self._delegate, self._state, self.warnings)
        engine: EngineAgent[None, str] = EngineAgent(model, toolsets=[tools, extras],
                                                     name=tree.name or "agent",
                                                     retries=TOOL_RETRIES)
        self._trees[path] = _Tree(tree, choice, model, engine, tools)
        return self._trees[path]

    async def asend(self, text: str, *, listener: Listener = ignore,
                    approver: Approver | None = None) -> RunResult:
        """Handle one user message within EVE_TURN_TIMEOUT; raises DiagnosticsError when
        the model fails or the deadline passes (the session is then as it was before)."""
        seconds = read_setting(TURN_TIMEOUT_VARIABLE, self.options.environ, TURN_TIMEOUT)
        kept = len(self.history), len(self.pending), len(self.custom)
        deadline = asyncio.timeout(seconds)
        log = SessionLog(self.agent, listener, asyncio.get_running_loop())
        try:
            async with deadline:
                with interacting(sample=self._sample, subagent=self._subagent, log=log,
                                 model=self.model, loop=log.loop):
                    result = await self._asend(text, listener, approver)
                await log.settle()
                return result
        except BaseException as exc:
            del self.history[kept[0]:], self.pending[kept[1]:], self.custom[kept[2]:]
            if isinstance(exc, TimeoutError) and deadline.expired():
                raise session_error(
                    "session/turn-timeout", f"the message did not finish within "
                    f"{TURN_TIMEOUT_VARIABLE}={seconds:g} s (its whole deadline: model "
                    "requests, tool calls and queued turns); it was cancelled and nothing of "
                    "it was committed", f"allow more with `{TURN_TIMEOUT_VARIABLE}` (seconds, "
                    f"default {TURN_TIMEOUT:g}), or ask for less", title="the turn failed",
                ) from None
            raise

    async def _asend(self, text: str, listener: Listener,
                     approver: Approver | None) -> RunResult:
        self._state.approver, self._state.listener = approver, listener
        self._state.tool_calls = []
        usage = self._usage = RunUsage()
        result = RunResult(self.id, "", model=self.model)
        pipeline = self.agent.surface().pipeline
        await emit(pipeline, "message.start", text=text, role="user")
        routed = await aroute_message(self.agent, text, self.app_root)
        await emit(pipeline, "message.end", text=routed.text, role="user",
                   outcome=routed.outcome)
        if routed.outcome != "turn":
            result.reply, result.outcome, result.ok = routed.text, routed.outcome, routed.ok
        else:
            queue = [routed.text]
            while queue:
                result.reply = await self._turn(queue.pop(0), usage)
                result.turns += 1
                if self.agent.local is not None:
                    queue.extend(m.text for m in self.agent.local.request.session.take_messages())
        await self._flush()
        result.tool_calls = list(self._state.tool_calls)
        result.usage = self.last_usage = Usage(usage.requests, usage.input_tokens,
                                               usage.output_tokens, usage.tool_calls)
        result.custom = list(self.custom)
        return result

    async def _turn(self, text: str, usage: RunUsage) -> str:
        rescan = getattr(self.agent, "rescan_nodes", None)
        if callable(rescan):  # a restarted node is picked up between turns
            done = rescan()
            if inspect.isawaitable(done):
                await done
        pipeline = self.agent.surface().pipeline
        await emit(pipeline, "turn.start", text=text)
        self._state.listener(SessionEvent("turn.start", {"text": text}))
        new, reply = await self._run("", text, usage, self.history)
        self.history.extend(new)
        self.pending.extend(new)
        await self._flush()
        await emit(pipeline, "turn.end", text=text, reply=reply)
        self._state.listener(SessionEvent("turn.end", {"reply": reply}))
        return reply

    async def _delegate(self, path: str, task: str, ctx: RunContext[Any]) -> str:
        try:  # a subagent's model is opened when it is first delegated to
            self._open(path)
        except DiagnosticsError as exc:  # its bad model fails this delegation, not the run
            self.warnings.extend(exc.diagnostics)
            raise DelegationFailed(path, exc) from None
        pipeline = self.agent.surface(path).pipeline
        await emit(pipeline, "turn.start", text=task, subagent=path)
        _, reply = await self._run(path, task, ctx.usage, [])
        await emit(pipeline, "turn.end", text=task, reply=reply, subagent=path)
        return reply

    async def _sample(self, request: SampleRequest) -> str:
        """`ctx.sample`: one request to the session's model."""
        tree = self.root
        return await sample_once(
            tree.model, request, dict(derive_model_settings(self.options.environ)),
            lambda exc: derive_run_failure(exc, tree.choice.name, describe_endpoint(tree.model)))

    async def _subagent(self, name: str, text: str) -> str:
        """`ctx.run_subagent`: the subagent runs `text` as a session of its own."""
        paths = [t.path for t in _walk(self.agent.compiled.root) if t.path]
        path = find_subagent(paths, name)
        pipeline = self.agent.surface(path).pipeline
        await emit(pipeline, "turn.start", text=text, subagent=path)
        _, reply = await self._run(path, text, self._usage, [])
        await emit(pipeline, "turn.end", text=text, reply=reply, subagent=path)
        return reply

    async def _run(self, path: str, text: str, usage: RunUsage,
                   history: list[ModelMessage]) -> tuple[list[ModelMessage], str]:
        tree = self._open(path)
        prompt = await aassemble_loaded_prompt(self.agent, path or None)
        skills = derive_skill_lines(tree.tree) if not path else ""
        relay = StreamRelay(self.agent.surface(path or None).pipeline, self._state.listener,
                            path or None)
        try:
            run = await tree.engine.run(
                text, message_history=history, instructions="\n\n".join(
                    part for part in (prompt.text.strip(), skills) if part),
                usage=usage, usage_limits=UsageLimits(request_limit=self.options.max_requests),
                model_settings=derive_model_settings(self.options.environ),
                event_stream_handler=relay)
        except Exception as exc:
            failure = derive_run_failure(exc, tree.choice.name, describe_endpoint(tree.model),
                                         self.options.environ or None)
            if failure is None:
                raise
            raise failure from None
        return list(run.new_messages()), str(run.output)

    async def _flush(self) -> None:
        """Emit what local extensions published; keep and show their custom messages."""
        if self.agent.local is None:
            return
        published, custom = self.agent.local.request.session.take_published()
        pipeline = self.agent.surface().pipeline
        for item in published:
            await emit(pipeline, "extension.event", data={
                "extension": item.extension, "name": item.name, "data": item.data})
        for message in custom:
            self.custom.append(message)
            self._state.listener(SessionEvent("custom", message))


def silence_engine_banner() -> None:
    """pydantic-ai's first-run banner (its logo, the model, "observability: off" and a
    pointer to Logfire) stays out of eve's sessions: `eve run` and `eve chat` print their
    own session line, and the banner would land in a chat or a served log. pydantic-ai's
    own switch, set before a session's first run; a user's own agents in another process
    are not touched."""
    import pydantic_ai

    pydantic_ai.BANNER_ENABLED = False


def _walk(tree: CompiledTree) -> list[CompiledTree]:
    return [tree, *(t for sub in tree.subagents for t in _walk(sub))]
