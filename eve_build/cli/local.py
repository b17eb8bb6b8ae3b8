"""`eve command`, `eve message`, `eve extensions list` and `eve extension new-local`."""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from eve_build.cli.conventions import JSON_OPTION, path_option
from eve_build.cli.options import ExtensionPaths
from eve_build.cli.output import (
    echo,
    echo_err,
    emit_result,
    render_diagnostics,
    run_core,
    summary,
)

if TYPE_CHECKING:
    from eve_build.runtime.agent import Agent

extensions_app = typer.Typer(help="Mounts and local extensions.", no_args_is_help=True)
PATH_HELP = "The agent app (holds `.eve/`)."


def register(app: typer.Typer, extension_app: typer.Typer) -> None:
    """Add the local-extension commands to the root and to `eve extension`."""
    app.command("command")(command)
    app.command("message")(message)
    app.add_typer(extensions_app, name="extensions")
    extension_app.command("new-local")(new_local)


def command(
    name: str = typer.Argument(..., help="The command, as a local extension names it."),
    args: list[str] | None = typer.Argument(
        None, help="Its arguments (joined by spaces); `key=value` words for a command with "
                   "named arguments."),
    path: Path = path_option(PATH_HELP),
    extension: ExtensionPaths = None,
    json_output: bool = JSON_OPTION,
) -> None:
    """Run a local extension's command: the reply on stdout (exit 1 when it raised)."""
    from eve_build.host import load_agent

    def run() -> Any:
        with load_agent(path, extensions=extension or ()) as agent:
            report_local(agent)
            named = any(c.name == name and c.named for c in agent.commands())
            words = args or []  # named arguments keep each word whole: `"greeting=Hi there"`
            reply = agent.run_command(name, shlex.join(words) if named else " ".join(words))
            report_local(agent, diagnostics=False)
            return reply

    reply = run_core(run, json_output=json_output)
    if json_output:
        fields = reply.to_json()
        fields.pop("status")
        emit_result("ok" if reply.ok else "failed", **fields,
                    error=None if reply.ok else {"message": reply.text, "hint": ""})
    elif reply.ok:
        echo(reply.text)
    if not reply.ok:
        echo_err(f"error: the command `{name}` of `{reply.extension}` failed: {reply.text}")
        raise typer.Exit(1)


def message(
    text: str = typer.Argument(..., help="The message, e.g. `/notes` or `/skill:triage`."),
    path: Path = path_option(PATH_HELP),
    extension: ExtensionPaths = None,
    json_output: bool = JSON_OPTION,
) -> None:
    """Run a message through the input hooks, commands and skill expansion."""
    from eve_build.host import load_agent
    from eve_build.local.messages import handle_message

    def run() -> Any:
        with load_agent(path, extensions=extension or ()) as agent:
            before = report_local(agent, quiet=json_output)
            outcome = handle_message(agent, text, path)
            after = report_local(agent, quiet=json_output, diagnostics=False)
            return outcome, {key: before[key] + after[key] for key in before}

    outcome, reported = run_core(run, json_output=json_output)
    if json_output:
        fields = {**outcome.to_json(), **reported}
        fields.pop("status")
        found = _diagnostics(fields.pop("diagnostics"))
        emit_result("ok" if outcome.ok else "failed", found, **fields,
                    error=None if outcome.ok else {"message": outcome.text, "hint": ""})
    else:
        echo(outcome.text)
    if not outcome.ok:
        if not json_output:
            echo_err(f"error: the command `{outcome.command.command}` failed")
        raise typer.Exit(1)


@extensions_app.command("list")
def list_extensions(
    path: Path = path_option(PATH_HELP),
    extension: ExtensionPaths = None,
    json_output: bool = JSON_OPTION,
) -> None:
    """One row per mount and local extension: origin, status, tools, commands."""
    from eve_build.errors import DiagnosticsError
    from eve_build.local.listing import derive_extension_rows
    from eve_build.runtime.loader import read_compiled_agent

    def run() -> list[dict[str, Any]]:
        try:
            compiled = read_compiled_agent(path)
        except DiagnosticsError as exc:  # not built yet: the local extensions only
            if any(d.code != "runtime/compiled-missing" for d in exc.diagnostics):
                raise
            compiled = None
        return derive_extension_rows(path, compiled, extension or ())

    rows = run_core(run, json_output=json_output)
    if json_output:
        emit_result("listed", _diagnostics([d for row in rows for d in row["diagnostics"]]),
                    extensions=rows)
        return
    render_diagnostics(_diagnostics([d for row in rows for d in row["diagnostics"]]))
    if not rows:
        echo("no mounts and no local extensions")
    for row in rows:
        tools = ", ".join(row["tools"]) or "-"
        commands = ", ".join(f"/{c}" for c in row["commands"]) or "-"
        echo(f"{row['name']}  {row['origin']}  {row['status']}  tools: {tools}  "
             f"commands: {commands}  {row['path']}")


def new_local(
    name: str = typer.Argument(..., help="The extension's name (also its file name)."),
    global_: bool = typer.Option(False, "--global",
                                 help="Write into $EVE_HOME/extensions/ (every project)."),
    path: Path = path_option("The project root."),
    json_output: bool = JSON_OPTION,
) -> None:
    """Write a commented single-file local extension to start from."""
    from eve_build.local.template import write_local_template

    written = run_core(lambda: write_local_template(name, path, global_=global_),
                       json_output=json_output)
    next_steps = (["eve trust"] if written.scope == "project" else []) + ["eve extensions list"]
    if json_output:
        emit_result("created", path=str(written.path), scope=written.scope,
                    nextSteps=next_steps)
        return
    summary(f"Wrote `{written.path}`")
    summary("\nNext steps:")
    if written.scope == "project":
        summary("  eve trust          # approve the project's local extensions")
    summary("  eve extensions list   # check that it loads")


def _diagnostics(items: list[dict[str, Any]]) -> list[Any]:
    """Diagnostics back from their JSON form, without repeats."""
    from eve_build.diagnostics import Diagnostic, Diagnostics, Severity

    found = Diagnostics()
    found.extend(Diagnostic(file=d["file"], line=d["line"], code=d["code"], message=d["message"],
                            hint=d["hint"], severity=Severity(d["severity"])) for d in items)
    return found.items


def report_local(agent: Agent, *, quiet: bool = False,
                 diagnostics: bool = True) -> dict[str, Any]:
    """Local diagnostics (unless `diagnostics` is False), new notices and queued messages to
    stderr (unless `quiet`); also returned as data."""
    found = agent.local.host.diagnostics if diagnostics and agent.local is not None else []
    session = agent.local.request.session if agent.local is not None else None
    notices, messages = session.drain() if session is not None else ([], [])
    if not quiet:
        render_diagnostics(found)
        for notice in notices:
            prefix = "" if notice.level == "info" else f"{notice.level}: "
            echo_err(f"{prefix}{notice.extension}: {notice.text}")
        for queued in messages:
            echo_err(f"message from `{queued.extension}`: {queued.text}")
    return {"notices": [{"extension": n.extension, "level": n.level, "text": n.text}
                        for n in notices],
            "messages": [{"extension": m.extension, "text": m.text} for m in messages],
            "diagnostics": [d.to_json() for d in found]}
