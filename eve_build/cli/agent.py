"""`eve build` and `eve info`: the consuming agent."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from eve_build.cli.conventions import AGENT_OPTION, JSON_OPTION, path_option
from eve_build.cli.output import (
    SETTINGS,
    detail,
    echo,
    echo_err,
    emit_json,
    emit_result,
    note,
    render_diagnostics,
    run_core,
)
from eve_build.cli.summaries import counted as _count
from eve_build.cli.summaries import describe_agent_built, describe_member
from eve_build.cli.summaries import shown_place as _shown

PATH_OPTION = path_option("The app root (holds `agent/`) or workspace root.")
NO_CACHE_OPTION = typer.Option(False, "--no-cache", help="Build extensions without the build "
                               "cache (EVE_CACHE_DIR).")
PLAN_OPTION = typer.Option(False, "--plan", help="Print the workspace build plan (each "
                           "extension: stale or fresh and why, input hash, dependents); build "
                           "nothing.")


def register(app: typer.Typer) -> None:
    """Add `eve build` and `eve info` to the root command."""
    app.command("build")(build)
    app.command("info")(info)


def build(agent: str | None = AGENT_OPTION, path: Path = PATH_OPTION,
          json_output: bool = JSON_OPTION, no_cache: bool = NO_CACHE_OPTION,
          plan: bool = PLAN_OPTION) -> None:
    """Build the workspace's extensions and compile the agent into `.eve/`."""
    if plan:
        _print_plan(path, json_output)
        return
    from eve_build.consumer.build import build_agent

    result = run_core(lambda: build_agent(path, agent, use_cache=not no_cache),
                      json_output=json_output)
    render_diagnostics(result.warnings)
    if json_output:
        emit_result("ready", result.warnings, app=str(result.app_root),
                    compiled=str(result.compiled_path), written=result.written,
                    extensions=[{"package": m.name, "directory": str(m.root), "state": m.state}
                                for m in result.extensions],
                    changes=list(result.changes))
        return
    if SETTINGS.quiet:  # the summary is for people: `-q` prints nothing on success
        return
    for change in result.changes:
        echo(f"  changed: {change}")
    for member in result.extensions:
        echo(describe_member(member))
        detail(f"    from {_shown(member.root)}")
    echo(describe_agent_built(result))


def _print_plan(path: Path, json_output: bool) -> None:
    from eve_build.consumer.plan import derive_plan

    data = run_core(lambda: derive_plan(path), json_output=json_output)
    if json_output:
        emit_result("planned", **data)
        return
    for ext in data["extensions"]:
        why = f" ({ext['reason']})" if ext["reason"] else ""
        echo(f"{ext['dir']}: {ext['state']}{why}")
    echo(f"{len(data['matrix']['include'])} of {len(data['extensions'])} extensions to build")


def info(agent: str | None = AGENT_OPTION, path: Path = PATH_OPTION,
         json_output: bool = JSON_OPTION,
         probe: bool = typer.Option(False, "--probe", help="Also list the connections and the "
                                    "tools each MCP server offers (loads the built agent)."),
         show_config: bool = typer.Option(False, "--show-config",
                                          help="Show config values given in mount files "
                                               "(env values always show as their variable).")
         ) -> None:
    """Compile the agent in memory (writes nothing) and show what it is made of; its
    tools are the built agent's surface when it is built from these sources."""
    from eve_build.consumer.info import describe_agent

    def describe() -> dict[str, Any]:
        if probe:
            from eve_build.mcp.connection_report import describe_agent_probed

            return describe_agent_probed(path, agent, show_config=show_config)
        from eve_build.runtime.listing import list_built_surface

        return describe_agent(path, agent, show_config=show_config, surface=list_built_surface)

    data = run_core(describe, json_output=json_output)
    render_diagnostics(_diagnostics(data))
    if data["status"] != "ready":
        data["error"] = {"message": "the agent does not compile",
                         "hint": "fix the errors in diagnostics, then run `eve info` again"}
    if json_output:
        emit_json(data)
    else:
        _print_info(data)
    if data["status"] != "ready":
        echo_err("error: the agent does not compile; see the errors above")
        raise typer.Exit(1)


def _print_info(data: dict[str, Any]) -> None:
    echo(f"status: {data['status']}")
    counts = data["diagnostics"]
    echo(f"diagnostics: {_count(counts['errors'], 'error')}, "
         f"{_count(counts['warnings'], 'warning')}")
    if data["status"] != "ready":
        return
    echo("instructions: " + (", ".join(i["file"] for i in data["instructions"]) or "-"))
    for key in ("tools", "skills", "subagents", "schedules"):
        values = data[key]
        echo(f"{key} ({len(values)}): " + (", ".join(values) or "-"))
    if data["toolsSource"]["note"]:
        note(f"note: tools: {data['toolsSource']['note']}")
    echo(f"channels ({len(data['channels'])}):")
    for channel in data["channels"]:
        echo(f"  {channel['method']} {channel['urlPath']}  {channel['name']}")
    for connection in data.get("connections", []):  # with --probe
        probe = connection.get("probe")
        tools = (", ".join(probe["tools"]) or "-") if probe and probe.get("status") == "ok" else "-"
        echo(f"connection {connection['name']} ({connection['kind']}): tools: {tools}")
    echo(f"extensions ({len(data['extensions'])}):")
    for ext in data["extensions"]:
        source = "source-backed" if ext["sourceBacked"] else "installed"
        echo(f"  {ext['mount']}: {ext['package']} {ext['version']} ({source}, built with "
             f"eve-build {ext['builtWithEve']})")
        if ext["config"]:
            echo("    config: " + ", ".join(f"{k}={_config_value(v)}"
                                            for k, v in ext["config"].items()))
    echo("hooks:" if data["hooks"] else "hooks: -")
    for source, hooks in data["hooks"].items():
        echo(f"  {source}: " + ", ".join(h["name"] for h in hooks))
    if data.get("env"):  # where each env(...) name is set; never a value
        echo("env: " + ", ".join(f"{e['name']} ({e['from'] or 'unset'})" for e in data["env"]))


def _config_value(value: Any) -> str:
    import json

    if isinstance(value, dict) and set(value) == {"$env"}:
        return f'env("{value["$env"]}")'
    return value if value == "(hidden)" else json.dumps(value)


def _diagnostics(data: dict[str, Any]) -> list[Any]:
    from eve_build.diagnostics import Diagnostic, Severity

    return [Diagnostic(file=d["file"], line=d["line"], code=d["code"], message=d["message"],
                       hint=d["hint"], severity=Severity(d["severity"]))
            for d in data["diagnostics"]["items"]]


