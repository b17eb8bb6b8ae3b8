"""`ctx.ask(..., schema=Model)` calls checked at build time (docs/decisions.md, "What
`ctx.ask` may ask, refused at build time").

The build has imported the module, so the schema a call names is resolved against the
module's own names: every `<anything>.ask(message, schema=X)` (or `ask(message, X)`)
in the module's source where `X` is a module-level name (or `name.attribute`, e.g. a
model of an imported module) bound to a class is checked like `ctx.ask` checks it at
call time (eve_build.sdk.questions). A schema the source does not name that way (a
variable, a class made inside a function) is checked when the call runs, which stays
the backstop for every call.
"""

from __future__ import annotations

import ast
import inspect
import types

from eve_build.diagnostics import Diagnostic, error
from eve_build.sdk.questions import find_schema_problems

CODE = "tool/ask-schema-invalid"
_MISSING = object()


def find_ask_problems(module: types.ModuleType, file: str) -> list[Diagnostic]:
    """A diagnostic per `ask` call whose named schema cannot be asked."""
    try:
        source = inspect.getsource(module)
    except (OSError, TypeError):  # no source to read (a compiled module): the call checks
        return []
    try:
        tree = ast.parse(source)
    except SyntaxError:  # pragma: no cover - the module was imported, so it parses
        return []
    found: list[Diagnostic] = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr == "ask"):
            continue
        given = next((k.value for k in node.keywords if k.arg == "schema"),
                     node.args[1] if len(node.args) > 1 else None)
        schema = _resolve(module, given)
        if not isinstance(schema, type):
            continue
        found.extend(error(CODE, file, f"`ctx.ask` cannot ask with this schema: {problem}",
                           "declare a flat pydantic model: fields of str, int, float, bool, "
                           "an Enum or Literal, or optional ones", line=node.lineno)
                     for problem in find_schema_problems(schema))
    return found


def _resolve(module: types.ModuleType, node: ast.expr | None) -> object:
    """The module-level value `node` names (`Model`, `models.Model`), else _MISSING."""
    if isinstance(node, ast.Name):
        return getattr(module, node.id, _MISSING)
    if isinstance(node, ast.Attribute):
        owner = _resolve(module, node.value)
        return _MISSING if owner is _MISSING else getattr(owner, node.attr, _MISSING)
    return _MISSING
