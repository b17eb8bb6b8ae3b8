"""Hook semantics across extensions (DESIGN.md section 6).

Handlers run one at a time in the compiled order (the agent's own hooks first,
then mounts by sorted namespace), never in completion order:

- `action.call`: proceed, rewrite (the next handler sees the rewrite) or block;
  the first block wins and later handlers are not asked. A handler that times out,
  raises or returns something else blocks the call, with the reason.
- `action.result`: each handler may replace the previous handler's result.
- `message.received`: each may transform the text; the first `handled(reply)`
  stops the chain.
- any other event is observed: what a handler returns, raises or how long it takes
  never changes anything (a raising observer is logged).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from eve_build.runtime import trace
from eve_build.runtime.content import content_text, derive_text
from eve_build.runtime.handlers import HandlerRun, run_bound
from eve_build.runtime.redaction import redact_known
from eve_build.runtime.workers import WorkerPool
from eve_build.sdk.binding import Binding, ToolContext
from eve_build.sdk.definitions import Hook
from eve_build.sdk.hooks import (
    ALL_EVENTS,
    CLASSED_EVENTS,
    OBSERVED_EVENTS,
    Block,
    Event,
    Handled,
    Rewrite,
    Transform,
)
from eve_build.sdk.mount import result_identity
from eve_build.sdk.results import ContentPart, ResultOverride, ToolResult

Trace = list[dict[str, Any]]
CALL_RETURNS = "None, rewrite(arguments) or block(reason)"
MESSAGE_RETURNS = "None, transform(text) or handled(reply)"
NAMED_ONLY = frozenset(CLASSED_EVENTS) - frozenset(OBSERVED_EVENTS)
"""Host events a `"*"` handler does not get: subscribe to them by name."""


@dataclass(frozen=True)
class HookEntry:
    """A hook bound to the mount it belongs to."""

    source: trace.HookSource
    hook: Hook
    binding: Binding
    context: Any = None  # what handlers get as `ctx` (a local extension's); None: a ToolContext

    def handler(self, event: str) -> Callable[..., Any] | None:
        """The handler for `event`: the one named for it, else the `"*"` one.

        `"*"` covers the events of section 6; the host events of section 7 that are
        not among them (`agent.start`, `tool.update`...) are only seen when named.
        """
        named = self.hook.events.get(event)
        if named is not None or event in NAMED_ONLY:
            return named
        return self.hook.events.get(ALL_EVENTS)


@dataclass
class Verdict:
    """What the `action.call` handlers decided."""

    arguments: dict[str, Any]
    blocked: str | None = None  # why, when a handler blocked (or timed out, or raised)
    rewritten_by: trace.HookSource | None = None  # the last handler that rewrote
    trace: Trace = field(default_factory=list)


FAILED_STAYS = ("a plain value does not change a failed call; return result(value) to "
                "turn it into a result")


@dataclass(frozen=True)
class Outcome:
    """A call's result on its way through the `action.result` handlers: its value (the
    details) and content (None: a plain value's), or the reason it failed."""

    value: Any = None
    content: tuple[ContentPart, ...] | None = None
    error: str | None = None

    def shown(self, tool: str, identity: str) -> Any:
        """What a handler gets as `event.result`: a plain value as itself, content parts
        in the ToolResult that carries them, nothing for a failure."""
        if self.error is not None:
            return None
        if self.content is None:
            return self.value
        return ToolResult(content=self.content, details=self.value, name=tool,
                          identity=identity)

    def recorded(self) -> Any:
        """The trace's `before`/`after`: the value, or the reason of a failure."""
        return self.value if self.error is None else self.error

    def flips(self, after: Outcome) -> dict[str, Any]:
        """`error: true/false` in the trace entry when a handler turned one into the other."""
        if (self.error is None) == (after.error is None):
            return {}
        return {"wasError": self.error is not None, "isError": after.error is not None}


def derive_outcome(value: Any) -> Outcome:
    """An `action.result` handler's non-None return as an Outcome."""
    is_error = False
    if isinstance(value, ResultOverride):
        value, is_error = value.value, value.is_error is True
    if isinstance(value, ToolResult):
        if is_error or value.is_error:
            return Outcome(error=content_text(value.content) or "an error")
        return Outcome(value.details, tuple(value.content))
    if is_error:
        return Outcome(error=derive_text(value))
    return Outcome(value)


@dataclass
class MessageVerdict:
    text: str
    reply: str | None = None  # set when a handler handled the message
    trace: Trace = field(default_factory=list)


class HookPipeline:
    """The hooks of one agent tree, run with a budget per handler."""

    def __init__(self, hooks: Sequence[HookEntry], budget: float, pool: WorkerPool, *,
                 skipped: Sequence[str] = ()) -> None:
        self.hooks = tuple(hooks)
        self.budget = budget
        self.pool = pool
        self.skipped = tuple(skipped)  # hooks of unavailable mounts: why each did not run

    async def on_call(self, tool: str, arguments: dict[str, Any],
                      identity: str = "") -> Verdict:
        verdict = Verdict(arguments=dict(arguments))
        steps = verdict.trace
        steps.extend({"warning": reason} for reason in self.skipped)
        for entry, handler in self._handlers("action.call"):
            event = Event("action.call", tool=tool, arguments=dict(verdict.arguments),
                          identity=identity or None)
            done = await self._run(entry, handler, event)
            value = done.value
            if done.ending != "returned":
                verdict.blocked = self._record(steps, event, entry, done)
            elif value is None:
                self._record(steps, event, entry, done, trace.PROCEED)
            elif isinstance(value, Block):
                self._record(steps, event, entry, done, trace.BLOCKED, reason=value.reason)
                verdict.blocked = f"{entry.source.describe()}: {value.reason}"
            elif isinstance(value, Rewrite) and _is_arguments(value.arguments):
                after = dict(value.arguments)
                self._record(steps, event, entry, done, trace.REWRITE,
                             before=verdict.arguments, after=after)
                verdict.arguments, verdict.rewritten_by = after, entry.source
            else:
                verdict.blocked = self._record(steps, event, entry, done, trace.ERROR,
                                               reason=_unexpected(entry, value, CALL_RETURNS))
            if verdict.blocked is not None:  # the first blocker wins: nobody else is asked
                return verdict
        return verdict

    async def on_result(self, tool: str, arguments: dict[str, Any],
                        result: Any, identity: str = "") -> tuple[Any, Trace]:
        """`on_outcome` for a plain result value (`agent.fire("action.result", ...)`)."""
        outcome, steps = await self.on_outcome(tool, arguments, Outcome(result), identity)
        return (outcome.value if outcome.error is None else None), steps

    async def on_outcome(self, tool: str, arguments: dict[str, Any], outcome: Outcome,
                         identity: str = "") -> tuple[Outcome, Trace]:
        """Chain the `action.result` handlers over a result or a failure.

        A handler sees `event.result` (the value, or the tool's ToolResult when it
        returned content parts), `event.error` and `event.is_error`; it returns None
        (unchanged), a plain value (replaces a result's value; a failure stays one),
        a ToolResult (new content and details, or an error with `is_error=True`: it
        replaces a failure too) or `result(value, is_error=...)` (a result, or an
        error whose reason is the value's text).
        """
        steps: Trace = []
        for entry, handler in self._handlers("action.result"):
            shown = outcome.shown(tool, identity)
            event = Event("action.result", tool=tool, arguments=dict(arguments), result=shown,
                          identity=identity or None, error=outcome.error,
                          is_error=outcome.error is not None)
            with result_identity(shown, identity):  # tool_result_from(event.result, search)
                done = await self._run(entry, handler, event)
            value = done.value
            if done.ending != "returned":  # a failing handler leaves the result as it was
                self._record(steps, event, entry, done)
            elif value is None:
                self._record(steps, event, entry, done, trace.PROCEED)
            elif outcome.error is not None and not isinstance(value, ResultOverride | ToolResult):
                self._record(steps, event, entry, done, trace.PROCEED, note=FAILED_STAYS)
            else:
                after = derive_outcome(value)
                self._record(steps, event, entry, done, trace.TRANSFORM,
                             before=outcome.recorded(), after=after.recorded(),
                             **outcome.flips(after))
                outcome = after
        return outcome, steps

    async def on_message(self, text: str, data: dict[str, Any]) -> MessageVerdict:
        verdict = MessageVerdict(text=text)
        steps = verdict.trace
        for entry, handler in self._handlers("message.received"):
            event = Event("message.received", text=verdict.text, data=dict(data))
            done = await self._run(entry, handler, event)
            value = done.value
            if done.ending != "returned":
                self._record(steps, event, entry, done)
            elif value is None:
                self._record(steps, event, entry, done, trace.PROCEED)
            elif isinstance(value, Handled):  # the first handler that handles it ends the chain
                self._record(steps, event, entry, done, trace.HANDLED, reply=value.reply)
                verdict.reply = value.reply
                return verdict
            elif isinstance(value, Transform):
                self._record(steps, event, entry, done, trace.TRANSFORM, before=verdict.text,
                             after=value.text)
                verdict.text = value.text
            else:
                self._record(steps, event, entry, done, trace.ERROR,
                             reason=_unexpected(entry, value, MESSAGE_RETURNS))
        return verdict

    async def observe(self, event: Event) -> Trace:
        steps: Trace = []
        for entry, handler in self._handlers(event.name):
            done = await self._run(entry, handler, event)
            if done.ending == "returned":
                self._record(steps, event, entry, done, trace.PROCEED)
            else:
                self._record(steps, event, entry, done)
        return steps

    def _handlers(self, event: str) -> list[tuple[HookEntry, Callable[..., Any]]]:
        return [(entry, handler) for entry in self.hooks
                if (handler := entry.handler(event)) is not None]

    async def _run(self, entry: HookEntry, handler: Callable[..., Any],
                   event: Event) -> HandlerRun:
        context = entry.context if entry.context is not None else ToolContext(
            name=entry.source.hook, namespace=entry.source.mount)
        return await run_bound(handler, (event, context), binding=entry.binding,
                               pool=self.pool, budget=self.budget)

    def _record(self, steps: Trace, event: Event, entry: HookEntry, done: HandlerRun,
                outcome: str | None = None, *, reason: str | None = None,
                **details: Any) -> str:
        """Append the trace entry (no outcome: the run timed out or raised); returns the reason."""
        if outcome is None and done.ending == "timeout":
            outcome, reason = trace.TIMEOUT, trace.derive_timeout_reason(entry.source,
                                                                         self.budget)
        elif outcome is None:
            outcome = trace.ERROR
            reason = trace.derive_error_reason(entry.source, done.error or RuntimeError())
        if outcome in (trace.TIMEOUT, trace.ERROR):
            trace.logger.warning("%s", redact_known(reason or ""))  # it may quote a secret
        steps.append(trace.derive_entry(event.name, entry.source, outcome, done.seconds,
                                        self.budget, reason=reason, **details))
        return reason or ""


def _is_arguments(value: object) -> bool:
    return isinstance(value, dict) and all(isinstance(key, str) for key in value)


def _unexpected(entry: HookEntry, value: object, expected: str) -> str:
    return f"{entry.source.describe()} returned {type(value).__name__}; it may return {expected}"
