"""`eve chat`: an interactive session in the terminal.

Tokens stream to stdout as they come; tool calls, custom messages and notices go to
stderr. `/command args` and `/skill:name` work as in `eve run`; `/help` lists the
commands (the chat's own and the local extensions'); `/exit` (or Ctrl-D) leaves. A
`/command` or `/skill:name` that does not exist is an error on stderr and the session
goes on (`eve run` exits 1 for it). A tool that asks for approval (`always()`,
`once()`) prompts `[y/N]`, and a tool's `ctx.ask` is asked field by field
(eve_build.cli.asking: one path for both).
Ctrl-C during a turn cancels that turn (nothing of it is committed) and keeps the
session; Ctrl-C at the prompt only clears the line.
"""

from __future__ import annotations

import asyncio
import signal
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from eve_build.cli.local import report_local
from eve_build.cli.options import ExtensionPaths
from eve_build.cli.output import echo_err, render_diagnostics, run_core
from eve_build.errors import EveBuildError

if TYPE_CHECKING:
    from eve_build.session.run import OpenRun
    from eve_build.session.transcript import RunResult, SessionEvent

PROMPT = "> "
EXIT = "/exit"
HELP = "/help"


def chat(
    model: str | None = typer.Option(None, "--model", "-m", help="The model, "
                                     "`provider:model` or `test` (see `eve run`)."),
    session: str | None = typer.Option(None, "--session", "-s", help="Resume this session."),
    max_requests: int = typer.Option(50, "--max-requests", min=1,
                                     help="Stop a turn after this many model requests."),
    extension: ExtensionPaths = None,
    path: Path = typer.Option(Path(), "--path", exists=True, file_okay=False,
                              help="The agent app (holds `.eve/`)."),
) -> None:
    """Talk to the agent: streamed replies, `/command args`, `/skill:name`, `/exit`."""
    from eve_build.cli.options import require_model_early

    run_core(lambda: require_model_early(path, model, session))
    from eve_build.session.run import RunRequest, open_run

    request = RunRequest(model=model, session=session, max_requests=max_requests,
                         extensions=tuple(extension or ()))

    reconfigure = getattr(sys.stdin, "reconfigure", None)
    if callable(reconfigure):  # before any read: bad bytes arrive as surrogates, per line
        reconfigure(errors="surrogateescape")

    def loop() -> None:
        with open_run(path, request) as opened:
            report_local(opened.agent)
            echo_err(f"session {opened.session.id} with `{opened.session.model}`; "
                     f"`{EXIT}` to leave")
            while (text := _read()) is not None:
                if text.strip() == EXIT:
                    break
                if text.strip() == HELP:
                    _help(opened)
                elif text.strip():
                    _turn(opened, text)
                    report_local(opened.agent, diagnostics=False)

    run_core(loop)


def _read() -> str | None:
    """The next line typed or piped; a line that is not UTF-8 text is refused with a
    warning (and the lines after it still read), never a traceback."""
    from eve_build.cli.asking import read_line
    from eve_build.diagnostics import warning

    while True:
        try:
            text = read_line(PROMPT)
        except EOFError:
            return None
        except KeyboardInterrupt:
            sys.stdout.write("\n")
            continue
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            render_diagnostics([warning(
                "session/input-invalid", "<stdin>", "the line is not UTF-8 text; it was "
                "not sent", "type it again, or set the terminal's encoding to UTF-8")])
            continue
        return text


def _help(opened: OpenRun) -> None:
    """The chat's own commands, then each local extension's (`/name ARGS  description`)."""
    rows = [(HELP, "list the commands"), (EXIT, "leave (Ctrl-D too)"),
            ("/skill:NAME [TEXT]", "send the skill NAME (then TEXT) as the message")]
    rows += [(f"/{c.name}" + (f" {c.arg_hint}" if c.arg_hint else ""),
              f"{c.description} ({c.extension})") for c in opened.agent.commands()
             if f"/{c.name}" not in (HELP, EXIT)]
    skills = sorted(s.name for s in opened.agent.compiled.root.skills)
    width = max(len(usage) for usage, _ in rows)
    for usage, description in rows:
        echo_err(f"{usage:<{width}}  {description}")
    echo_err(f"skills: {', '.join(skills) if skills else 'none'}")


def _turn(opened: OpenRun, text: str) -> None:
    from eve_build.cli.asking import abandon_questions, terminal_ask
    from eve_build.local.messages import SkillNotFoundError
    from eve_build.runtime.approval import asking_approver
    from eve_build.runtime.local_methods import CommandNotFoundError
    from eve_build.sdk.interaction import interacting

    async def run() -> RunResult | EveBuildError | None:
        loop = asyncio.get_running_loop()
        with interacting(ask=terminal_ask, loop=loop):
            task = asyncio.ensure_future(opened.asend(
                text, listener=_print_event, approver=asking_approver(terminal_ask)))
        loop.add_signal_handler(signal.SIGINT, task.cancel)
        try:
            return await task
        except asyncio.CancelledError:
            abandon_questions()  # a question of the turn hands its line to the chat
            return None
        except (CommandNotFoundError, SkillNotFoundError) as exc:
            return exc  # a typo: said below, and the chat goes on
        finally:
            loop.remove_signal_handler(signal.SIGINT)

    result = run_core(lambda: opened.agent._run(run()))
    if isinstance(result, EveBuildError):
        from eve_build.diagnostics import error

        render_diagnostics([error(
            "session/command-unknown", "<stdin>", result.message,
            f"{result.hint + '; ' if result.hint else ''}`{HELP}` lists the commands")])
        return
    if result is None:
        sys.stdout.write("\n")
        echo_err("cancelled: the turn was not kept")
    elif result.outcome != "turn":
        sys.stdout.write(result.reply)
    sys.stdout.write("\n")
    sys.stdout.flush()


def _print_event(event: SessionEvent) -> None:
    data: dict[str, Any] = event.data
    if event.kind == "token":
        sys.stdout.write(data["text"])
        sys.stdout.flush()
    elif event.kind == "tool.end":
        outcome = "ok" if data["status"] == "ok" else f"{data['status']}: {data['reason']}"
        echo_err(f"\ntool: {data['name']} {outcome}")
    elif event.kind == "custom":
        echo_err(f"{data['extension']}: {data['text']}")
    elif event.kind == "log":
        from eve_build.cli.output import detail

        detail(describe_log(data))


def describe_log(data: dict[str, Any]) -> str:
    """A `ctx.log` line for `-v` (`eve run`, `eve chat`): `log: [warning] notes: cold`."""
    return f"log: [{data['level']}] {data.get('source') or 'extension'}: {data['text']}"

