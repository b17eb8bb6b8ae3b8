"""`eve call` and `eve state migrate`: run what was built, and move old session state."""

from __future__ import annotations

import json
import os
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from eve_build.cli.conventions import JSON_OPTION, path_option
from eve_build.cli.local import report_local
from eve_build.cli.options import ExtensionPaths
from eve_build.cli.output import (
    detail,
    echo_err,
    emit_json,
    emit_result,
    note,
    render_diagnostics,
    run_core,
    summary,
)
from eve_build.cli.session import ANSWER_OPTION

if TYPE_CHECKING:
    from eve_build.diagnostics import Diagnostic
    from eve_build.sdk.mount import ToolResult

state_app = typer.Typer(help="Session state: migrate snapshots.", no_args_is_help=True)


def register(app: typer.Typer) -> None:
    """Add `eve call` and `eve state` to the root command."""
    app.command("call")(call)
    app.add_typer(state_app, name="state")


def call(
    tool: str = typer.Argument(..., help="The tool as the agent sees it, e.g. crm__search."),
    arguments: str = typer.Argument("{}", metavar="JSON | @FILE | -",
                                    help="The arguments: a JSON object, @file holding one, "
                                    "or - (or @-) to read it from stdin; at most 8 MiB."),
    path: Path = path_option("The agent app (holds `.eve/`)."),
    approve: bool = typer.Option(False, "--approve", help="Approve every approval request."),
    json_output: bool = typer.Option(False, "--json",
                                     help="Print the whole result with its trace as JSON."),
    subagent: str | None = typer.Option(None, "--subagent",
                                        help="Call a tool of this subagent (its path)."),
    answer: list[str] | None = ANSWER_OPTION,
    extension: ExtensionPaths = None,
) -> None:
    """Load the built agent and call one tool through the hook pipeline."""
    from eve_build.cli.asking import can_ask, terminal_ask
    from eve_build.cli.session import given_answers
    from eve_build.host import load_agent
    from eve_build.runtime.approval import asking_approver
    from eve_build.runtime.arguments import read_arguments
    from eve_build.runtime.calls import derive_call_bound
    from eve_build.sdk.interaction import interacting
    from eve_build.startup import release_collection

    person = can_ask() and arguments not in ("-", "@-")  # stdin holds the arguments then
    asker = given_answers(answer or [], terminal=person) if answer else \
        terminal_ask if person else None
    approver = (lambda _: True) if approve else asking_approver(terminal_ask) if person \
        else None

    def run() -> ToolResult:
        given = read_arguments(arguments)
        with load_agent(path, extensions=extension or ()) as agent:
            release_collection()  # loaded: eve_build.startup
            report_local(agent)
            surface = agent.surface(subagent)
            entry = surface.tools.get(tool)
            watchdog = start_watchdog(tool, derive_call_bound(surface, entry), json_output) \
                if entry is not None else None
            try:
                with interacting(ask=asker):
                    result = agent.call_tool(
                        tool, given, subagent=subagent, approver=approver,
                        on_progress=None if json_output else lambda text: note(
                            f"progress: {text}"))
            finally:
                if watchdog is not None:
                    watchdog.cancel()
            report_local(agent, diagnostics=False)
            return result

    result = run_core(run, json_output=json_output)
    for entry in result.trace:
        detail(f"trace: {json.dumps(entry, default=str)}")
    for entry in result.trace:  # the runtime logs these too, but nothing shows its log here
        if "warning" in entry:
            echo_err(f"warning: {entry['warning']}")
        elif entry["outcome"] in ("timeout", "error") and result.status == "ok":
            echo_err(f"warning: {entry['reason']}")
    if json_output:
        from eve_build.runtime.content import content_to_json

        fields = _jsonable({"name": result.name, "status": result.status, "value": result.value,
                            "content": content_to_json(result.content), "error": result.error,
                            "identity": result.identity,
                            "trace": list(result.trace), "progress": list(result.progress)})
        fields["error"] = None if result.ok else {"message": result.error or "", "hint": ""}
        emit_result(**fields)
    elif result.ok:
        emit_json(_jsonable(result.value))
    if not result.ok:
        echo_err(f"error: `{result.name}` {result.status}: {result.error}")
        if result.status == "refused" and not approve:
            echo_err("\nhint: pass `--approve` to approve the call")
        raise typer.Exit(1)


@state_app.command("migrate")
def migrate(
    snapshot: Path = typer.Argument(..., help="The session snapshot (JSON) to migrate.",
                                    exists=True, dir_okay=False),
    output: Path | None = typer.Option(None, "-o", "--output",
                                       help="Write here instead of over SNAPSHOT."),
    path: Path = path_option("The agent app (holds `.eve/`)."),
    json_output: bool = JSON_OPTION,
) -> None:
    """Move package-prefixed state keys to the mount that owns them (atomically)."""
    from eve_build.formats.compiled import walk_trees
    from eve_build.runtime.loader import read_compiled_agent
    from eve_build.runtime.migration import migrate_snapshot
    from eve_build.runtime.snapshot import read_snapshot, write_snapshot

    target = output or snapshot

    def run() -> tuple[int, list[Diagnostic]]:
        trees = walk_trees(read_compiled_agent(path).root)
        before = read_snapshot(snapshot)
        migrated, warnings = migrate_snapshot(
            before, [m for t in trees for m in t.mounts], [s for t in trees for s in t.states],
            file=str(snapshot))
        write_snapshot(target, migrated)
        return len(set(migrated["state"]) - set(before["state"])), warnings

    moved, warnings = run_core(run, json_output=json_output)
    render_diagnostics(warnings)
    if json_output:
        emit_result("migrated", warnings, snapshot=str(snapshot), output=str(target),
                    moved=moved, dropped=len(warnings))
        return
    noun = "key" if moved == 1 else "keys"
    summary(f"Migrated `{snapshot}` into `{target}`: {moved} {noun} moved, "
            f"{len(warnings)} dropped")


def start_watchdog(tool: str, bound: float, json_output: bool) -> threading.Timer:
    """End the process when a call outlives every budget it has: only code that blocks
    the event loop itself (sync work inside an `async def` tool) can get there."""

    def give_up() -> None:
        reason = (f"the call did not end within {bound:g} s, the sum of its timeout and "
                  "hook budgets: a tool or hook blocks the event loop (sync code in an "
                  "`async def`?)")
        if json_output:
            emit_json({"status": "failed", "error": f"`{tool}` failed: {reason}"})
        echo_err(f"error: `{tool}` failed: {reason}")
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(1)

    timer = threading.Timer(bound, give_up)
    timer.daemon = True
    timer.start()
    return timer


def _jsonable(value: Any) -> Any:
    """The result as JSON data; the host already refused values that are not JSON."""
    return json.loads(json.dumps(value, default=repr))
