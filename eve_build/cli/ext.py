"""`eve node add|start|list|stop|remove` (and its old name `eve ext`, hidden): project
extensions in their own process."""

from __future__ import annotations

from pathlib import Path

import typer

from eve_build.cli.conventions import JSON_OPTION
from eve_build.cli.output import (
    echo,
    echo_err,
    emit_json,
    emit_json_line,
    emit_result,
    envelope,
    note,
    render_diagnostics,
    run_core,
    summary,
)

app = typer.Typer(help="Project extensions (nodes): register, start, list, stop, remove.",
                  no_args_is_help=True)


def _home() -> Path:
    from eve_build.node.paths import locate_eve_home

    return locate_eve_home()


@app.command("add")
def add(
    path: Path = typer.Argument(..., help="The project folder (pyproject.toml, extension.py)."),
    name: str | None = typer.Option(None, "--name", help="Register under this name "
                                    "(default: the folder name)."),
    yes: bool = typer.Option(False, "--yes", "-y", help="Register without asking."),
    json_output: bool = JSON_OPTION,
) -> None:
    """Register a project extension: this is the decision to trust and run its code."""
    from eve_build.node.lifecycle import add_node, plan_add

    home = _home()
    entry = run_core(lambda: plan_add(home, path, name), json_output=json_output)
    files = sorted(p.name for p in entry.path.iterdir() if not p.name.startswith("."))
    say = note if yes else echo_err  # what the question is about; no question: a note
    say(f"Registering node `{entry.name}` from `{entry.path}`:")
    say(f"  files: {', '.join(files)}")
    say("  `eve node start` will install it in its own venv and run its code as you.")
    if not yes and not typer.confirm("Trust and register it?", err=True):
        if json_output:
            emit_result("failed", name=entry.name, path=str(entry.path),
                        error={"message": "not registered", "hint": ""})
        echo_err("error: not registered")
        raise typer.Exit(1)
    run_core(lambda: add_node(home, entry), json_output=json_output)
    if json_output:
        emit_result("registered", name=entry.name, path=str(entry.path))
        return
    summary(f"Registered node `{entry.name}`; start it with `eve node start {entry.name}`")


@app.command("start")
def start(
    name: str = typer.Argument(..., help="The registered node."),
    reload: bool = typer.Option(False, "--reload", help="Stay in the foreground and restart "
                                "the node when its sources change."),
    json_output: bool = typer.Option(False, "--json", help="Print the result as JSON on stdout "
                                     "(with --reload: one JSON line per start)."),
) -> None:
    """Create the node's venv if needed, install it, start it detached, wait until it answers."""
    from eve_build.node.lifecycle import StartReport, start_node

    def show(report: StartReport) -> None:
        if json_output:
            fields = envelope("running" if report.already_running else "started",
                              name=report.name, pid=report.pid, socket=str(report.socket),
                              tools=list(report.tools), steps=list(report.steps))
            (emit_json_line if reload else emit_json)(fields)
            return
        for step in report.steps:
            note(f"  - {step}")
        state = "already running" if report.already_running else "started"
        tools = ", ".join(f"`{t}`" for t in report.tools) or "no tools"
        summary(f"Node `{report.name}` {state} (pid {report.pid}) on `{report.socket}`: "
                f"{tools}")
        note(f"  log: `{report.log}`")

    if not reload:
        show(run_core(lambda: start_node(_home(), name), json_output=json_output))
        return
    from eve_build.node.reload import run_with_reload

    echo_err("watching the node's sources for changes (Ctrl-C to stop)")
    run_core(lambda: run_with_reload(_home(), name, show,
                                     lambda text: echo_err(f"restarting: {text}")),
             json_output=json_output)


@app.command("list")
def list_(json_output: bool = JSON_OPTION) -> None:
    """Every registered node: running or not, pid, socket, tools."""
    from eve_build.node.lifecycle import list_nodes_checked

    rows, problems = run_core(lambda: list_nodes_checked(_home()), json_output=json_output)
    if json_output:
        emit_result("listed", problems, nodes=rows)
        return
    render_diagnostics(problems)
    if not rows:
        echo("No nodes registered; add one with `eve node add PATH`")
    for row in rows:
        state = (f"running (pid {row['pid']}, `{row['socket']}`)" if row["running"]
                 else "stopped")
        tools = ", ".join(row["tools"]) or "-"
        echo(f"{row['name']}  {state}  {row['path']}  tools: {tools}")


@app.command("stop")
def stop(name: str = typer.Argument(..., help="The running node."),
         json_output: bool = JSON_OPTION) -> None:
    """Stop a node gracefully (SIGTERM), killing it after a timeout."""
    from eve_build.node.lifecycle import stop_node

    how = run_core(lambda: stop_node(_home(), name), json_output=json_output)
    if json_output:
        emit_result("stopped", name=name, how=how)
        return
    if how == "not-running":  # idempotent: the node is stopped, which is what was asked
        note(f"Node `{name}` is not running; nothing to stop")
        return
    summary(f"Node `{name}` {how}")


@app.command("remove")
def remove(name: str = typer.Argument(..., help="The registered node."),
           json_output: bool = JSON_OPTION) -> None:
    """Stop the node if it runs and forget it."""
    from eve_build.node.lifecycle import remove_node

    was_running = run_core(lambda: remove_node(_home(), name), json_output=json_output)
    if json_output:
        emit_result("removed", name=name, wasRunning=bool(was_running))
        return
    summary(f"Removed node `{name}`" + (" (stopped it first)" if was_running else ""))
