"""`eve dev`: build, watch, rebuild, and serve each good generation."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import typer

from eve_build.cli.options import ExtensionPaths
from eve_build.cli.output import echo, echo_err, render_diagnostics, run_core

if TYPE_CHECKING:
    from eve_build.dev import DevSession, Generation, LocalRound
    from eve_build.diagnostics import Diagnostic


def register(app: typer.Typer) -> None:
    app.command("dev")(dev)


def dev(
    agent: str | None = typer.Option(None, "--agent", help="The agent of a workspace."),
    path: Path = typer.Option(Path(), "--path", help="The app (or workspace) root."),
    extension: ExtensionPaths = None,
    serve: bool = typer.Option(True, "--serve/--no-serve",
                               help="Serve each good generation (channels, schedules)."),
    host: str = typer.Option("127.0.0.1", "--host", help="The address to listen on."),
    port: int = typer.Option(8000, "--port", help="The port to listen on (0: a free one)."),
    channel_timeout: float = typer.Option(30.0, "--channel-timeout", min=0.001,
                                          help="Seconds a channel handler may take."),
) -> None:
    """Build, then watch the sources and rebuild what changed (Ctrl-C to stop)."""
    from eve_build.dev import DevSession, run_dev

    session = DevSession(path, agent, extensions=tuple(extension or ()))
    if not serve:
        echo_err("watching for changes (Ctrl-C to stop)")
        run_core(lambda: run_dev(session, lambda g: show(session, g, [], serving=False),
                                 on_local=show_local))
        return
    _serve(session, host, port, channel_timeout)


def _serve(session: DevSession, host: str, port: int, channel_timeout: float) -> None:
    from eve_build.cli.serve import configure_logging
    from eve_build.serve.dev import dev_lifespan
    from eve_build.serve.server import Served

    configure_logging()

    def run() -> Served:
        from eve_build.serve.extra import require_serve_extra

        require_serve_extra()
        from eve_build.serve.generation import Host
        from eve_build.serve.server import run_server

        generations = Host(None)
        lifespan = dev_lifespan(session, generations, channel_timeout=channel_timeout,
                                on_round=lambda g, problems: show(session, g, problems),
                                on_local=show_local)
        return run_server(session.app_root, host=host, port=port,
                          channel_timeout=channel_timeout, generations=generations,
                          lifespans=[lifespan], on_ready=lambda url: echo(
                              f"serving on {url}; watching for changes (Ctrl-C to stop)"))

    served = run_core(run)
    echo_err(f"stopped{f' on {served.signal}' if served.signal else ''}")


def show(session: DevSession, generation: Generation, problems: list[Diagnostic], *,
         serving: bool = True) -> None:
    changed = f" after {', '.join(generation.changed)}" if generation.changed else ""
    render_diagnostics(generation.diagnostics)
    kept = session.last_good
    if generation.ok and problems:
        render_diagnostics(problems)
        echo_err(f"error: generation {generation.number} was built but does not load; "
                 "the server keeps the previous one")
    elif generation.ok:
        rebuilt = f"; rebuilt {', '.join(generation.rebuilt)}" if generation.rebuilt else ""
        served = "; serving it" if serving else ""
        for upgrade in generation.upgrades:
            echo(f"  changed: {upgrade}")
        echo(f"generation {generation.number} ready{changed}{rebuilt}{served}")
    else:
        keeping = f"; keeping generation {kept.number}" if kept else "; no good generation yet"
        echo_err(f"error: generation {generation.number} failed{changed}{keeping}")


def show_local(round_: LocalRound) -> None:
    from eve_build.diagnostics import Diagnostic, Diagnostics, Severity

    found = Diagnostics()
    found.extend(Diagnostic(file=d["file"], line=d["line"], code=d["code"],
                            message=d["message"], hint=d["hint"],
                            severity=Severity(d["severity"]))
                 for row in round_.rows for d in row["diagnostics"])
    render_diagnostics(found)
    states = ", ".join(f"{row['name']} {row['status']}" for row in round_.rows) or "none"
    echo(f"local extensions reloaded after {', '.join(round_.changed)}: {states}")
