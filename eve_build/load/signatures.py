"""Callables of a definition checked against how the host will call them.

The host calls `execute(input, ctx)`, `handle(request, ctx)`, a hook handler
`(event, ctx)`, `run(ctx)`, `resolve(ctx)` and `render(ctx)` positionally. A function
that cannot take those arguments would fail at every call with a TypeError the
author never sees at build time, so the build says so, with the signature to write.

`define_tool(descripton=...)` never returns: Python raises a TypeError inside the
author's module. `find_unknown_argument` turns that into a did-you-mean.
"""

from __future__ import annotations

import difflib
import inspect
import re
from collections.abc import Callable
from typing import Any

from eve_build.diagnostics import Diagnostic
from eve_build.sdk.definitions import Channel, Dynamic, Hook, Instructions, Schedule, Tool

# definition type -> (attribute, arguments the host passes, the signature to write)
HOST_CALLS: dict[type, tuple[str, int, str]] = {
    Tool: ("execute", 2, "def run(input, ctx): ..."),
    Channel: ("handle", 2, "def handle(request, ctx): ..."),
    Schedule: ("run", 1, "def run(ctx): ..."),
    Dynamic: ("resolve", 1, "def resolve(ctx): ..."),
    Instructions: ("render", 1, "def render(ctx) -> str: ..."),
}
_UNEXPECTED = re.compile(r"^(?P<function>define_\w+)\(\) got an unexpected keyword argument "
                         r"'(?P<argument>\w+)'")


def find_signature_problems(definition: object, where: Any) -> list[Diagnostic]:
    """An error for each callable of `definition` the host could not call as documented.

    `where` is a `checks.Where` (file and line of the definition)."""
    if isinstance(definition, Hook):
        return [problem for name, handler in sorted((definition.events or {}).items())
                if (problem := _check(handler, 2, f"the `{name}` handler",
                                      "def handler(event, ctx): ...", where)) is not None]
    call = HOST_CALLS.get(type(definition))
    if call is None:
        return []
    attribute, count, signature = call
    function = getattr(definition, attribute, None)
    problem = _check(function, count, f"`{attribute}`", signature, where)
    return [problem] if problem is not None else []


def _check(function: object, count: int, what: str, signature: str,
           where: Any) -> Diagnostic | None:
    if not callable(function):
        return None  # the kind's own check reports a missing callable
    try:
        parameters = inspect.signature(function)
    except (TypeError, ValueError):  # builtins and C callables: nothing to inspect
        return None
    try:
        parameters.bind(*([None] * count))
    except TypeError:
        arguments = "one argument" if count == 1 else f"{count} arguments"
        shown = _name(function)
        return where.error(  # type: ignore[no-any-return]
            "definition/signature-invalid",
            f"{what} (`{shown}{parameters}`) cannot be called with the {arguments} the host "
            "passes",
            f"define it as `{signature}` (an argument you do not use may be named `_`)",
        )
    return None


def _name(function: Callable[..., Any] | object) -> str:
    return str(getattr(function, "__name__", type(function).__name__))


def find_unknown_argument(exc: BaseException) -> tuple[str, str] | None:
    """For `define_tool() got an unexpected keyword argument 'descripton'`: the message
    and a did-you-mean hint; None for any other exception."""
    if not isinstance(exc, TypeError):
        return None
    found = _UNEXPECTED.match(str(exc))
    if found is None:
        return None
    import eve_build.sdk as sdk

    function = getattr(sdk, found["function"], None)
    if function is None:
        return None
    accepted = list(inspect.signature(function).parameters)
    argument = found["argument"]
    close = difflib.get_close_matches(argument, accepted, n=1)
    message = f"`{found['function']}()` has no argument `{argument}`"
    listed = ", ".join(f"`{name}`" for name in accepted)
    hint = (f"did you mean `{close[0]}`? ({found['function']} takes {listed})" if close
            else f"{found['function']} takes {listed}")
    return message, hint
