"""`eve dev`: build, watch, rebuild; `--json` prints one JSON line per generation."""

from __future__ import annotations

from pathlib import Path

import typer

from eve_build.cli.conventions import AGENT_OPTION, JSON_OPTION, path_option
from eve_build.cli.options import ExtensionPaths
from eve_build.cli.output import (
    echo,
    echo_err,
    emit_json_line,
    envelope,
    note,
    render_diagnostics,
    run_core,
)


def register(app: typer.Typer) -> None:
    app.command("dev")(dev)


def dev(
    agent: str | None = AGENT_OPTION,
    path: Path = path_option("The app (or workspace) root."),
    extension: ExtensionPaths = None,
    json_output: bool = JSON_OPTION,
) -> None:
    """Build, then watch the sources and rebuild what changed (Ctrl-C to stop)."""
    from eve_build.dev import DevSession, Generation, LocalRound, run_dev

    session = DevSession(path, agent, extensions=tuple(extension or ()))

    def show(generation: Generation) -> None:
        if json_output:
            emit_json_line(envelope(
                "ready" if generation.ok else "failed", generation.diagnostics,
                generation=generation.number, changed=list(generation.changed),
                rebuilt=list(generation.rebuilt), contributions=generation.contributions,
                kept=None if generation.ok or session.last_good is None
                else session.last_good.number))
            return
        changed = f" after {', '.join(generation.changed)}" if generation.changed else ""
        render_diagnostics(generation.diagnostics)
        if generation.ok:
            rebuilt = f"; rebuilt {', '.join(generation.rebuilt)}" if generation.rebuilt else ""
            counts = ", ".join(f"{n} {_noun(kind, n)}"
                               for kind, n in generation.contributions.items() if n)
            echo(f"generation {generation.number} ready{changed}{rebuilt}"
                 + (f" ({counts})" if counts else ""))
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
        if json_output:
            emit_json_line(envelope("reloaded", found.items, round=round_.number,
                                    changed=list(round_.changed), extensions=list(round_.rows)))
            return
        render_diagnostics(found)
        states = ", ".join(f"{row['name']} {row['status']}" for row in round_.rows) or "none"
        echo(f"local extensions reloaded after {', '.join(round_.changed)}: {states}")

    note("watching for changes (Ctrl-C to stop)")
    try:
        run_core(lambda: run_dev(session, show, on_local=show_local), json_output=json_output)
    except KeyboardInterrupt:
        note("stopped")
        raise typer.Exit(130) from None


def _noun(kind: str, count: int) -> str:
    """`tools` -> `tool` for one; `instructions` stays."""
    return kind[:-1] if count == 1 and kind != "instructions" else kind
