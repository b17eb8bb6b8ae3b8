"""Placeholders an extension's instructions use to name its own tools.

An extension's `instructions.md` is written once, but each mount shows its tools
under its own prefix: the model sees `crm__greet`, not `greet`. A fragment names its
tools as `{{tool:greet}}` and the mount it is rendered for resolves that to the name
the model sees (`crm__greet`; `greet` inside the extension's own subagents, where
nothing is prefixed, and in the agent's own instructions). `{{namespace}}` is the
mount's namespace. Anything else in braces is left alone.
"""

from __future__ import annotations

import re
from collections.abc import Collection

PLACEHOLDER = re.compile(r"\{\{\s*(?:tool:\s*(?P<tool>[A-Za-z0-9_-]+)|(?P<namespace>namespace))"
                         r"\s*\}\}")


def resolve_placeholders(text: str, mount: str | None, tools: Collection[str]) -> str:
    """`text` with each placeholder replaced for `mount` (None: the agent's own text).

    `tools` are the names the model sees in the tree being prompted: a tool resolves to
    the first of `<mount>__<name>` and `<name>` found there, else to `<mount>__<name>`
    (a tool the mount disabled still reads as its qualified name)."""

    def replace(found: re.Match[str]) -> str:
        if found["namespace"]:
            return mount or ""
        name = found["tool"]
        qualified = f"{mount}__{name}" if mount else name
        for candidate in (qualified, name):
            if candidate in tools:
                return candidate
        return qualified

    return PLACEHOLDER.sub(replace, text)


def find_placeholder_tools(text: str) -> list[str]:
    """The tool names a fragment's placeholders refer to, in order of appearance."""
    return [m["tool"] for m in PLACEHOLDER.finditer(text) if m["tool"]]
