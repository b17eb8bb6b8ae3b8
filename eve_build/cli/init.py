"""`eve init NAME`: scaffold an agent project (the core is `eve_build.scaffold.agent`)."""

from __future__ import annotations

from pathlib import Path

import typer

from eve_build.cli.conventions import (
    DIR_OPTION,
    FORCE_OPTION,
    JSON_OPTION,
    NO_GIT_OPTION,
    NO_INSTALL_OPTION,
)
from eve_build.cli.output import note, run_core
from eve_build.cli.summaries import shown_path as _shown


def register(app: typer.Typer) -> None:
    app.command("init")(init)


def init(
    name: str = typer.Argument(..., help="The project's name, e.g. support-agent."),
    directory: Path | None = DIR_OPTION,
    no_install: bool = NO_INSTALL_OPTION,
    no_git: bool = NO_GIT_OPTION,
    force: bool = FORCE_OPTION,
    json_output: bool = JSON_OPTION,
) -> None:
    """Scaffold an agent project whose own tests pass and that runs offline out of the box.

    The agent's model is EVE_MODEL when set, else a commented line in agent/agent.py.
    """
    from eve_build.cli.steps import make_step_printer, print_created
    from eve_build.scaffold.agent import check_agent_init, init_agent

    target = directory if directory is not None else Path(name)
    run_core(lambda: check_agent_init(name, target, force=force), json_output=json_output)
    if not json_output:  # only once the name and target are known to be usable
        note(f"Creating the agent {name} in {_shown(target)}...")
    report = make_step_printer()
    result = run_core(lambda: init_agent(
        name, target, install=not no_install, git=not no_git, force=force, report=report
    ), json_output=json_output)
    print_created(result, json_output=json_output, what=f"the agent {name}",
                  fields={"project": name}, next_title="Next steps (PACKAGE_OR_PATH: an "
                  "extension's package name, wheel or folder):")
