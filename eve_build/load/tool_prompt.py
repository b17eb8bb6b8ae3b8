"""A tool's own lines in the system prompt, checked at build.

`define_tool(prompt_snippet="...", prompt_guidelines=[...])`: the snippet replaces
the description in the prompt's tool list (one line), and each guideline joins the
prompt's guidelines while the tool is there. `eve prompt` shows both.
"""

from __future__ import annotations

from eve_build.diagnostics import Diagnostic
from eve_build.sdk.definitions import Tool


def find_prompt_problems(tool: Tool, where: object) -> list[Diagnostic]:
    """Errors for a snippet that is not one line of text, or guidelines that are not a
    list of such lines. `where` is a `checks.Where`."""
    found: list[Diagnostic] = []
    snippet: object = tool.prompt_snippet
    if snippet is not None and (not isinstance(snippet, str) or "\n" in snippet.strip()
                                or not snippet.strip()):
        found.append(where.error(  # type: ignore[attr-defined]
            "tool/prompt-invalid", "`prompt_snippet` must be one non-empty line of text",
            'write it as `prompt_snippet="search the CRM by name or e-mail"`'))
    guidelines: object = tool.prompt_guidelines
    if isinstance(guidelines, str) or not isinstance(guidelines, tuple) or not all(
            isinstance(g, str) and g.strip() and "\n" not in g.strip() for g in guidelines):
        found.append(where.error(  # type: ignore[attr-defined]
            "tool/prompt-invalid",
            "`prompt_guidelines` must be a list of non-empty one-line strings",
            'write it as `prompt_guidelines=["Search before creating a contact."]`'))
    return found
