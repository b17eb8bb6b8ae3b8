"""Who answers when extension code asks: the person, a model, a subagent, the log.

`ctx.ask`, `ctx.sample`, `ctx.run_subagent`, `ctx.log` and `ctx.report_progress` (on a
tool's ctx and on a local extension's) all go through the `Interaction` of the call
that is running. Each surface installs its own around the calls it makes:

    with interacting(ask=terminal_ask, log=show_log):    # eve chat, eve call
        ...
    with interacting(sample=session_sample, subagent=run_one):   # a session
        ...
    with interacting(ask=elicit, sample=create_message, log=send_log,
                     loop=asyncio.get_running_loop()):   # eve mcp, /mcp
        ...

`interacting` layers: what it does not name stays as the enclosing surface set it, so
a session under `eve chat` samples with the session's model and asks in the terminal.
A field left None has no one to answer: the call fails with an `InteractionError` whose
text names the ways to answer (`no_one` says them).

The async answerers (`ask`, `sample`, `subagent`) run on the `loop` they were installed
with (the host's), whatever loop the user coroutine runs on; `log` and `progress` are
plain functions that must be safe to call from any thread.

Layer 1 (foundation): no pydantic at import time, nothing printed.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from contextvars import ContextVar
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar

from eve_build.errors import EveBuildError

INPUT_TIMEOUT_VARIABLE = "EVE_INPUT_TIMEOUT"
INPUT_TIMEOUT = 300.0
"""How long a question waits for its answer (seconds), unless EVE_INPUT_TIMEOUT says."""

LOG_LEVELS = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")
"""RFC 5424 severities, lowest first, as MCP's `logging/setLevel` names them."""

T = TypeVar("T")


class Declined(Exception):
    """The person saw the question and said no (`ctx.ask`)."""

    def __init__(self, message: str = "the person declined to answer") -> None:
        super().__init__(message)


class Cancelled(Exception):
    """The question went away unanswered: dismissed, interrupted, or timed out."""

    def __init__(self, message: str = "the question was cancelled") -> None:
        super().__init__(message)


class InteractionError(EveBuildError):
    """No one to answer (no terminal, no `--answer`, no model, a client without the
    capability), or the answerer refused; the text says which and what to do."""

    def __str__(self) -> str:
        """The reason with what to do: a tool that fails on it shows both to its caller
        (a failed call's error is the exception's text)."""
        return f"{self.message} ({self.hint})" if self.hint else self.message


@dataclass(frozen=True)
class Question:
    """One `ctx.ask`: `schema` is the JSON Schema (a flat object, eve_build.sdk.questions
    `flat_schema`) of the answer; `errors` ({"field", "message"}) says why the previous
    answer to the same question was refused, when it is asked again."""

    message: str
    schema: Mapping[str, Any]
    id: str = ""
    tool: str | None = None  # the tool (or command) that asks, when known
    errors: Sequence[Mapping[str, str]] = ()


@dataclass(frozen=True)
class SampleRequest:
    """One `ctx.sample`: messages are {"role": "user"|"assistant", "content": str}."""

    messages: Sequence[Mapping[str, str]]
    max_tokens: int | None = None
    system: str | None = None


@dataclass(frozen=True)
class LogEntry:
    """One `ctx.log` (level from LOG_LEVELS) or numeric `ctx.report_progress`."""

    text: str
    level: str = "info"
    source: str | None = None  # the extension or tool that logged
    progress: float | None = None
    total: float | None = None


Ask = Callable[[Question], Awaitable[Mapping[str, Any]]]  # the answer's fields, or raise
Sample = Callable[[SampleRequest], Awaitable[str]]
Subagent = Callable[[str, str], Awaitable[str]]  # (subagent name, text) -> its reply
Log = Callable[[LogEntry], None]


@dataclass(frozen=True)
class Interaction:
    ask: Ask | None = None
    sample: Sample | None = None
    subagent: Subagent | None = None
    log: Log | None = None
    progress: Log | None = None
    loop: asyncio.AbstractEventLoop | None = None  # where ask/sample/subagent run
    ask_ways: str = ("run it where a person can answer: `eve chat`, `eve call` on a "
                     "terminal, `eve run --answer field=value`, an HTTP session, or an "
                     "MCP client that supports elicitation")
    sample_ways: str = ("give the agent a model (`--model`, `EVE_MODEL` or "
                        "`define_agent(model=...)`), or use an MCP client that supports "
                        "sampling")
    subagent_ways: str = ("run the agent as a session (`eve run`, `eve chat`, `eve serve`) "
                          "so its subagents have a model")
    model: str | None = None  # the session's model name, when there is one
    extra: Mapping[str, Any] = field(default_factory=dict)


NOBODY = Interaction()
_CURRENT: ContextVar[Interaction] = ContextVar("eve_build_interaction", default=NOBODY)


def current_interaction() -> Interaction:
    return _CURRENT.get()


@contextlib.contextmanager
def interacting(**changes: Any) -> Iterator[Interaction]:
    """Install answerers for the calls made inside, on top of the enclosing ones."""
    kept = {name: value for name, value in changes.items() if value is not None}
    token = _CURRENT.set(replace(_CURRENT.get(), **kept))
    try:
        yield _CURRENT.get()
    finally:
        _CURRENT.reset(token)


async def run_answerer(interaction: Interaction, awaitable: Callable[[], Awaitable[T]]) -> T:
    """Await an answerer on the loop it was installed with, from any loop."""
    target = interaction.loop
    try:
        here = asyncio.get_running_loop()
    except RuntimeError:  # pragma: no cover - only called from coroutines
        here = None
    if target is None or target is here or target.is_closed():
        return await awaitable()

    async def on_target() -> T:
        return await awaitable()

    future = asyncio.run_coroutine_threadsafe(on_target(), target)
    return await asyncio.wrap_future(future)


def no_one(what: str, ways: str) -> InteractionError:
    """The error for a question nobody can answer; its text (`str()`) names the ways too,
    since a tool's failure shows the text alone."""
    return InteractionError(f"{what}: there is no one to answer here", ways)


ASK_ATTEMPTS = 3
"""How often one question is asked when the answers keep failing the model's own
validators (the answerers already check the JSON Schema)."""


async def ask_person(message: str, schema: Any, *, source: str | None = None) -> Any:
    """`ctx.ask`: the validated `schema` instance (a pydantic model class), or raise.

    A schema that cannot be asked is refused here too (the build refuses the ones it
    can see: eve_build.load.asks); an answer the model's validators refuse is asked
    again with the errors, ASK_ATTEMPTS times in all."""
    from pydantic import ValidationError

    from eve_build.sdk.questions import find_schema_problems, flat_schema

    problems = find_schema_problems(schema)
    if problems:
        raise EveBuildError(f"`{source or 'a tool'}` cannot ask with this schema: "
                            f"{'; '.join(problems)}", "declare a flat pydantic model for "
                            "`ctx.ask(message, schema=Model)`")
    interaction = current_interaction()
    if interaction.ask is None:
        raise no_one(f"`{source or 'a tool'}` asked: {message}", interaction.ask_ways)
    asker = interaction.ask
    errors: list[dict[str, str]] = []
    for _ in range(ASK_ATTEMPTS):
        question = Question(message, flat_schema(schema), tool=source, errors=tuple(errors))

        async def put(q: Question = question) -> Mapping[str, Any]:
            return await asker(q)

        answer = await run_answerer(interaction, put)
        try:
            return schema.model_validate(dict(answer))
        except ValidationError as exc:
            errors = [{"field": ".".join(str(p) for p in e["loc"]) or "(answer)",
                       "message": e["msg"]} for e in exc.errors(include_url=False,
                                                                include_input=False)]
    shown = "; ".join(f"`{e['field']}`: {e['message']}" for e in errors)
    raise InteractionError(f"`{source or 'a tool'}` asked {ASK_ATTEMPTS} times and no "
                           f"answer was valid: {shown}", "answer with values the question's "
                           "model accepts")


async def sample_model(prompt: str | Sequence[Mapping[str, str]], *, max_tokens: int | None = None,
                       system: str | None = None, source: str | None = None) -> str:
    """`ctx.sample`: the model's reply text to a prompt or to a list of messages."""
    interaction = current_interaction()
    if interaction.sample is None:
        raise no_one(f"`{source or 'a tool'}` asked a model", interaction.sample_ways)
    messages = ([{"role": "user", "content": prompt}] if isinstance(prompt, str)
                else [dict(m) for m in prompt])
    sampler = interaction.sample
    request = SampleRequest(messages, max_tokens=max_tokens, system=system)
    return await run_answerer(interaction, lambda: sampler(request))


async def run_subagent(name: str, text: str, *, source: str | None = None) -> str:
    """`ctx.run_subagent`: the reply of one of the agent's subagents, run on its own."""
    interaction = current_interaction()
    if interaction.subagent is None:
        raise no_one(f"`{source or 'a tool'}` asked the subagent `{name}`",
                     interaction.subagent_ways)
    runner = interaction.subagent
    return await run_answerer(interaction, lambda: runner(name, text))


def write_log(text: str, level: str = "info", *, source: str | None = None) -> None:
    """`ctx.log`: one line for observers, `-v`, SSE and MCP clients."""
    if level not in LOG_LEVELS:
        raise EveBuildError(f"`{level}` is not a log level: use one of {', '.join(LOG_LEVELS)}",
                            "ctx.log(text, level) takes an RFC 5424 level, as MCP names them")
    entry = LogEntry(str(text), level, source)
    sink = current_interaction().log
    if sink is not None:
        sink(entry)
    else:
        import logging

        logging.getLogger("eve_build.extension").log(_PY_LEVELS[level], "%s: %s",
                                                     source or "extension", text)


def report_progress(text: str, progress: float | None = None, total: float | None = None,
                    *, source: str | None = None) -> None:
    """Numeric progress for the surfaces that show it (MCP progress notifications)."""
    sink = current_interaction().progress
    if sink is not None:
        sink(LogEntry(str(text), "info", source, progress, total))


_PY_LEVELS = {"debug": 10, "info": 20, "notice": 20, "warning": 30, "error": 40,
              "critical": 50, "alert": 50, "emergency": 50}


def read_input_timeout(environ: Mapping[str, str]) -> float:
    """EVE_INPUT_TIMEOUT from `environ` (the loader refused an invalid value already)."""
    from eve_build.settings import read_setting

    return read_setting(INPUT_TIMEOUT_VARIABLE, environ, INPUT_TIMEOUT)
