"""The mount factory's `.pyi`: the config model's real annotations, for editors and mypy.

Enums become `Literal`s of their values (what a mount call passes), nested models
become `TypedDict`s declared in the stub, optionals, lists, tuples, sets and dicts keep
their shape. Each top-level parameter also accepts `Env` (an `env("NAME")` reference).
A type the stub cannot spell (a custom class, a constrained type it does not know)
becomes `Any`, never a wrong type.
"""

from __future__ import annotations

import enum
import types
import typing
from typing import Any

from pydantic import BaseModel

_NAMED = {str: "str", int: "int", float: "float", bool: "bool", bytes: "bytes",
          type(None): "None"}
_CONTAINERS = {list: "list", set: "set", frozenset: "frozenset", dict: "dict", tuple: "tuple"}


class StubWriter:
    """Spells annotations, collecting the TypedDicts that nested models need."""

    def __init__(self) -> None:
        self.typed_dicts: dict[str, str] = {}  # name -> class text, in dependency order

    def spell(self, annotation: Any) -> str:
        origin = typing.get_origin(annotation)
        args = typing.get_args(annotation)
        if annotation in _NAMED:
            return _NAMED[annotation]
        if annotation is Any or annotation is object:
            return "Any"
        if origin is typing.Annotated:
            return self.spell(args[0])
        if origin is typing.Literal:
            return f"Literal[{', '.join(repr(a) for a in args)}]"
        if origin in (typing.Union, types.UnionType):
            return " | ".join(dict.fromkeys(self.spell(a) for a in args))
        if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
            values = [member.value for member in annotation]
            if all(isinstance(v, str | int | bool) for v in values):
                return f"Literal[{', '.join(repr(v) for v in values)}]"
            return "Any"
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            return self._typed_dict(annotation)
        if origin in _CONTAINERS and args:
            inner = ", ".join("..." if a is Ellipsis else self.spell(a) for a in args)
            return f"{_CONTAINERS[origin]}[{inner}]"
        if annotation in _CONTAINERS:
            return f"{_CONTAINERS[annotation]}[Any]" if annotation is not dict \
                else "dict[str, Any]"
        return "Any"

    def _typed_dict(self, model: type[BaseModel]) -> str:
        name = model.__name__
        if name in self.typed_dicts:
            return name
        self.typed_dicts[name] = ""  # reserved first: a model may refer to itself
        lines = [f"class {name}(TypedDict):"]
        for field_name, info in model.model_fields.items():
            key = info.alias or field_name
            if not key.isidentifier():
                del self.typed_dicts[name]
                return "dict[str, Any]"
            spelled = self.spell(info.annotation)
            lines.append(f"    {key}: {spelled}" if info.is_required()
                         else f"    {key}: NotRequired[{spelled}]")
        if len(lines) == 1:
            lines.append("    pass")
        self.typed_dicts[name] = "\n".join(lines)
        return name


def derive_stub_parameters(model: Any, writer: StubWriter) -> str:
    """`*, api_key: str | Env, region: Literal['eu', 'us'] | Env = ...`, or "" without config."""
    if model is None:
        return ""
    if not (isinstance(model, type) and issubclass(model, BaseModel)):
        return "**config: Any"
    required: list[str] = []
    optional: list[str] = []
    for name, info in model.model_fields.items():
        keyword = info.alias or name
        if not keyword.isidentifier():
            return "**config: Any"
        annotation = f"{writer.spell(info.annotation)} | Env"
        if info.is_required():
            required.append(f"{keyword}: {annotation}")
        else:
            optional.append(f"{keyword}: {annotation} = ...")
    return ", ".join(["*", *required, *optional]) if required or optional else ""


def derive_stub_parts(config_model: Any) -> tuple[str, str]:
    """The factory's parameters and the TypedDict classes they need, as text (JSON-safe:
    a build worker derives them and the parent process renders the stub)."""
    writer = StubWriter()
    params = derive_stub_parameters(config_model, writer)
    classes = "".join(f"{text}\n\n" for text in writer.typed_dicts.values() if text)
    return params, classes


def render_factory_stub(import_name: str, config_model: Any, header: str) -> str:
    """The whole `__init__.pyi` of the generated package."""
    from eve_build.output.generate import render_stub  # (workers need none of generate)

    return render_stub(import_name, *derive_stub_parts(config_model), header)
