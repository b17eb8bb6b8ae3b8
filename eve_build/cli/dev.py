"""`eve dev`: build, watch, rebuild, and serve each good generation.

`--json` prints one JSON line per event: each generation (`ready` / `failed`), each
reload of local extensions (`reloaded`) and, when serving, the address (`serving`).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import typer

from eve_build.cli.conventions import AGENT_OPTION, JSON_OPTION, path_option
from eve_build.cli.options import ExtensionPaths, setting_option
from eve_build.cli.output import (
    echo,
    echo_err,
    emit_json_line,
    envelope,
    note,
    render_diagnostics,
    run_core,
)

if TYPE_CHECKING:
    from eve_build.dev.loop import DevSession, Generation, LocalRound
    from eve_build.diagnostics import Diagnostic
    from eve_build.serve.server import Served


def register(app: typer.Typer) -> None:
    app.command("dev")(dev)


def dev(
    agent: str | None = AGENT_OPTION,
    path: Path = path_option("The app (or workspace) root."),
    extension: ExtensionPaths = None,
    serve: bool = typer.Option(True, "--serve/--no-serve",
                               help="Serve each good generation (channels, schedules)."),
    host: str = typer.Option("127.0.0.1", "--host", help="The address to listen on."),
    port: int = typer.Option(8000, "--port", help="The port to listen on (0: a free one)."),
    channel_timeout: float = setting_option(30.0, "--channel-timeout",
                                            "Seconds a channel handler may take."),
    approve: bool = typer.Option(False, "--approve", help="Approve every call over /mcp of "
                                 "tools that ask for approval (as `eve serve --approve`)."),
    no_default_extensions: bool = typer.Option(
        False, "--no-default-extensions", help="Load none of the bundled development "
        "extensions (`eve_dev`: the `dev_status` tool and `/dev-status`)."),
    json_output: bool = JSON_OPTION,
) -> None:
    """Build, then watch the sources and rebuild what changed (Ctrl-C to stop)."""
    from eve_build.dev.extensions import locate_bundled_extensions
    from eve_build.dev.loop import DevSession, run_dev

    session = DevSession(path, agent, extensions=tuple(extension or ()),
                         bundled=() if no_default_extensions else locate_bundled_extensions())

    def on_local(round_: LocalRound) -> None:
        show_local(round_, json_output=json_output)

    if not serve:
        note("watching for changes (Ctrl-C to stop)")
        try:
            run_core(lambda: run_dev(
                session, lambda g: show(session, g, [], serving=False, json_output=json_output),
                on_local=on_local), json_output=json_output)
        except KeyboardInterrupt:
            note("stopped")
            raise typer.Exit(130) from None
        return
    _serve(session, host, port, channel_timeout, json_output=json_output, approve=approve)


def _serve(session: DevSession, host: str, port: int, channel_timeout: float, *,
           json_output: bool, approve: bool = False) -> None:
    from eve_build.cli.serve import configure_logging
    from eve_build.serve.extra import require_serve_extra

    run_core(require_serve_extra, json_output=json_output)  # before anything imports them
    from eve_build.serve.dev import dev_lifespan

    configure_logging()

    def ready(url: str) -> None:
        if json_output:
            emit_json_line(envelope("serving", url=url))
        else:
            echo(f"serving on {url}; watching for changes (Ctrl-C to stop)")

    def run() -> Served:
        from eve_build.serve.generation import Host
        from eve_build.serve.server import run_server

        generations = Host(None)
        lifespan = dev_lifespan(
            session, generations, channel_timeout=channel_timeout,
            on_round=lambda g, problems: show(session, g, problems, json_output=json_output),
            on_local=lambda round_: show_local(round_, json_output=json_output))
        return run_server(session.app_root, host=host, port=port,
                          channel_timeout=channel_timeout, generations=generations,
                          lifespans=[lifespan], on_ready=ready, approve=approve)

    served = run_core(run, json_output=json_output)
    note(f"stopped{f' on {served.signal}' if served.signal else ''}")
    if served.signal == "SIGINT":  # Ctrl-C: 130, as without --serve (docs/cli.md)
        raise typer.Exit(130)


def show(session: DevSession, generation: Generation, problems: list[Diagnostic], *,
         serving: bool = True, json_output: bool = False) -> None:
    kept = session.last_good
    if json_output:
        loads = generation.ok and not problems
        emit_json_line(envelope(
            "ready" if loads else "failed", [*generation.diagnostics, *problems],
            generation=generation.number, changed=list(generation.changed),
            rebuilt=list(generation.rebuilt), contributions=generation.contributions,
            kept=None if loads or kept is None else kept.number,
            error=None if loads else {"message": f"generation {generation.number} failed",
                                      "hint": ""}))
        return
    changed = f" after {', '.join(generation.changed)}" if generation.changed else ""
    render_diagnostics(generation.diagnostics)
    if generation.ok and problems:
        render_diagnostics(problems)
        echo_err(f"error: generation {generation.number} was built but does not load; "
                 "the server keeps the previous one")
    elif generation.ok:
        rebuilt = f"; rebuilt {', '.join(generation.rebuilt)}" if generation.rebuilt else ""
        served = "; serving it" if serving else ""
        for upgrade in generation.upgrades:
            echo(f"  changed: {upgrade}")
        counts = ", ".join(f"{n} {_noun(kind, n)}"
                           for kind, n in generation.contributions.items() if n)
        echo(f"generation {generation.number} ready{changed}{rebuilt}{served}"
             + (f" ({counts})" if counts else ""))
    else:
        keeping = f"; keeping generation {kept.number}" if kept else "; no good generation yet"
        echo_err(f"error: generation {generation.number} failed{changed}{keeping}")


def show_local(round_: LocalRound, *, json_output: bool = False) -> None:
    from eve_build.diagnostics import Diagnostic, Diagnostics, Severity

    found = Diagnostics()
    found.extend(Diagnostic(file=d["file"], line=d["line"], code=d["code"],
                            message=d["message"], hint=d["hint"],
                            severity=Severity(d["severity"]))
                 for row in round_.rows for d in row["diagnostics"])
    if json_output:
        emit_json_line(envelope("reloaded", found.items, round=round_.number,
                                changed=list(round_.changed), extensions=list(round_.rows)))
        return
    render_diagnostics(found)
    states = ", ".join(f"{row['name']} {row['status']}" for row in round_.rows) or "none"
    echo(f"local extensions reloaded after {', '.join(round_.changed)}: {states}")


def _noun(kind: str, count: int) -> str:
    """`tools` -> `tool` for one; `instructions` stays."""
    return kind[:-1] if count == 1 and kind != "instructions" else kind
