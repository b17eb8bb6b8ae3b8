"""Per-kind checks of loaded definitions, each returning a manifest record.

A check gets the definition and a `Where` (file and line for messages) and
returns the JSON record the manifest lists, plus diagnostics. None of them
raise for a user mistake.
"""

from __future__ import annotations

import inspect
import json
import typing
import warnings
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel
from pydantic.json_schema import PydanticJsonSchemaWarning

from eve_build.cron import find_cron_problems
from eve_build.diagnostics import Diagnostic
from eve_build.errors import describe_message
from eve_build.load.signatures import find_signature_problems
from eve_build.load.tool_prompt import find_prompt_problems
from eve_build.load.where import Where as Where
from eve_build.sdk.approval import Approval
from eve_build.sdk.definitions import (
    Agent,
    Channel,
    Connection,
    Dynamic,
    Extension,
    Hook,
    Instructions,
    Schedule,
    Tool,
)
from eve_build.sdk.env import Env, serialize_deferred
from eve_build.sdk.hooks import ALL_EVENTS, KNOWN_EVENTS
from eve_build.secret_fields import describe_given

HTTP_METHODS = ("DELETE", "GET", "HEAD", "OPTIONS", "PATCH", "POST", "PUT")
CONNECTION_KINDS = ("mcp", "openapi")
Record = dict[str, Any]


def is_model(value: object) -> bool:
    return isinstance(value, type) and issubclass(value, BaseModel)


def _schema(model: type[BaseModel], where: Where, code: str, what: str) -> tuple[Record, list[
    Diagnostic
]]:
    from eve_build.load.fields import find_invalid_defaults, find_undefined_name

    undefined = find_undefined_name(model, where.file, None, "model/name-undefined")
    if undefined is not None:
        return {}, where.placed([undefined])
    try:
        with warnings.catch_warnings():  # a default with no JSON form: our own warning says so
            warnings.simplefilter("ignore", PydanticJsonSchemaWarning)
            schema = model.model_json_schema()
    except Exception as exc:
        return {}, [where.error(code, f"the {what} `{model.__name__}` has no JSON Schema: "
                                f"{describe_message(exc, 300)}",
                                "use field types pydantic can describe in JSON Schema")]
    try:  # json_schema_extra may hold anything: objects, sets, NaN
        json.dumps(schema, allow_nan=False)
    except (TypeError, ValueError, RecursionError) as exc:
        return {}, [where.error(code, f"the JSON Schema of the {what} `{model.__name__}` is not "
                                f"JSON: {describe_message(exc, 200)}",
                                "keep `json_schema_extra` to JSON values (no objects, sets or "
                                "NaN)")]
    return schema, where.placed(
        find_invalid_defaults(model, where.file, None, "model/default-invalid"))


def find_async_validators(model: type[BaseModel], seen: set[type] | None = None) -> list[str]:
    """Names of async validators on the model or any model it nests."""
    seen = seen if seen is not None else set()
    if model in seen:
        return []
    seen.add(model)
    decorators = model.__pydantic_decorators__
    found = [
        f"{model.__name__}.{name}"
        for group in (decorators.field_validators, decorators.model_validators)
        for name, dec in group.items()
        if inspect.iscoroutinefunction(dec.func)
    ]
    for info in model.model_fields.values():
        for nested in _models_in(info.annotation):
            found.extend(find_async_validators(nested, seen))
    return found


def _models_in(annotation: object) -> list[type[BaseModel]]:
    """Models an annotation refers to, also inside `list[M]`, `M | None`, `dict[str, M]`."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    return [m for arg in typing.get_args(annotation) for m in _models_in(arg)]


def check_extension(value: Extension, where: Where) -> tuple[Record | None, list[Diagnostic]]:
    """The config schema (None without config), or diagnostics."""
    model = value.config_model
    if model is None:
        return None, []
    if not is_model(model):
        return None, [where.error(
            "config/not-a-model",
            f"`define_extension(config=...)` got {describe_given(model)}, not a pydantic "
            "model class",
            "declare `class Config(pydantic.BaseModel): ...` and pass the class itself: "
            "`config=Config`, not `config=Config()`",
        )]
    assert isinstance(model, type) and issubclass(model, BaseModel)
    asyncs = find_async_validators(model)
    if asyncs:
        return None, [Where(where.file, None).error(
            "config/async-validator",
            f"the config model has async validators ({', '.join(asyncs)}); config must "
            "validate synchronously",
            "make the validators plain `def` functions, and do I/O in tools instead",
        )]
    return _schema(model, where, "config/schema-failed", "config model")


def check_tool(value: Tool | Dynamic, where: Where) -> tuple[Record, list[Diagnostic]]:
    if isinstance(value, Dynamic):
        return {"dynamic": True}, _dynamic_problems(value, where)
    found: list[Diagnostic] = []
    if not isinstance(value.description, str) or not value.description.strip():
        found.append(where.error("tool/description-missing", "the tool has no description",
                                 'pass `description="..."` to define_tool(): the model reads '
                                 "it to decide when to call the tool"))
    record: Record = {"description": value.description or "", "dynamic": False}
    if not is_model(value.input):
        found.append(where.error(
            "tool/input-missing", "the tool has no input model" if value.input is None
            else f"the tool's input ({describe_given(value.input)}) is not a pydantic model "
            "class",
            "declare `class Input(pydantic.BaseModel): ...` and pass `input=Input`",
        ))
    else:
        assert value.input is not None
        record["inputSchema"], problems = _schema(value.input, where, "tool/schema-failed",
                                                  "input model")
        found.extend(problems)
    if value.output is not None:
        if is_model(value.output):
            record["outputSchema"], problems = _schema(value.output, where,
                                                       "tool/schema-failed", "output model")
            found.extend(problems)
        else:
            found.append(where.error(
                "tool/output-invalid", f"the tool's output ({describe_given(value.output)}) "
                "is not a pydantic model class", "pass a BaseModel subclass, or leave `output` "
                "out"))
    if not callable(value.execute):
        found.append(where.error("tool/execute-missing", "the tool has no callable `execute`",
                                 "pass `execute=run` where `def run(input, ctx): ...`"))
    approval: object = value.approval
    if approval is not None and not isinstance(approval, Approval):
        found.append(where.error("tool/approval-invalid",
                                 f"approval ({describe_given(value.approval)}) is not a policy",
                                 "use always(), once() or never() from "
                                 "eve_build.sdk.approval"))
    record["approval"] = value.approval.policy if isinstance(value.approval, Approval) else None
    record["deferred"] = bool(value.deferred)
    record["availableInSubagents"] = bool(value.available_in_subagents)
    found.extend(find_prompt_problems(value, where))
    return record, found


def _dynamic_problems(value: Dynamic, where: Where) -> list[Diagnostic]:
    if callable(value.resolve):
        return []
    return [where.error("dynamic/resolve-missing", "define_dynamic() has no callable `resolve`",
                        "pass `resolve=fn` where `def fn(ctx): return define_tool(...)`")]


def check_channel(value: Channel, where: Where) -> tuple[Record, list[Diagnostic]]:
    found: list[Diagnostic] = []
    route = value.route
    if not isinstance(route, str) or not route.startswith("/"):
        found.append(where.error(
            "channel/route-invalid", f"the channel route {route!r} does not start with `/`",
            f'write the route as a path: `route="/{str(route or "").lstrip("/")}"`',
        ))
    method = str(value.method).upper()
    if method not in HTTP_METHODS:
        found.append(where.error("channel/method-invalid",
                                 f"the channel method {value.method!r} is not an HTTP method",
                                 f"use one of {', '.join(HTTP_METHODS)}"))
    if not callable(value.handle):
        found.append(where.error("channel/handle-missing", "the channel has no callable `handle`",
                                 "pass `handle=fn` where `def fn(request, ctx): ...`"))
    return {"route": route, "method": method}, found


def check_connection(value: Connection | Dynamic, where: Where) -> tuple[Record, list[
    Diagnostic
]]:
    if isinstance(value, Dynamic):
        return {"dynamic": True}, _dynamic_problems(value, where)
    found: list[Diagnostic] = []
    if value.url is None or value.url == "":
        found.append(where.error("connection/url-missing", "the connection has no url",
                                 'pass `url="https://..."` (or `url=env("NAME")`)'))
    if value.kind not in CONNECTION_KINDS:
        found.append(where.error("connection/kind-invalid",
                                 f"the connection kind {value.kind!r} is not known",
                                 f"use one of {', '.join(CONNECTION_KINDS)}"))
    raw_headers: object = value.headers
    if raw_headers is not None and not isinstance(raw_headers, Mapping):
        found.append(where.error("connection/headers-invalid",
                                 f"the connection headers are {type(raw_headers).__name__}, not "
                                 "a mapping of header names to values",
                                 'pass `headers={"Authorization": env("TOKEN")}`'))
        raw_headers = None
    headers = sorted(str(k) for k in (raw_headers or {}))
    record: Record = {"dynamic": False, "kind": value.kind,
                      "url": serialize_deferred(value.url), "headers": headers}
    variables = sorted({v.name for v in (raw_headers or {}).values() if isinstance(v, Env)})
    if variables:  # names only, never values: what a consumer must set (`eve add` says)
        record["headerEnv"] = variables
    return record, found


def check_schedule(value: Schedule, where: Where) -> tuple[Record, list[Diagnostic]]:
    found: list[Diagnostic] = []
    if (value.run is None) == (value.markdown is None):
        both = value.run is not None
        found.append(where.error(
            "schedule/run-or-markdown",
            "the schedule has both `run` and `markdown`" if both
            else "the schedule has neither `run` nor `markdown`",
            "give exactly one: `run=fn` to run code, or `markdown=\"...\"` to prompt the agent",
        ))
    found.extend(
        where.error("schedule/cron-invalid", f"invalid cron: {problem}",
                    'write 5 fields that can all happen, e.g. `cron="*/15 * * * *"` (every '
                    '15 minutes), or a macro such as `cron="@hourly"`')
        for problem in find_cron_problems(value.cron)
    )
    mode = "run" if value.run is not None else "markdown"
    return {"cron": value.cron, "mode": mode}, found


def check_hook(value: Hook, where: Where) -> tuple[Record, list[Diagnostic]]:
    found: list[Diagnostic] = []
    events = dict(value.events or {})
    if not events:
        found.append(where.error("hook/events-invalid", "the hook handles no events",
                                 'pass `events={"action.call": handler}`'))
    handlers: dict[str, object] = dict(events)
    for name, handler in handlers.items():
        if name != ALL_EVENTS and name not in KNOWN_EVENTS:
            found.append(where.error("hook/events-invalid", f"unknown hook event `{name}`",
                                     f"use `*` or one of {', '.join(KNOWN_EVENTS)}"))
        if not callable(handler):
            found.append(where.error("hook/events-invalid",
                                     f"the handler for `{name}` is not callable",
                                     "pass a function `handler(event, ctx)`"))
    return {"events": sorted(str(k) for k in events)}, found


def check_agent(value: Agent, where: Where) -> tuple[Record, list[Diagnostic]]:
    found: list[Diagnostic] = []
    if not isinstance(value.description, str) or not value.description.strip():
        found.append(where.error("subagent/description-missing", "the subagent has no description",
                                 'pass `description="..."` to define_agent(): the parent agent '
                                 "reads it to decide when to delegate"))
    return {"description": value.description or "", "model": value.model}, found


def check_instructions(value: Instructions, where: Where) -> list[Diagnostic]:
    if callable(value.render):
        return find_signature_problems(value, where)
    return [where.error("instructions/render-missing",
                        "define_instructions() has no callable `render`",
                        "pass `render=fn` where `def fn(ctx) -> str`")]
