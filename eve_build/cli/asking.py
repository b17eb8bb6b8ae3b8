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
import sys
from collections.abc import Mapping
from typing import Any

from eve_build.cli.output import echo_err
from eve_build.controls import escape_controls
from eve_build.sdk.interaction import Declined, Question
from eve_build.sdk.questions import check_answer, describe_errors

_ASKING: dict[int, asyncio.Lock] = {}  # one question at a time (per loop), though tools
# run in parallel
YES = ("y", "yes", "true", "1")
NO = ("n", "no", "false", "0", "")


def can_ask() -> bool:
    """True when a person is at the terminal (stdin and stderr are terminals)."""
    return sys.stdin.isatty() and sys.stderr.isatty()


async def terminal_ask(question: Question) -> Mapping[str, Any]:
    """Ask on the terminal (see the module docstring); raises Declined on Ctrl-D."""
    loop = asyncio.get_running_loop()
    async with _ASKING.setdefault(id(loop), asyncio.Lock()):
        return await loop.run_in_executor(None, ask_fields, question)


def ask_fields(question: Question) -> dict[str, Any]:
    """The blocking part: the prompts, field by field; the checked values."""
    properties: Mapping[str, Any] = question.schema.get("properties", {})
    required = set(question.schema.get("required", ()))
    if question.errors:
        echo_err(f"the answer was refused: {describe_errors(list(question.errors))}")
    if len(properties) == 1 and next(iter(properties.values())).get("type") == "boolean":
        (name,) = properties
        line = _line(f"\n{question.message} [y/N] ")
        if line is None:
            raise Declined()
        return {name: line.strip().lower() in YES}
    echo_err(f"\n{question.message}")
    values: dict[str, Any] = {}
    for name, prop in properties.items():
        value = _ask_field(name, prop, name in required)
        if value is not _SKIP:
            values[name] = value
    return values


_SKIP = object()


def _ask_field(name: str, prop: Mapping[str, Any], required: bool) -> Any:
    prompt = _prompt(name, prop, required)
    while True:
        line = _line(prompt)
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


def _line(prompt: str) -> str | None:
    """One line typed after `prompt` (on stderr); None on Ctrl-D."""
    from rich.text import Text

    from eve_build.cli.output import _console

    try:
        return _console().input(Text(escape_controls(prompt)))
    except EOFError:
        return None
