"""The README's options table, generated from a config model's JSON Schema.

The scaffold's sample config is data here (`SampleConfig`): the template's
`extension.py` spells its fields and the README's table is derived from its schema,
so the two cannot drift. `derive_options_table` works for any config schema (the
`config` of a manifest).
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, Field


class SampleConfig(BaseModel):
    """The scaffold's sample config: one option."""

    greeting: str = Field(default="Hello", description="The word each greeting starts with.")


def derive_sample_fields() -> list[dict[str, str]]:
    """`name`, `annotation`, `default` (Python source) and `description` of each field."""
    fields = []
    for name, info in SampleConfig.model_fields.items():
        annotation = getattr(info.annotation, "__name__", str(info.annotation))
        default = json.dumps(info.default) if isinstance(info.default, str) else repr(info.default)
        fields.append({"name": name, "annotation": annotation, "default": default,
                       "description": info.description or ""})
    return fields


def derive_options_table(schema: dict[str, Any] | None) -> str:
    """A markdown table: option, type, default (or "required") and meaning."""
    if not schema or not schema.get("properties"):
        return "This extension takes no options.\n"
    required = set(schema.get("required", []))
    rows = [("Option", "Type", "Default", "Meaning")]
    for name, prop in schema["properties"].items():
        default = "required" if name in required else f"`{json.dumps(prop.get('default'))}`"
        rows.append((f"`{name}`", f"`{_type_of(prop)}`", default,
                     str(prop.get("description", "")).replace("|", "\\|")))
    widths = [max(len(row[i]) for row in rows) for i in range(4)]
    lines = ["| " + " | ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)) + " |"
             for row in rows]
    lines.insert(1, "|" + "|".join("-" * (w + 2) for w in widths) + "|")
    return "\n".join(lines) + "\n"


def _type_of(prop: dict[str, Any]) -> str:
    if "enum" in prop:
        return " | ".join(json.dumps(v) for v in prop["enum"])
    if "anyOf" in prop:
        return " | ".join(_type_of(p) for p in prop["anyOf"])
    kind = prop.get("type", "any")
    if kind == "array":
        return f"list[{_type_of(prop.get('items', {}))}]"
    names = {"string": "str", "integer": "int", "number": "float", "boolean": "bool",
             "null": "None", "object": "dict"}
    return names.get(str(kind), "any") if "$ref" not in prop else "object"
