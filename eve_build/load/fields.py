"""Problems in a pydantic model's fields, reported at the field's own line.

- A field type that names something undefined (`city: strr` under
  `from __future__ import annotations`) is an error at that field, with a
  did-you-mean for the unknown name, instead of pydantic's "not fully defined"
  text at the `define_tool` line.
- A default that does not validate against its own field (`units: int = "metric"`)
  is a warning: pydantic does not validate defaults, so the mistake would surface
  only when a caller leaves the field out.
- A default with no JSON form (`object()`, a module, `b"\\xff"`) is a warning
  (`model/default-not-json`): the manifest's schema leaves it out (pydantic's own
  warning, which names a site-packages file, is not printed), so consumers see no
  default although the runtime has one.
"""

from __future__ import annotations

import ast
import builtins
import contextlib
import difflib
import inspect
import json
import sys
import textwrap
from pathlib import Path
from typing import Annotated, Any

from pydantic import BaseModel, PydanticUndefinedAnnotation, TypeAdapter, ValidationError
from pydantic_core import PydanticUndefined

from eve_build.diagnostics import Diagnostic, error, warning
from eve_build.secret_fields import is_secret_field


def find_undefined_name(model: type[BaseModel], file: str, fallback: int | None,
                        code: str) -> Diagnostic | None:
    """An error when a field type names something undefined; None when the model is whole."""
    try:
        model.model_rebuild()
    except PydanticUndefinedAnnotation as exc:
        name = exc.name or ""
    else:
        return None
    field, line = _locate(model, file, lambda node: _mentions(node.annotation, name))
    module = sys.modules.get(model.__module__)
    known = [*dir(builtins), *(vars(module) if module else {})]
    close = difflib.get_close_matches(name, known, n=1)
    hint = (f"did you mean `{close[0]}`?" if close
            else f"import `{name}` or define it before `{model.__name__}`")
    where = f"field `{field}` of `{model.__name__}`" if field else f"`{model.__name__}`"
    return error(code, file, f"the type of {where} names `{name}`, which is not defined", hint,
                 line=line or fallback)


def find_invalid_defaults(model: type[BaseModel], file: str, fallback: int | None,
                          code: str) -> list[Diagnostic]:
    """A warning for each field whose default does not validate against the field."""
    found: list[Diagnostic] = []
    for name, info in model.model_fields.items():
        if info.default is PydanticUndefined or info.default_factory is not None:
            continue
        annotation: Any = info.annotation
        if info.metadata:
            annotation = Annotated[(annotation, *info.metadata)]
        try:
            _adapter(annotation).validate_python(info.default, strict=False)
        except ValidationError as exc:
            reason = exc.errors()[0]["msg"] if exc.errors() else str(exc)
            if is_secret_field(model, name):  # a validator's message may echo the value
                reason = f"{exc.errors()[0]['type'] if exc.errors() else 'invalid'} (the " \
                    "message is not shown: the field holds a secret)"
            _, line = _locate(model, file, lambda node, field=name: _target(node) == field)
            found.append(warning(
                code, file, f"the default of field `{name}` of `{model.__name__}` does not "
                f"validate against the field: {reason}",
                "change the default or the field type: a call that leaves the field out "
                "gets this value unchecked", line=line or fallback))
        except Exception:  # a type TypeAdapter cannot build: the schema check reports it
            continue
        if not _has_json_form(info.default):
            _, line = _locate(model, file, lambda node, field=name: _target(node) == field)
            found.append(warning(
                "model/default-not-json", file, f"the default of field `{name}` of "
                f"`{model.__name__}` is a `{type(info.default).__name__}`, which has no JSON "
                "form, so the manifest's schema shows no default for it",
                "use a JSON value (text, a number, a boolean, a list or a dict) as the "
                "default, or `Field(default_factory=...)`", line=line or fallback))
    return found


_ADAPTERS: dict[Any, TypeAdapter[Any]] = {}


def _adapter(annotation: Any) -> TypeAdapter[Any]:
    """One TypeAdapter per annotation in a worker (1000 tools' `limit: int = 5`: one)."""
    try:
        adapter = _ADAPTERS.get(annotation)
    except TypeError:  # an unhashable annotation (Annotated with a dict in its metadata)
        return TypeAdapter(annotation)
    if adapter is None:
        adapter = _ADAPTERS[annotation] = TypeAdapter(annotation)
    return adapter


def _has_json_form(value: object) -> bool:
    from pydantic_core import to_jsonable_python

    try:
        json.dumps(to_jsonable_python(value), allow_nan=False)
    except Exception:  # PydanticSerializationError, TypeError, ValueError, RecursionError
        return False
    return True


def _locate(model: type[BaseModel], file: str, match: Any) -> tuple[str | None, int | None]:
    """The first annotated field of the model's class body that `match`es, and its line,
    when the model is defined in `file` (a path relative to the project root)."""
    try:
        source_file = inspect.getsourcefile(model)
        lines, start = inspect.getsourcelines(model)
    except (OSError, TypeError):
        return None, None
    if source_file is None or not Path(source_file).as_posix().endswith(file):
        return None, None
    try:
        tree = ast.parse(textwrap.dedent("".join(lines)))
    except SyntaxError:
        return None, None
    body = tree.body[0].body if tree.body and isinstance(tree.body[0], ast.ClassDef) else []
    for node in body:
        if isinstance(node, ast.AnnAssign) and match(node):
            return _target(node), start + node.lineno - 1
    return None, None


def _target(node: ast.AnnAssign) -> str | None:
    return node.target.id if isinstance(node.target, ast.Name) else None


def _mentions(annotation: ast.expr, name: str) -> bool:
    text = ast.unparse(annotation)
    if text[:1] in ("'", '"'):  # a string annotation: look inside it
        with contextlib.suppress(ValueError, SyntaxError):
            annotation = ast.parse(ast.literal_eval(text), mode="eval").body
    return any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(annotation))
