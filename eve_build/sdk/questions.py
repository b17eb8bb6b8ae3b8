"""What `ctx.ask(message, schema=Model)` may ask, and how an answer is checked.

A question's schema is a flat pydantic model: each field a `str`, `int`, `float`,
`bool`, an `Enum` of strings or numbers, a `Literal[...]` of those, or an optional
(`X | None`) of one of them; defaults and descriptions are kept. That is what every
surface can ask: a terminal prompt per field, `--answer field=value`, a form over HTTP,
MCP elicitation (whose requested schema is exactly such a flat object).

    problems = find_schema_problems(Model)      # [] or the reasons, one per field
    schema = flat_schema(Model)                  # the JSON Schema every answerer reads
    values, errors = check_answer(schema, {"name": "Ada"})   # any surface, no class needed

`check_answer` works from the JSON Schema alone (it rebuilds a validator from it), so a
process that did not ask (another `eve serve` worker) checks an answer the same way.

Layer 1 (foundation): pydantic is imported inside the functions that need it.
"""

from __future__ import annotations

import enum
import types
import typing
from collections.abc import Mapping, Sequence
from typing import Any

SIMPLE_TYPES: dict[type, str] = {str: "string", int: "integer", float: "number",
                                 bool: "boolean"}
"""The Python types a question's field may have, with their JSON Schema type."""
ALLOWED = ("str, int, float, bool, an Enum or Literal of strings or numbers, a list of "
           "such choices (several may be picked), or an optional (`X | None`) of one of them")


def find_schema_problems(schema: object) -> list[str]:
    """Why `schema` cannot be asked (one reason per bad field); [] when it can."""
    from pydantic import BaseModel

    if not (isinstance(schema, type) and issubclass(schema, BaseModel)):
        shown = schema.__name__ if isinstance(schema, type) else type(schema).__name__
        return [f"`schema` must be a pydantic model class, not `{shown}`"]
    problems = []
    for name, info in schema.model_fields.items():
        reason = _field_problem(info.annotation)
        if reason is None and info.annotation == list[str] and not _titled_items(info):
            reason = ("`list[str]` without choices (give them: `list[Literal[...]]`, or "
                      "`json_schema_extra={\"items\": {\"anyOf\": [{\"const\": ...}]}}`)")
        if reason is not None:
            problems.append(f"the field `{name}` of `{schema.__name__}` is {reason}; a "
                            f"question's fields are {ALLOWED}")
    if not schema.model_fields:
        problems.append(f"`{schema.__name__}` has no fields to ask for")
    return problems


def _titled_items(info: Any) -> bool:
    """Whether a `list[str]` field names its choices in `json_schema_extra`'s `items`."""
    extra = info.json_schema_extra if isinstance(info.json_schema_extra, dict) else {}
    items = extra.get("items")
    return isinstance(items, dict) and bool(items.get("enum") or items.get("anyOf"))


def _field_problem(annotation: Any) -> str | None:
    """None when the annotation can be asked, else what it is."""
    origin = typing.get_origin(annotation)
    if origin is typing.Union or origin is types.UnionType:
        members = [a for a in typing.get_args(annotation) if a is not type(None)]
        if len(members) != 1 or len(members) == len(typing.get_args(annotation)):
            return f"a union (`{_show(annotation)}`)"
        return _field_problem(members[0])
    if origin is list:  # a multiple choice: list[Literal[...]], list[SomeEnum], list[str]
        (item,) = typing.get_args(annotation) or (Any,)
        if item is str or (typing.get_origin(item) is typing.Literal
                           or (isinstance(item, type) and issubclass(item, enum.Enum))):
            return _field_problem(item)
        return f"a list of something other than choices (`{_show(annotation)}`)"
    if origin is typing.Literal:
        values = typing.get_args(annotation)
        if all(isinstance(v, str | int | float) and not isinstance(v, bool) for v in values):
            return None
        return f"a Literal of other values (`{_show(annotation)}`)"
    if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        members = [m.value for m in annotation]
        if members and all(isinstance(v, str | int | float) and not isinstance(v, bool)
                           for v in members):
            return None
        return f"an Enum whose values are not all strings or numbers (`{annotation.__name__}`)"
    if annotation in SIMPLE_TYPES:
        return None
    from pydantic import BaseModel

    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return f"a nested model (`{annotation.__name__}`)"
    return f"`{_show(annotation)}`"


def _show(annotation: Any) -> str:
    if isinstance(annotation, type):
        return annotation.__name__
    return str(annotation).replace("typing.", "")


def flat_schema(schema: Any) -> dict[str, Any]:
    """The question's JSON Schema: one flat object (no `$ref`, no `anyOf`), each property
    with its `type`, and `title`, `description`, `default`, `enum` and the bounds MCP's
    elicitation schemas know (`minimum`, `maximum`, `minLength`, `maxLength`, `format`)
    when it has them."""
    import warnings

    from pydantic.json_schema import PydanticJsonSchemaWarning

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PydanticJsonSchemaWarning)
        full = schema.model_json_schema()
    defs = full.get("$defs", {})
    properties: dict[str, Any] = {}
    for name, given in full.get("properties", {}).items():
        prop = dict(given)
        if "$ref" in prop:  # an Enum: its values inline
            prop = {**defs[prop.pop("$ref").rsplit("/", 1)[-1]], **prop}
        if "anyOf" in prop:  # X | None: X, not required
            kept = [p for p in prop.pop("anyOf") if p.get("type") != "null"]
            inner = dict(kept[0])
            if "$ref" in inner:
                inner = dict(defs[inner.pop("$ref").rsplit("/", 1)[-1]])
            prop = {**inner, **prop}
        if "enum" in prop and "type" not in prop:
            prop["type"] = "number" if any(isinstance(v, float) for v in prop["enum"]) \
                else "integer" if all(isinstance(v, int) for v in prop["enum"]) else "string"
        if prop.get("type") == "array" and isinstance(prop.get("items"), dict):
            items = dict(prop["items"])
            if "$ref" in items:
                items = dict(defs[items.pop("$ref").rsplit("/", 1)[-1]])
            prop["items"] = {key: items[key] for key in ("type", "enum", "anyOf")
                             if key in items}
        kept_keys = ("type", "title", "description", "default", "enum", "minimum", "maximum",
                     "minLength", "maxLength", "format", "oneOf", "enumNames", "items",
                     "minItems", "maxItems")
        properties[name] = {key: prop[key] for key in kept_keys if key in prop}
        if schema.model_fields[name].description is None:
            properties[name].pop("description", None)
    required = [n for n, f in schema.model_fields.items() if f.is_required()]
    return {"type": "object", "title": full.get("title", schema.__name__),
            "properties": properties, "required": required}


def describe_fields(schema: Mapping[str, Any]) -> list[str]:
    """`name (type, required)` for each field: how an error names what is asked."""
    required = set(schema.get("required", ()))
    shown = []
    for name, prop in schema.get("properties", {}).items():
        choices = _choices(prop)
        items = _choices(prop.get("items") or {})
        kind = "one of " + "|".join(str(v) for v in choices) if choices \
            else "some of " + "|".join(str(v) for v in items) + ", comma-separated" if items \
            else prop.get("type", "string")
        shown.append(f"`{name}` ({kind}{', required' if name in required else ''})")
    return shown


def answer_model(schema: Mapping[str, Any]) -> Any:
    """A pydantic model (extra fields forbidden) rebuilt from a flat question schema."""
    from pydantic import ConfigDict, Field, create_model

    python = {"string": str, "integer": int, "number": float, "boolean": bool}
    required = set(schema.get("required", ()))
    fields: dict[str, Any] = {}
    for name, prop in schema.get("properties", {}).items():
        kind: Any = python.get(str(prop.get("type")), str)
        choices = _choices(prop)
        if choices:
            kind = typing.Literal[tuple(choices)]
        if prop.get("type") == "array":
            item_choices = _choices(prop.get("items") or {})
            item: Any = typing.Literal[tuple(item_choices)] if item_choices else str
            kind = list[item]
        if name in required:
            fields[name] = (kind, Field(...))
        else:
            fields[name] = (kind | None, Field(prop.get("default")))
    return create_model("Answer", __config__=ConfigDict(extra="forbid"), **fields)


def _choices(prop: Mapping[str, Any]) -> list[Any]:
    """The values a property allows: `enum`, or the `const`s of a titled `oneOf`/`anyOf`."""
    if "enum" in prop:
        return list(prop["enum"])
    titled = prop.get("oneOf") or prop.get("anyOf") or ()
    return [option["const"] for option in titled if isinstance(option, dict)
            and "const" in option]


def check_answer(schema: Mapping[str, Any], given: Mapping[str, Any]
                 ) -> tuple[dict[str, Any], list[dict[str, str]]]:
    """(the answer's fields, []) when `given` fits `schema`, else ({}, the errors as
    {"field", "message"}); values as JSON gives them (`"3"` is taken for an integer)."""
    from pydantic import ValidationError

    given = dict(given)
    for name, prop in schema.get("properties", {}).items():
        if prop.get("type") == "array" and isinstance(given.get(name), str):
            given[name] = [v.strip() for v in given[name].split(",") if v.strip()]  # a,b
    try:
        model = answer_model(schema).model_validate(given)
    except ValidationError as exc:
        return {}, [{"field": ".".join(str(p) for p in e["loc"]) or "(answer)",
                     "message": e["msg"]} for e in exc.errors(include_url=False,
                                                              include_input=False)]
    return model.model_dump(mode="json"), []


def parse_answers(pairs: Sequence[str]) -> tuple[dict[str, str], list[str]]:
    """`field=value` texts (`--answer`) as a mapping, and the texts that are not pairs."""
    answers: dict[str, str] = {}
    bad: list[str] = []
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name.strip():
            bad.append(pair)
        else:
            answers[name.strip()] = value
    return answers, bad


def describe_errors(errors: Sequence[Mapping[str, str]]) -> str:
    return "; ".join(f"`{e['field']}`: {e['message']}" for e in errors)
