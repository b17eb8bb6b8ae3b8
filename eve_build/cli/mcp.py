"""`eve mcp` (the agent as an MCP server on stdio) and `eve connections`."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import typer

from eve_build.cli.agent import _diagnostics  # one reader of the JSON diagnostics
from eve_build.cli.conventions import JSON_OPTION, path_option
from eve_build.cli.options import ExtensionPaths, setting_option
from eve_build.cli.output import echo, emit_json, render_diagnostics, run_core

PATH_OPTION = path_option("The agent app (holds `.eve/`).")


def register(app: typer.Typer) -> None:
    """Add `eve mcp` and `eve connections` to the root command."""
    app.command("mcp")(mcp)
    app.command("connections")(connections)


def mcp(
    subagent: str | None = typer.Option(None, "--subagent",
                                        help="Serve this subagent's tools (its path)."),
    path: Path = PATH_OPTION,
    approve: bool = typer.Option(False, "--approve",
                                 help="Approve every call of tools that ask for approval "
                                      "(else a client that supports elicitation asks its "
                                      "user)."),
    extension: ExtensionPaths = None,
) -> None:
    """Serve the built agent's tools, skills and commands to an MCP client over stdio.

    stdout carries only the protocol; logs and errors go to stderr.
    """
    from eve_build.controls import derive_log_handler
    from eve_build.mcp.stdio import serve_stdio

    logging.basicConfig(level=logging.WARNING,
                        handlers=[derive_log_handler("%(levelname)s %(name)s: %(message)s")])
    run_core(lambda: serve_stdio(path, subagent=subagent, approve=approve,
                                 extensions=extension or ()))


def connections(
    path: Path = PATH_OPTION,
    json_output: bool = JSON_OPTION,
    probe: bool = typer.Option(False, "--probe",
                               help="Connect to each MCP server and list its tools."),
    timeout: float = setting_option(5.0, "--timeout", "Seconds each probe may take."),
) -> None:
    """List the agent's connections (URL, kind, header names; never header values)."""
    from eve_build.mcp.connection_report import describe_connections

    logging.getLogger("httpx2").setLevel(logging.WARNING)
    data = run_core(lambda: describe_connections(path, probe=probe, timeout=timeout),
                    json_output=json_output)
    render_diagnostics(_diagnostics(data))
    if json_output:
        failed = bool(data["diagnostics"]["errors"])
        emit_json({"status": "failed" if failed else "listed", **data, **(
            {"error": {"message": "some connections could not be resolved or probed",
                       "hint": "see diagnostics"}} if failed else {})})
    else:
        _print(data["connections"])
    if data["diagnostics"]["errors"]:
        raise typer.Exit(1)


def _print(rows: list[dict[str, Any]]) -> None:
    echo(f"connections ({len(rows)}):")
    for row in rows:
        where = f"{row['subagent']}: " if row["subagent"] else ""
        kind = row["kind"] or "?"
        dynamic = " (dynamic)" if row["dynamic"] else ""
        echo(f"  {where}{row['name']}  {kind}  {row['url'] or '-'}{dynamic}")
        if row["headers"]:
            echo(f"    headers: {', '.join(row['headers'])}")
        if "probe" in row:
            probe = row["probe"]
            over = " (over SSE)" if probe.get("transport") == "sse" else ""
            state = ("tools: " + (", ".join(probe["tools"]) or "-") + over
                     if probe.get("status") == "ok" else
                     f"{probe.get('status', 'unreachable')}: {probe['error']}")
            echo(f"    {state}")

