"""`eve sessions list | show ID | delete ID`: the agent's stored sessions."""

from __future__ import annotations

from pathlib import Path

import typer

from eve_build.cli.conventions import JSON_OPTION, path_option
from eve_build.cli.output import echo, emit_result, note, run_core, summary

app = typer.Typer(help="Stored agent sessions: list, show, delete (EVE_SESSION_STORE).",
                  no_args_is_help=True)

PATH_HELP = "The agent app (holds `.eve/sessions.sqlite3`)."


def register(root: typer.Typer) -> None:
    root.add_typer(app, name="sessions")


def _root(path: Path) -> Path:
    from eve_build.project.app import try_find_app_root

    return try_find_app_root(path.resolve()) or path.resolve()


@app.command("list")
def list_(path: Path = path_option(PATH_HELP), json_output: bool = JSON_OPTION) -> None:
    """Every session, most recently updated first: id, model, turns, usage."""
    from eve_build.session.listing import list_sessions

    where, rows = run_core(lambda: list_sessions(_root(path)), json_output=json_output)
    if json_output:
        emit_result("listed", store=where, sessions=rows)
        return
    if not rows:
        note(f"No sessions in `{where}`; start one with `eve run TEXT`")
    for row in rows:
        usage = row["usage"]
        echo(f"{row['id']}  {row['updatedAt']}  {row['model'] or '-'}  turns: {row['turns']}  "
             f"tokens: {usage['inputTokens']} in / {usage['outputTokens']} out")


@app.command("show")
def show(session_id: str = typer.Argument(..., metavar="ID", help="The session id."),
         path: Path = path_option(PATH_HELP), json_output: bool = JSON_OPTION) -> None:
    """One session: its messages, usage, approvals and state."""
    from eve_build.session.listing import describe_transcript, show_session

    shown = run_core(lambda: show_session(_root(path), session_id), json_output=json_output)
    if json_output:
        emit_result("shown", **shown)
        return
    session = shown["session"]
    usage = session["usage"]
    echo(f"session {session['id']}  model: {session['model'] or '-'}  turns: "
         f"{session['turns']}  created {session['createdAt']}  updated {session['updatedAt']}")
    choice = session["modelChoice"]
    echo(f"next turn's model: {choice['model']} (from {choice['source']})" if choice else
         "next turn's model: none configured (pass `--model`, set `EVE_MODEL`)")
    echo(f"usage: {usage['requests']} requests, {usage['inputTokens']} input tokens, "
         f"{usage['outputTokens']} output tokens, {usage['toolCalls']} tool calls")
    if session["approvals"]:
        echo(f"approved for the session: {', '.join(session['approvals'])}")
    for role, text in describe_transcript(session["messages"]):
        echo(f"[{role}] {text}")
    for custom in session["custom"]:
        echo(f"[{custom.get('type', 'custom')}] {custom.get('text', '')}")


@app.command("delete")
def delete(session_id: str = typer.Argument(..., metavar="ID", help="The session id."),
           path: Path = path_option(PATH_HELP), json_output: bool = JSON_OPTION) -> None:
    """Delete a session: its messages, state and approvals."""
    from eve_build.session.listing import delete_session

    where = run_core(lambda: delete_session(_root(path), session_id), json_output=json_output)
    if json_output:
        emit_result("deleted", store=where, id=session_id)
        return
    summary(f"Deleted session `{session_id}` from `{where}`")
