"""`eve run` and `eve chat`: the built agent with a model (docs/sessions.md)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from eve_build.cli.conventions import JSON_OPTION, path_option
from eve_build.cli.options import ExtensionPaths
from eve_build.cli.output import detail, echo, echo_err, emit_result, run_core

if TYPE_CHECKING:
    from eve_build.session.transcript import RunResult, SessionEvent

PATH_HELP = "The agent app (holds `.eve/`)."
MODEL_OPTION = typer.Option(None, "--model", "-m", help="The model, `provider:model` "
                            "(`openai:gpt-4.1`, `openai-chat:NAME`) or `test` (offline); "
                            "default: EVE_MODEL, then the resumed session's model, then "
                            "define_agent(model=...).")
SESSION_OPTION = typer.Option(None, "--session", "-s", help="Resume this session id.")
MAX_REQUESTS_OPTION = typer.Option(50, "--max-requests", min=1,
                                   help="Stop a run after this many model requests.")


ANSWER_OPTION = typer.Option(None, "--answer", "-a", metavar="FIELD=VALUE",
                             help="Answer a field a tool asks for (`ctx.ask`), parsed by "
                             "its schema; repeatable. Fields left unanswered are asked on "
                             "a terminal, else the run fails (`session/input-required`).")


def given_answers(pairs: list[str], *, terminal: bool) -> Any:
    """The asker of `--answer` values (a usage error, exit 2, for a text that is not
    `field=value`); on a terminal it asks what they leave."""
    from eve_build.cli.asking import can_ask, terminal_ask
    from eve_build.sdk.questions import parse_answers
    from eve_build.session.asking import GivenAnswers

    answers, bad = parse_answers(pairs)
    if bad:
        raise typer.BadParameter(f"`{bad[0]}` is not `field=value`", param_hint="'--answer'")
    return GivenAnswers(answers, terminal_ask if terminal and can_ask() else None)


def register(app: typer.Typer) -> None:
    from eve_build.cli.chat import chat

    app.command("run")(run)
    app.command("chat")(chat)


def run(
    text: str = typer.Argument(..., help="The message (also `/command args`, `/skill:name`)."),
    model: str | None = MODEL_OPTION,
    session: str | None = SESSION_OPTION,
    approve: bool = typer.Option(False, "--approve", help="Approve every tool that asks."),
    max_requests: int = MAX_REQUESTS_OPTION,
    answer: list[str] | None = ANSWER_OPTION,
    json_output: bool = JSON_OPTION,
    extension: ExtensionPaths = None,
    path: Path = path_option(PATH_HELP),
) -> None:
    """Send one message to the agent: the turns it needs, the final reply on stdout."""
    from eve_build.cli.options import require_model_early

    run_core(lambda: require_model_early(path, model, session), json_output=json_output)
    from eve_build.session.run import RunRequest, run_message

    request = RunRequest(model=model, session=session, approve=approve,
                         max_requests=max_requests, extensions=tuple(extension or ()))
    listener = None if json_output else _terminal_listener()
    ask = given_answers(answer or [], terminal=not json_output)
    result = run_core(lambda: run_message(path, text, request, ask=ask,
                                          **_listen(listener)), json_output=json_output)
    if json_output:
        emit_result("ok" if result.ok else "failed", **result.to_json(),
                    error=None if result.ok else {"message": result.reply, "hint": ""})
    else:
        _print_reply(result)
    if not result.ok:
        raise typer.Exit(1)


def _listen(listener: Any) -> dict[str, Any]:
    return {} if listener is None else {"listener": listener}


def _terminal_listener() -> Any:
    """Tool calls, custom messages and (with `-v`) logs on stderr as they happen (the reply
    comes whole)."""
    def listen(event: SessionEvent) -> None:
        data = event.data
        if event.kind == "tool.end":
            outcome = "ok" if data["status"] == "ok" else f"{data['status']}: {data['reason']}"
            echo_err(f"tool: {data['name']} {outcome}")
        elif event.kind == "custom":
            echo_err(f"{data['extension']}: {data['text']}")
        elif event.kind == "log":
            from eve_build.cli.chat import describe_log

            detail(describe_log(data))

    return listen


def _print_reply(result: RunResult) -> None:
    echo(result.reply)  # stdout carries only the final reply
    if result.outcome == "turn":
        echo_err(f"session: {result.session}")
    sys.stdout.flush()


