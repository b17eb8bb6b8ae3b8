"""`eve trust`: approve (or revoke) a project's `.eve/extensions/` by its content."""

from __future__ import annotations

from pathlib import Path

import typer

from eve_build.cli.output import echo, echo_err, run_core


def register(app: typer.Typer) -> None:
    app.command("trust")(trust)


def trust(
    path: Path = typer.Option(Path(), "--path", help="The project root (holds `.eve/`)."),
    yes: bool = typer.Option(False, "--yes", "-y", help="Approve without asking (scripts)."),
    revoke: bool = typer.Option(False, "--revoke", help="Forget the approval."),
) -> None:
    """Show the project's local extension files and approve them (asks first)."""
    from eve_build.local.discovery import PROJECT_FOLDER, locate_eve_home
    from eve_build.local.trust import approve_trust, check_trust, revoke_trust

    home = locate_eve_home()
    if revoke:
        if run_core(lambda: revoke_trust(path, home)):
            echo(f"Revoked the approval of `{PROJECT_FOLDER}` in `{path}`")
        else:
            echo(f"`{PROJECT_FOLDER}` in `{path}` was not approved")
        return
    check = run_core(lambda: check_trust(path, home))
    if check.state == "empty":
        echo(f"There are no files in `{PROJECT_FOLDER}` to approve")
        return
    if check.state == "trusted":
        echo(f"`{PROJECT_FOLDER}` is already trusted as it is ({len(check.files)} files)")
        return
    said = " (changed since approved)" if check.state == "changed" else ""
    echo(f"The project's local extensions in `{check.folder}`{said} run as your user:")
    for name in check.files:
        echo(f"  {name}")
    if not yes and not typer.confirm("Trust these files?", default=False):
        echo_err("error: not trusted\n\nhint: review the files, then run `eve trust` again")
        raise typer.Exit(1)
    approved = run_core(lambda: approve_trust(path, home))
    echo(f"Trusted `{PROJECT_FOLDER}` ({len(approved.files)} files, {approved.digest})")
