"""`eve serve`, `eve schedules`, `eve schedule run`, `eve prompt`: the served agent."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from eve_build.cli.conventions import JSON_OPTION, path_option
from eve_build.cli.options import ExtensionPaths, setting_option
from eve_build.cli.output import (
    echo,
    echo_err,
    emit_json,
    emit_json_line,
    emit_result,
    envelope,
    note,
    run_core,
)

if TYPE_CHECKING:
    from eve_build.runtime.prompt import Prompt
    from eve_build.serve.schedules import ScheduleInfo, ScheduleRun
    from eve_build.serve.server import Served

PATH_OPTION = path_option("The agent app (holds `.eve/`).")
SUBAGENT_OPTION = typer.Option(None, "--subagent", help="A subagent of the agent (its path).")
HOST_OPTION = typer.Option("127.0.0.1", "--host", help="The address to listen on.")
PORT_OPTION = typer.Option(8000, "--port", help="The port to listen on (0: a free one).")
TIMEOUT_OPTION = setting_option(30.0, "--channel-timeout",
                                "Seconds a channel handler may take before a 500.")
MAX_BODY_OPTION = setting_option("1MiB", "--max-body", "The largest request body (bytes, or "
                                 "with KiB, MiB, GiB); a larger one is answered 413.")

ALLOW_HOST_OPTION = typer.Option(
    None, "--allow-host", metavar="HOST", callback=lambda values: _check_allowed("host", values),
    help="Also admit requests naming this host (`agent.example.com`; `*`: any); repeatable. "
         "Loopback names and the listening address are admitted already (docs/deploying.md).")
ALLOW_ORIGIN_OPTION = typer.Option(
    None, "--allow-origin", metavar="ORIGIN",
    callback=lambda values: _check_allowed("origin", values),
    help="Also admit browser requests from pages of this origin (`https://app.example.com`, "
         "`http://localhost:*`); repeatable. The server's own origin is admitted already.")

schedule_app = typer.Typer(help="Run one schedule now.", no_args_is_help=True)


def register(app: typer.Typer) -> None:
    """Add `eve serve`, `eve schedules`, `eve schedule` and `eve prompt`."""
    app.command("serve")(serve)
    app.command("schedules")(schedules)
    app.add_typer(schedule_app, name="schedule")
    app.command("prompt")(prompt)


def serve(path: Path = PATH_OPTION, host: str = HOST_OPTION, port: int = PORT_OPTION,
          channel_timeout: float = TIMEOUT_OPTION, max_body: str = MAX_BODY_OPTION,
          access_log: bool = typer.Option(True, "--access-log/--no-access-log",
                                          help="Log one line per request."),
          workers: int = typer.Option(1, "--workers", min=1, help="Serve from this many "
                                      "processes on one socket and one session store."),
          run_schedules: bool = typer.Option(True, "--schedules/--no-schedules",
                                             help="Fire schedules on their cron (off: run "
                                             "them with `eve schedule run NAME`)."),
          extension: ExtensionPaths = None,
          approve: bool = typer.Option(False, "--approve", help="Approve every call over "
                                       "/mcp of tools that ask for approval (the MCP "
                                       "client's own confirmation is then the only one; "
                                       "else a client that supports elicitation asks "
                                       "its user)."),
          allow_host: list[str] | None = ALLOW_HOST_OPTION,
          allow_origin: list[str] | None = ALLOW_ORIGIN_OPTION,
          json_output: bool = typer.Option(
              False, "--json", help="JSON lines on stdout: `serving` with the URL, then "
              "`stopped` (docs/reference/json.md).")) -> None:
    """Serve the built agent: its channels over HTTP, its schedules on their cron.

    State, schedule runs and sessions live in the session store (EVE_SESSION_STORE, else
    `.eve/sessions.sqlite3`), shared by every worker and replica on it."""
    from eve_build.serve.server import run_server

    configure_logging()

    def ready(url: str) -> None:
        if json_output:
            emit_json_line(envelope("serving", url=url))
        else:
            echo(f"serving on {url} (Ctrl-C to stop)")

    def run() -> Served:
        return run_server(path, host=host, port=port, channel_timeout=channel_timeout,
                          access_log=access_log, extensions=extension or (),
                          on_ready=ready, workers=workers, schedules=run_schedules,
                          approve=approve, max_body=int(float(max_body)),
                          allow_hosts=allow_host or (), allow_origins=allow_origin or ())

    served = run_core(run, json_output=json_output)
    if json_output:
        emit_json_line(envelope("stopped", signal=served.signal))
    stopped = f" on {served.signal}" if served.signal else ""
    note(f"stopped{stopped}")


def _check_allowed(kind: str, values: list[str] | None) -> list[str] | None:
    """`--allow-host` / `--allow-origin` values checked (a usage error, exit 2)."""
    from eve_build.serve.admission import find_host_problems, find_origin_problems

    found = (find_host_problems if kind == "host" else find_origin_problems)(values or ())
    if found:
        raise typer.BadParameter(f"{found[0].message}; {found[0].hint}")
    return values


def configure_logging() -> None:
    """Show the host's log (channel failures, schedule runs) and uvicorn's on stderr."""
    import logging

    from eve_build.cli.output import SETTINGS
    from eve_build.controls import derive_log_handler

    logging.basicConfig(level=logging.INFO,
                        handlers=[derive_log_handler("%(levelname)s: %(message)s")])
    # `INFO: 1 change detected` on every save of `eve dev`: the dev loop says what it rebuilt
    logging.getLogger("watchfiles").setLevel(logging.WARNING)
    if SETTINGS.verbose:  # `eve -v serve`: the traceback of each fault (redacted) too
        logging.getLogger("eve_build.serve").setLevel(logging.DEBUG)


def schedules(path: Path = PATH_OPTION, count: int = typer.Option(3, "--count", min=1,
              help="How many next runs to list."), json_output: bool = JSON_OPTION) -> None:
    """List every schedule with its next run times (local time)."""
    from eve_build.runtime.loader import read_compiled_agent
    from eve_build.serve.claims import derive_run_name
    from eve_build.serve.durable import read_last_runs
    from eve_build.serve.scheduler import local_now
    from eve_build.serve.schedules import list_schedules

    def run() -> list[ScheduleInfo]:
        listed = list_schedules(read_compiled_agent(path), local_now(), count)
        runs = read_last_runs(path)
        return [dataclasses.replace(item, last_run=runs.get(
            derive_run_name(item.name, item.subagent))) for item in listed]

    listed = run_core(run, json_output=json_output)
    if json_output:
        emit_result("listed", schedules=[item.to_json() for item in listed])
        return
    if not listed:
        echo("the agent has no schedules")
    for item in listed:
        where = f" (subagent {item.subagent})" if item.subagent else ""
        echo(f"{item.name}{where}  {item.cron}  {item.mode}")
        if item.problem:
            echo(f"  never: {item.problem} (run `eve build` again)")
        for when in item.next_runs:
            echo(f"  {when.isoformat(sep=' ', timespec='minutes')}")
        if item.last_run:
            last = item.last_run
            echo(f"  last run: due {last['dueAt']} by {last['runner']}: {last['status']}"
                 + (f" ({last['error']})" if last["error"] else ""))


@schedule_app.command("run")
def schedule_run(name: str = typer.Argument(..., help="The schedule, e.g. crm__sync."),
                 path: Path = PATH_OPTION, subagent: str | None = SUBAGENT_OPTION,
                 json_output: bool = JSON_OPTION) -> None:
    """Run one schedule now (a markdown schedule prints the turn it would start)."""
    from eve_build.serve.schedules import run_schedule_now

    configure_logging()

    def run() -> ScheduleRun:
        return run_schedule_now(path, name, subagent=subagent)

    done = run_core(run, json_output=json_output)
    if json_output:
        fields = _jsonable(done.to_json())
        fields["error"] = (None if done.status == "ok"
                           else {"message": str(done.error or ""), "hint": ""})
        emit_result(**fields)
    elif done.turn is not None:
        echo(done.turn)
    elif done.status == "ok":
        emit_json(_jsonable(done.value))
    if done.status == "failed":
        echo_err(f"error: schedule `{done.name}` failed: {done.error}")
        raise typer.Exit(1)


def prompt(path: Path = PATH_OPTION, subagent: str | None = SUBAGENT_OPTION,
           json_output: bool = JSON_OPTION, extension: ExtensionPaths = None) -> None:
    """Print the assembled system prompt of the agent (or of one subagent)."""
    from eve_build.runtime.loader import load_agent
    from eve_build.runtime.prompt import assemble_loaded_prompt

    def run() -> Prompt:
        with load_agent(path, extensions=extension or ()) as agent:
            return assemble_loaded_prompt(agent, subagent)

    assembled = run_core(run, json_output=json_output)
    if json_output:
        emit_result("ok", **assembled.to_json())
    else:
        echo(assembled.text, nl=False)
    for part in assembled.errors:
        failed = "are" if part.omitted else "could not be rendered:"
        echo_err(f"warning: {part.describe()} {failed} {part.error}")


def _jsonable(value: Any) -> Any:
    return json.loads(json.dumps(value, default=str))
