"""`eve dev`: build, watch, rebuild."""

from __future__ import annotations

from pathlib import Path

import typer

from eve_build.cli.output import echo, echo_err, render_diagnostics, run_core


def register(app: typer.Typer) -> None:
    app.command("dev")(dev)


def dev(
    agent: str | None = typer.Option(None, "--agent", help="The agent of a workspace."),
    path: Path = typer.Option(Path(), "--path", help="The app (or workspace) root."),
) -> None:
    """Build, then watch the sources and rebuild what changed (Ctrl-C to stop)."""
    from eve_build.dev import DevSession, Generation, run_dev

    session = DevSession(path, agent)

    def show(generation: Generation) -> None:
        changed = f" after {', '.join(generation.changed)}" if generation.changed else ""
        render_diagnostics(generation.diagnostics)
        if generation.ok:
            rebuilt = f"; rebuilt {', '.join(generation.rebuilt)}" if generation.rebuilt else ""
            for upgrade in generation.upgrades:
                echo(f"  changed: {upgrade}")
            echo(f"generation {generation.number} ready{changed}{rebuilt}")
        else:
            kept = session.last_good
            keeping = (f"; keeping generation {kept.number}" if kept
                       else "; no good generation yet")
            echo_err(f"error: generation {generation.number} failed{changed}{keeping}")

    echo_err("watching for changes (Ctrl-C to stop)")
    run_core(lambda: run_dev(session, show))
