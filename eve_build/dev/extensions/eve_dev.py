"""`eve_dev`: shows the agent what `eve dev` is running and what its last rebuild did.

A bundled development extension (`eve_build.dev.extensions`): `eve dev` loads it,
production never does. Its tool `dev_status` answers with the generation being
served, the last round's outcome (changed files, rebuilt extensions, diagnostics
with file, line and hint) and the agent's surface as compiled (tools, skills,
channels, schedules, mounts, subagents); `/dev-status` says the same in a few lines.
It reads `.eve/dev/status.json` (eve_build.dev.status) and the compiled agent.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from eve_build.sdk import Spec, define_command, define_tool

GUIDELINE = ("This agent runs under `eve dev`, which rebuilds it when its sources change: "
             "call `dev_status` to see the running generation's tools and what the last "
             "rebuild did, errors included, before guessing why something changed.")


class NoInput(BaseModel):
    """`dev_status` takes no arguments."""


def describe_dev_status(root: Any) -> dict[str, Any]:
    """The status `eve dev` wrote for the app at `root`, with the compiled surface."""
    from pathlib import Path

    from eve_build.dev.status import read_status
    from eve_build.errors import DiagnosticsError
    from eve_build.formats.compiled import walk_trees
    from eve_build.runtime.loader import read_compiled_agent

    status = read_status(Path(root)) or {"status": "unknown", "generation": None,
                                         "note": "`eve dev` has not finished a round here"}
    try:
        compiled = read_compiled_agent(Path(root))
    except DiagnosticsError as exc:
        return {**status, "surface": None, "surfaceError": exc.message}
    tree = compiled.root
    surface = {
        "tools": [t.name for t in tree.tools],
        "skills": [s.name for s in tree.skills],
        "channels": [{"name": c.name, "method": c.details.get("method"),
                      "urlPath": c.details.get("route")} for c in tree.channels],
        "schedules": [{"name": s.name, "cron": s.details.get("cron")} for s in tree.schedules],
        "mounts": [{"namespace": m.namespace, "package": m.package, "version": m.version}
                   for m in tree.mounts],
        "subagents": [t.path for t in walk_trees(tree)[1:]],
    }
    return {**status, "surface": surface}


def summarize_dev_status(status: dict[str, Any]) -> str:
    """A few lines for `/dev-status`."""
    lines = [f"generation {status.get('generation')}: {status.get('status')}"
             + (f" (serving {status['serving']})" if status.get("serving") else "")]
    if status.get("changed"):
        lines.append("changed: " + ", ".join(status["changed"]))
    if status.get("rebuilt"):
        lines.append("rebuilt: " + ", ".join(status["rebuilt"]))
    for item in status.get("diagnostics") or []:
        where = f"{item.get('file')}:{item.get('line')}" if item.get("line") else item.get("file")
        lines.append(f"{where}: {item.get('severity')} {item.get('code')}: {item.get('message')}")
    surface = status.get("surface") or {}
    if surface:
        lines.append("tools: " + (", ".join(surface["tools"]) or "-"))
    return "\n".join(lines)


def setup(ctx: Any) -> Spec:
    root = ctx.cwd

    def dev_status(input: NoInput, tool_ctx: Any) -> dict[str, Any]:
        del input, tool_ctx
        return describe_dev_status(root)

    def show(args: str, command_ctx: Any) -> str:
        del args, command_ctx
        return summarize_dev_status(describe_dev_status(root))

    return Spec(
        tools={"dev_status": define_tool(
            description="What `eve dev` is running: the served generation, the last "
                        "rebuild's result (changed files, rebuilt extensions, diagnostics) "
                        "and the agent's tools, skills, channels, schedules and mounts.",
            input=NoInput, execute=dev_status)},
        commands={"dev-status": define_command(
            description="Show the running generation and the last rebuild", run=show)},
        guidelines=[GUIDELINE],
    )
