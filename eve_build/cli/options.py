"""Options shared by several commands, each defined once.

Every command that loads an agent takes local extensions by path with one line:

    def serve(..., extension: ExtensionPaths = None) -> None:
        load_agent(path, extensions=extension or ())
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

ExtensionPaths = Annotated[list[Path] | None, typer.Option(
    "-e", "--extension", metavar="PATH",
    help="Load this local extension (a .py file or a folder with extension.py) as well; "
         "repeatable. Naming it is the consent: no trust needed.")]
