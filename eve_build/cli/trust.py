"""`eve trust`: approve (or revoke) a project's `.eve/extensions/` by its content."""

from __future__ import annotations

from pathlib import Path

import typer

from eve_build.cli.conventions import JSON_OPTION, path_option
from eve_build.cli.output import echo, echo_err, emit_result, run_core, summary
from eve_build.cli.summaries import counted


def register(app: typer.Typer) -> None:
    app.command("trust")(trust)


def trust(
    path: Path = path_option("The project root (holds `.eve/`)."),
    yes: bool = typer.Option(False, "--yes", "-y", help="Approve without asking (scripts)."),
    revoke: bool = typer.Option(False, "--revoke", help="Forget the approval."),
    json_output: bool = JSON_OPTION,
) -> None:
    """Show the project's local extension files and approve them (asks first).

    With `--json` the files and the question go to stderr and the outcome to stdout:
    `status` is `trusted`, `already-trusted`, `empty`, `revoked` or `not-approved`.
    """
    from eve_build.local.discovery import PROJECT_FOLDER, locate_eve_home
    from eve_build.local.trust import approve_trust, check_trust, revoke_trust

    # what the question is about; with `--yes` nothing is asked: a summary, none with -q
    show = echo_err if json_output else summary if yes else echo
    home = locate_eve_home()
    if revoke:
        revoked = run_core(lambda: revoke_trust(path, home), json_output=json_output)
        if json_output:
            emit_result("revoked" if revoked else "not-approved", folder=str(path), files=[])
        elif revoked:
            summary(f"Revoked the approval of `{PROJECT_FOLDER}` in `{path}`")
        else:
            summary(f"`{PROJECT_FOLDER}` in `{path}` was not approved")
        return
    check = run_core(lambda: check_trust(path, home), json_output=json_output)
    if check.state in ("empty", "trusted"):
        if json_output:
            emit_result("empty" if check.state == "empty" else "already-trusted",
                        folder=str(check.folder), files=list(check.files))
        elif check.state == "empty":
            summary(f"There are no files in `{PROJECT_FOLDER}` to approve")
        else:
            summary(f"`{PROJECT_FOLDER}` is already trusted as it is "
                    f"({counted(len(check.files), 'file')})")
        return
    said = " (changed since approved)" if check.state == "changed" else ""
    show(f"The project's local extensions in `{check.folder}`{said} run as your user:")
    for name in check.files:
        show(f"  {name}")
    if not yes and not typer.confirm("Trust these files?", default=False, err=json_output):
        if json_output:
            emit_result("failed", folder=str(check.folder), files=list(check.files),
                        error={"message": "not trusted",
                               "hint": "review the files, then run `eve trust` again"})
        echo_err("error: not trusted\n\nhint: review the files, then run `eve trust` again")
        raise typer.Exit(1)
    approved = run_core(lambda: approve_trust(path, home), json_output=json_output)
    if json_output:
        emit_result("trusted", folder=str(check.folder), files=list(approved.files),
                    digest=approved.digest)
        return
    summary(f"Trusted `{PROJECT_FOLDER}` ({counted(len(approved.files), 'file')}, "
            f"{approved.digest})")
