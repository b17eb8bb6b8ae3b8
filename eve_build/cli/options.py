"""Options shared by several commands, each defined once.

Every command that loads an agent takes local extensions by path with one line:

    def serve(..., extension: ExtensionPaths = None) -> None:
        load_agent(path, extensions=extension or ())
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

ExtensionPaths = Annotated[list[Path] | None, typer.Option(
    "-e", "--extension", metavar="PATH",
    help="Load this local extension (a .py file or a folder with extension.py) as well; "
         "repeatable. Naming it is the consent: no trust needed.")]


def setting_option(default: float | str, name: str, help: str) -> Any:
    """A numeric option checked against its row of eve_build.settings: `nan`, `inf` or a
    value out of range is a usage error (exit 2) naming the option, its range and a fix."""

    def check(value: float | str) -> float:
        from eve_build.settings import SettingError, parse_setting

        try:
            return parse_setting(name, value)
        except SettingError as exc:
            found = exc.diagnostics[0]
            raise typer.BadParameter(f"{found.message}; {found.hint}") from None

    return typer.Option(default, name, help=help, callback=check)


def require_model_early(path: Path, model: str | None, session: str | None) -> None:
    """`session/model-missing` before the session machinery (and pydantic-ai) is imported
    (eve_build.session.models.require_model)."""
    from eve_build.project.app import try_find_app_root
    from eve_build.session.models import require_model

    root = try_find_app_root(path.resolve()) or path.resolve()
    require_model(root, model, session is not None)
