"""The `describe` result of a node, checked against the protocol (docs/protocol.md).

A node is someone else's process: whatever it answers is validated here, with
pydantic, before the host builds a single proxy from it. A description that does
not fit (`"inputSchema": true`, a tool without a name, a timeout of `NaN`) drops
only that node, with a diagnostic naming the field; every other node and the agent
load as before.

    description = parse_description(result)   # a dict the client can trust
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from eve_build.node import protocol

TIMEOUT_LIMIT = 1_000_000.0
"""The longest tool timeout a node may ask for (seconds, about 11 days)."""
SHOWN_LIMIT = 80
"""How much of a bad value's location a diagnostic quotes."""

Text = Annotated[str, Field(strict=True)]
Timeout = Annotated[float, Field(gt=0, le=TIMEOUT_LIMIT, allow_inf_nan=False)]


class _Part(BaseModel):
    model_config = ConfigDict(extra="ignore", populate_by_name=True, strict=True)


class ToolDescription(_Part):
    name: Text
    description: Text = ""
    input_schema: dict[str, Any] = Field(default_factory=dict, alias="inputSchema")
    timeout: Timeout | None = None


class CommandDescription(_Part):
    name: Text
    description: Text | None = ""
    arg_hint: Text | None = Field(default=None, alias="argHint")


class Description(_Part):
    protocol: Literal[1]
    name: Text = ""
    tools: list[ToolDescription]
    commands: list[CommandDescription]
    guidelines: list[Text]
    hooks: list[Text]
    events: list[Text]


class DescriptionError(ValueError):
    """The node's `describe` result does not fit the protocol; the message says where."""


def parse_description(result: Any) -> dict[str, Any]:
    """The checked description as the dict the host uses (protocol field names)."""
    if not isinstance(result, dict):
        raise DescriptionError(f"{type(result).__name__}, not an object")
    if result.get("protocol") != protocol.PROTOCOL_VERSION:
        raise DescriptionError(f"protocol {_short(repr(result.get('protocol')))}; this host "
                               f"speaks {protocol.PROTOCOL_VERSION}")
    try:
        checked = Description.model_validate(result)
    except ValidationError as exc:
        raise DescriptionError(describe_errors(exc)) from None
    return checked.model_dump(by_alias=True)


def describe_errors(exc: ValidationError) -> str:
    """`tools[0].inputSchema`: the first problem, and how many more there are."""
    errors = exc.errors(include_input=False, include_url=False)
    first = errors[0]
    where = "".join(f"[{part}]" if isinstance(part, int) else f".{part}"
                    for part in first["loc"]).lstrip(".")
    what = f"no `{where}`" if first["type"] == "missing" else (
        f"`{_short(where)}`: {first['msg'][:200]}")
    more = len(errors) - 1
    return what + (f" (and {more} more problem{'s' if more > 1 else ''})" if more else "")


def _short(text: str) -> str:
    return text if len(text) <= SHOWN_LIMIT else text[:SHOWN_LIMIT] + "..."
