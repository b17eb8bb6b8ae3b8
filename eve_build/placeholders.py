"""Placeholders an extension's instructions use to name its own tools.

An extension's `instructions.md` is written once, but each mount shows its tools
under its own prefix: the model sees `crm__greet`, not `greet`. A fragment names its
tools as `{{tool:greet}}` and the mount it is rendered for resolves that to the name
the model sees (`crm__greet`; `greet` inside the extension's own subagents, where
nothing is prefixed, and in the agent's own instructions). `{{namespace}}` is the
mount's namespace. Anything else in braces is left alone.

A fragment that names a tool the tree does not have (its mount disabled it with
`disable_tool()`, or it never existed) would tell the model to call a tool it cannot
see: `find_missing_tools` names them. `eve build` warns about such a fragment
(`agent/instructions-tool-missing`) and the prompt leaves it out (eve_build.runtime.prompt).
Plain text, no imports: the build side and the run side both ask it.
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


def find_missing_tools(text: str, mount: str | None, tools: Collection[str]) -> list[str]:
    """The names (as the model would read them) of the tools `text`'s placeholders refer
    to that are not among `tools`, in order of appearance, each once."""
    missing: list[str] = []
    for name in find_placeholder_tools(text):
        qualified = f"{mount}__{name}" if mount else name
        if qualified not in tools and name not in tools and qualified not in missing:
            missing.append(qualified)
    return missing


def find_placeholder_line(text: str, name: str) -> int | None:
    """The 1-based line of the first placeholder naming tool `name`, None if there is none."""
    for found in PLACEHOLDER.finditer(text):
        if found["tool"] == name:
            return text.count("\n", 0, found.start()) + 1
    return None


def find_placeholder_tools(text: str) -> list[str]:
    """The tool names a fragment's placeholders refer to, in order of appearance."""
    return [m["tool"] for m in PLACEHOLDER.finditer(text) if m["tool"]]
