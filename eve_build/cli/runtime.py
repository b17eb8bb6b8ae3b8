"""`eve call` and `eve state migrate`: run what was built, and move old session state."""

from __future__ import annotations

import dataclasses
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from eve_build.cli.conventions import JSON_OPTION, path_option
from eve_build.cli.local import report_local
from eve_build.cli.options import ExtensionPaths
from eve_build.cli.output import (
    detail,
    echo,
    echo_err,
    emit_json,
    emit_result,
    note,
    render_diagnostics,
    run_core,
)

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
                                    "or - to read it from stdin."),
    path: Path = path_option("The agent app (holds `.eve/`)."),
    approve: bool = typer.Option(False, "--approve", help="Approve every approval request."),
    json_output: bool = typer.Option(False, "--json",
                                     help="Print the whole result with its trace as JSON."),
    subagent: str | None = typer.Option(None, "--subagent",
                                        help="Call a tool of this subagent (its path)."),
    extension: ExtensionPaths = None,
) -> None:
    """Load the built agent and call one tool through the hook pipeline."""
    from eve_build.runtime.loader import load_agent

    def run() -> ToolResult:
        given = read_arguments(arguments)
        with load_agent(path, extensions=extension or ()) as agent:
            report_local(agent)
            result = agent.call_tool(
                tool, given, subagent=subagent, approver=(lambda _: True) if approve else None,
                on_progress=None if json_output else lambda text: note(f"progress: {text}"))
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
        fields = _jsonable(dataclasses.asdict(result))
        fields["error"] = None if result.ok else {"message": result.error or "", "hint": ""}
        emit_result(**fields)
    elif result.ok:
        emit_json(_jsonable(result.value))
    if not result.ok:
        echo_err(f"error: `{result.name}` {result.status}: {result.error}")
        if result.status == "refused" and not approve:
            echo_err("\nhint: pass `--approve` to approve the call")
        raise typer.Exit(1)


def read_arguments(text: str) -> dict[str, Any]:
    """A JSON object given inline, as `@file` or `-` (stdin) (raises UsageError)."""
    from eve_build.errors import UsageError

    source = "the arguments"
    if text == "-":
        source = "the arguments on stdin"
        text = sys.stdin.read()
    elif text.startswith("@"):
        source = f"`{text[1:]}`"
        try:
            text = Path(text[1:]).read_text(encoding="utf-8")
        except OSError as exc:
            raise UsageError(f"cannot read {source}: {exc.strerror}",
                             "pass `@FILE` with the path of a JSON file") from None
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise UsageError(f"{source} are not valid JSON: {exc.msg} (line {exc.lineno}, "
                         f"column {exc.colno})",
                         """quote the JSON for the shell: eve call TOOL '{"query": "ada"}'"""
                         ) from None
    if not isinstance(value, dict):
        raise UsageError(f"{source} must be a JSON object, not {type(value).__name__}",
                         """pass an object such as '{"query": "ada"}'""")
    return value


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
    from eve_build.consumer.compiled import walk_trees
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
    echo(f"Migrated `{snapshot}` into `{target}`: {moved} {noun} moved, "
         f"{len(warnings)} dropped")


def _jsonable(value: Any) -> Any:
    return json.loads(json.dumps(value, default=str))
