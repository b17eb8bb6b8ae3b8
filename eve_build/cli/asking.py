"""Questions to the person at the terminal: `ctx.ask` and approvals in `eve chat`,
`eve call` and `eve run` on a terminal (docs/local-extensions.md, "Asking the person").

The question's message, then one prompt per field on stderr with its description,
choices and default. Enter on an empty line takes the default (a required field
without one is asked again); an answer that does not fit the field is refused and the
field asked again; Ctrl-D declines the question (the tool sees `Declined`). A question
of one yes/no field (an approval) is one `[y/N]` prompt. Ctrl-C is the command's own:
it cancels the turn in `eve chat`, ends `eve call` and `eve run`.
"""

from __future__ import annotations

import asyncio
import queue
import sys
import threading
from collections.abc import Callable, Mapping
from typing import Any, TextIO

from eve_build.cli.output import echo_err
from eve_build.controls import escape_controls
from eve_build.sdk.interaction import Declined, Question
from eve_build.sdk.questions import check_answer, describe_errors

_ASKING: dict[int, asyncio.Lock] = {}  # one question at a time (per loop), though tools
# run in parallel
YES = ("y", "yes", "true", "1")
NO = ("n", "no", "false", "0", "")


def can_ask() -> bool:
    """True when a person is at the terminal (stdin and stderr are terminals; a closed
    stdin, None in Python, is no one)."""
    return bool(sys.stdin is not None and sys.stdin.isatty()
                and sys.stderr is not None and sys.stderr.isatty())


async def terminal_ask(question: Question) -> Mapping[str, Any]:
    """Ask on the terminal (see the module docstring); raises Declined on Ctrl-D.

    The prompts block on a daemon thread. When the turn is cancelled meanwhile (Ctrl-C
    in `eve chat`), that thread is left reading the terminal; the line it reads then
    is handed to the next `read_line` (the chat's next message), not lost to a question
    nobody waits for."""
    loop = asyncio.get_running_loop()
    async with _ASKING.setdefault(id(loop), asyncio.Lock()):
        done: asyncio.Future[dict[str, Any]] = loop.create_future()
        abandoned = threading.Event()

        def work() -> None:
            try:
                result: Any = ask_fields(question, abandoned)
            except BaseException as exc:  # handed to the awaiting turn
                result = exc
            if not loop.is_closed():
                loop.call_soon_threadsafe(_settle, done, result)

        _OPEN.add(abandoned)
        threading.Thread(target=work, name="eve-ask", daemon=True).start()
        try:
            return await done
        except asyncio.CancelledError:
            abandoned.set()
            raise
        finally:
            _OPEN.discard(abandoned)


_OPEN: set[threading.Event] = set()  # the questions being asked now


def abandon_questions() -> None:
    """The turn that asked was cancelled: the prompts still reading hand their line on.
    (Said by the command, since the loop that would cancel the asker has stopped.)"""
    for abandoned in list(_OPEN):
        abandoned.set()


def _settle(done: asyncio.Future[dict[str, Any]], result: Any) -> None:
    if done.done():
        return
    if isinstance(result, BaseException):
        done.set_exception(result)
    else:
        done.set_result(result)


class _Abandoned(Exception):
    """The question's turn went away while its prompt waited for a line."""


_HANDED: queue.Queue[str | None] = queue.Queue()  # lines read for abandoned questions
_READING = threading.Event()  # a question's prompt is reading the terminal now


def read_line(prompt: str) -> str:
    """`input(prompt)` for the chat's own prompt, taking first a line an abandoned
    question's prompt reads (raises EOFError on Ctrl-D, as input does)."""
    line = _take(prompt, input, sys.stdout)
    if line is None:
        raise EOFError
    return line


def _take(prompt: str, reader: Callable[[str], str], shown_on: TextIO) -> str | None:
    """The next line of the terminal, None on Ctrl-D: while an abandoned question's
    prompt still reads, the line it hands on (one reader of the terminal at a time)."""
    if _READING.is_set() or not _HANDED.empty():
        shown_on.write(prompt)
        shown_on.flush()
        return _HANDED.get()
    _READING.set()
    try:
        return reader(prompt)
    except EOFError:
        return None
    finally:
        _READING.clear()


def ask_fields(question: Question, abandoned: threading.Event | None = None
               ) -> dict[str, Any]:
    """The blocking part: the prompts, field by field; the checked values."""
    properties: Mapping[str, Any] = question.schema.get("properties", {})
    required = set(question.schema.get("required", ()))
    if question.errors:
        echo_err(f"the answer was refused: {describe_errors(list(question.errors))}")
    if len(properties) == 1 and next(iter(properties.values())).get("type") == "boolean":
        (name,) = properties
        line = _line(f"\n{question.message} [y/N] ", abandoned)
        if line is None:
            raise Declined()
        return {name: line.strip().lower() in YES}
    echo_err(f"\n{question.message}")
    values: dict[str, Any] = {}
    for name, prop in properties.items():
        value = _ask_field(name, prop, name in required, abandoned)
        if value is not _SKIP:
            values[name] = value
    return values


_SKIP = object()


def _ask_field(name: str, prop: Mapping[str, Any], required: bool,
               abandoned: threading.Event | None) -> Any:
    prompt = _prompt(name, prop, required)
    while True:
        line = _line(prompt, abandoned)
        if line is None:
            raise Declined()
        text = line.strip()
        if not text:
            if "default" in prop or not required:
                return _SKIP
            echo_err("  an answer is needed (Ctrl-D declines the question)")
            continue
        given: Any = text
        if prop.get("type") == "boolean":
            given = True if text.lower() in YES else False if text.lower() in NO else text
        values, errors = check_answer({"properties": {name: prop}, "required": [name]},
                                      {name: given})
        if not errors:
            return values[name]
        echo_err(f"  {errors[0]['message']}; try again")


def _prompt(name: str, prop: Mapping[str, Any], required: bool) -> str:
    parts = [f"  {prop.get('title') or name}"]
    if prop.get("description"):
        parts.append(f" ({prop['description']})")
    if "enum" in prop:
        parts.append(f" [{'/'.join(str(v) for v in prop['enum'])}]")
    elif prop.get("type") == "boolean":
        parts.append(" [y/n]")
    if prop.get("default") is not None:
        parts.append(f" (default: {prop['default']})")
    elif not required:
        parts.append(" (optional)")
    return "".join(parts) + ": "


def _line(prompt: str, abandoned: threading.Event | None = None) -> str | None:
    """One line typed after `prompt` (on stderr); None on Ctrl-D. Raises _Abandoned,
    handing the line on, when the question's turn went away meanwhile."""
    from rich.text import Text

    from eve_build.cli.output import _console

    if abandoned is not None and abandoned.is_set():
        raise _Abandoned
    console = _console()
    line = _take(escape_controls(prompt), lambda shown: console.input(Text(shown)),
                 sys.stderr)
    if abandoned is not None and abandoned.is_set():
        _HANDED.put(line)
        raise _Abandoned
    return line
