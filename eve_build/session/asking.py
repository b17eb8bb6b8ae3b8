"""Who answers a session's questions (`ctx.ask`, eve_build.sdk.interaction) off a terminal.

- `GivenAnswers`: `eve run --answer field=value`. A question whose fields the answers
  do not fill (and no terminal to ask) stops the whole message: nothing is committed
  and `eve run` fails with `session/input-required`, naming the fields and the ways to
  answer (`send_asking` runs a message that way).
- `StoreAsker`: an HTTP session. The question is written to the store
  (eve_build.session.inputs) and sent as an `input.required` event; the answer, posted
  to any worker, is read back from the store. It waits EVE_INPUT_TIMEOUT seconds. A
  JSON-mode request cannot show a question: the message is stopped (nothing
  committed, the claim released) and answered 409 with the question; once the client
  posts the answer, the same message sent again takes it when it asks the same thing.

The terminal's own asker is the CLI's (eve_build.cli.asking).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import uuid
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from eve_build.errors import DiagnosticsError
from eve_build.sdk.interaction import (
    INPUT_TIMEOUT_VARIABLE,
    Ask,
    Cancelled,
    Declined,
    Question,
    interacting,
    read_input_timeout,
)
from eve_build.sdk.questions import check_answer, describe_errors, describe_fields
from eve_build.session.errors import session_error
from eve_build.session.inputs import InputRecord
from eve_build.session.transcript import Listener, SessionEvent

if TYPE_CHECKING:
    from eve_build.session.storage import Storage

POLL_SECONDS = 0.05
"""How often the asking turn reads the store for the answer."""
RUN_WAYS = ("pass each field as `--answer field=value` (repeatable), or talk to the agent "
            "in `eve chat` on a terminal")


def input_required(question: Question, ways: str = RUN_WAYS) -> DiagnosticsError:
    """session/input-required: the question, the fields it asks for, the ways to answer."""
    who = f"`{question.tool}`" if question.tool else "a tool"
    return session_error("session/input-required", f"{who} asked \"{question.message}\" and "
                         "no one can answer here; it asks for "
                         f"{', '.join(describe_fields(question.schema))}", ways,
                         title="the message needs an answer")


def answer_invalid(question: Question, errors: list[dict[str, str]]) -> DiagnosticsError:
    return session_error("session/answer-invalid", f"the answer to \"{question.message}\" "
                         f"does not fit its schema: {describe_errors(errors)}",
                         "give each field a value of its type: "
                         f"{', '.join(describe_fields(question.schema))}",
                         title="the message needs an answer")


class GivenAnswers:
    """Answers from `--answer field=value`; `fallback` (a terminal) asks what they leave."""

    def __init__(self, answers: Mapping[str, str], fallback: Ask | None = None) -> None:
        self.answers, self.fallback = dict(answers), fallback
        self.failure: DiagnosticsError | None = None
        self.task: asyncio.Future[Any] | None = None

    async def __call__(self, question: Question) -> Mapping[str, Any]:
        fields = question.schema.get("properties", {})
        given = {name: value for name, value in self.answers.items() if name in fields}
        values, errors = check_answer(question.schema, given)
        missing = [e for e in errors if e["message"] == "Field required"]
        if not errors and not question.errors:
            return values
        if self.fallback is not None:  # the terminal asks what the answers leave
            if question.errors:
                return await self.fallback(question)
            wrong = {e["field"] for e in errors}
            left = {n: p for n, p in fields.items() if n in wrong}
            rest = await self.fallback(replace(question, schema={
                **question.schema, "properties": left,
                "required": [n for n in question.schema.get("required", ()) if n in left]}))
            return {**{n: v for n, v in given.items() if n not in wrong}, **rest}
        self.failure = input_required(question) if missing and len(missing) == len(errors) \
            else answer_invalid(question, errors or [dict(e) for e in question.errors])
        if self.task is not None:
            self.task.cancel()
        raise Cancelled(self.failure.message)


async def send_asking(send: Callable[[], Awaitable[Any]], ask: GivenAnswers) -> Any:
    """`send()` with `ask` answering its questions; raises the asker's failure when a
    question could not be answered (the message was stopped: nothing committed)."""
    with interacting(ask=ask, loop=asyncio.get_running_loop()):
        task = asyncio.ensure_future(send())
    ask.task = task
    try:
        return await task
    except asyncio.CancelledError:
        if ask.failure is not None:
            raise ask.failure from None
        raise


def fingerprint(question: Question) -> str:
    text = json.dumps([question.tool, question.message, question.schema], sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:32]


class StoreAsker:
    """The questions of one HTTP message, through the store (see the module docstring)."""

    def __init__(self, storage: Storage, session_id: str, listener: Listener, *,
                 json_mode: bool, environ: Mapping[str, str]) -> None:
        self.storage, self.session_id, self.listener = storage, session_id, listener
        self.json_mode = json_mode
        self.timeout = read_input_timeout(environ)
        self.pending: InputRecord | None = None  # JSON mode: the question it stopped at
        self.task: asyncio.Future[Any] | None = None

    async def __call__(self, question: Question) -> Mapping[str, Any]:
        inputs = self.storage.inputs()
        mark = fingerprint(question)
        if not question.errors:  # a message sent again after a JSON-mode 409
            ready = await asyncio.to_thread(inputs.take_ready, self.session_id, mark)
            if ready is not None:
                return _outcome(ready)
        record = InputRecord(self.session_id, uuid.uuid4().hex[:16], mark, question.message,
                             dict(question.schema), question.tool)
        await asyncio.to_thread(inputs.open, record)
        if self.json_mode and self.task is not None:
            self.pending = record
            self.task.cancel()
            await asyncio.Event().wait()  # cancelled with the message
        self.listener(SessionEvent("input.required", {**record.to_json(),
                                                      "errors": list(question.errors)}))
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.timeout
        try:
            while True:
                late = loop.time() >= deadline
                taken = await asyncio.to_thread(inputs.take, self.session_id, record.id,
                                                expire=late)
                if taken is not None:
                    break
                await asyncio.sleep(POLL_SECONDS)
        except asyncio.CancelledError:  # nobody waits for it any more: it takes no answer
            await asyncio.shield(asyncio.to_thread(inputs.take, self.session_id, record.id,
                                                   expire=True, closed_as="abandoned"))
            raise
        if taken.status == "open":
            raise Cancelled(f"no answer to \"{question.message}\" within "
                            f"{INPUT_TIMEOUT_VARIABLE}={self.timeout:g} s")
        return _outcome(taken)


def _outcome(record: InputRecord) -> Mapping[str, Any]:
    if record.status == "declined":
        raise Declined(f"the person declined to answer \"{record.message}\"")
    if record.status == "cancelled":
        raise Cancelled(f"the person cancelled the question \"{record.message}\"")
    return dict(record.answer or {})


def answer_input(storage: Storage, session_id: str, input_id: str, body: Mapping[str, Any]
                 ) -> tuple[int, dict[str, Any]]:
    """An answer posted over HTTP: (status, what to answer): 200 taken ({"id", "status"}),
    else an error ({"code", "message", "hint", ...}): 404 no such question, 409 answered
    or timed out already, 422 the fields do not fit (the question stays open)."""
    inputs = storage.inputs()
    record = inputs.read(session_id, input_id)
    if record is None:
        return 404, _problem("session/input-unknown", f"session `{session_id}` has no "
                                f"question `{input_id}`", "answer the id of an "
                                "`input.required` event of this session")
    action = body.get("action") if "action" not in record.schema.get("properties", {}) \
        else None
    if action is not None and action not in ("decline", "cancel"):
        return 422, _problem("session/answer-invalid", "`action` must be `decline` or "
                                "`cancel`", "send the fields, or {\"action\": \"decline\"}")
    values: dict[str, Any] | None = None
    if action is None:
        values, errors = check_answer(record.schema, body)
        if errors:
            return 422, _problem("session/answer-invalid", "the answer does not fit the "
                                    f"question's schema: {describe_errors(errors)}",
                                    "send the fields the `schema` of the question asks for",
                                    errors=errors)
    status = {"decline": "declined", "cancel": "cancelled"}.get(str(action), "answered")
    before = inputs.answer(session_id, input_id, status, values)
    if before is None or before.status != "open":
        shown = {"timed-out": "timed out", "abandoned": "abandoned (the message that asked "
                 "was cancelled)"}.get(before.status if before else "", "already answered")
        return 409, _problem("session/input-closed", f"the question `{input_id}` was "
                                f"{shown}", "a question takes one answer while it is open "
                                f"({INPUT_TIMEOUT_VARIABLE}); send the message again to be "
                                "asked again")
    return 200, {"id": input_id, "status": status}


def _problem(code: str, message: str, hint: str, **extra: Any) -> dict[str, Any]:
    return {"code": code, "message": message, "hint": hint, **extra}
