"""`eve dev`: build, watch, rebuild."""

from __future__ import annotations

from pathlib import Path

import typer

from eve_build.cli.options import ExtensionPaths
from eve_build.cli.output import echo, echo_err, render_diagnostics, run_core


def register(app: typer.Typer) -> None:
    app.command("dev")(dev)


def dev(
    agent: str | None = typer.Option(None, "--agent", help="The agent of a workspace."),
    path: Path = typer.Option(Path(), "--path", help="The app (or workspace) root."),
    extension: ExtensionPaths = None,
) -> None:
    """Build, then watch the sources and rebuild what changed (Ctrl-C to stop)."""
    from eve_build.dev import DevSession, Generation, LocalRound, run_dev

    session = DevSession(path, agent, extensions=tuple(extension or ()))

    def show(generation: Generation) -> None:
        changed = f" after {', '.join(generation.changed)}" if generation.changed else ""
        render_diagnostics(generation.diagnostics)
        if generation.ok:
            rebuilt = f"; rebuilt {', '.join(generation.rebuilt)}" if generation.rebuilt else ""
            echo(f"generation {generation.number} ready{changed}{rebuilt}")
        else:
            kept = session.last_good
            keeping = (f"; keeping generation {kept.number}" if kept
                       else "; no good generation yet")
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

    echo_err("watching for changes (Ctrl-C to stop)")
    run_core(lambda: run_dev(session, show, on_local=show_local))
