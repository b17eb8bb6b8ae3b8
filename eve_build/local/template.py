"""`eve extension new-local NAME [--global]`: a commented single-file local extension.

The template is `templates/local/extension.py.jinja` (shipped in the wheel). It
writes `<project>/.eve/extensions/NAME.py`, or `$EVE_HOME/extensions/NAME.py` with
`global_`, and never over an existing file or folder of that name.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import jinja2

from eve_build.diagnostics import error
from eve_build.errors import DiagnosticsError, EveBuildError, UsageError
from eve_build.formats.writer import write_file
from eve_build.local.discovery import GLOBAL_FOLDER, locate_eve_home, locate_project_folder
from eve_build.naming import find_segment_problems, suggest_segment
from eve_build.toolchain import locate_templates

TEMPLATE = "extension.py.jinja"


@dataclass(frozen=True)
class NewLocal:
    path: Path
    scope: str  # "project" or "global"


def write_local_template(name: str, project_root: Path, *, global_: bool = False,
                         eve_home: Path | None = None) -> NewLocal:
    """Write the template for `name`; raises UsageError for a bad or taken name."""
    problems = find_segment_problems(name)
    if problems:
        raise UsageError("; ".join(problems), f"try `{suggest_segment(name)}`")
    folder = ((eve_home or locate_eve_home()) / GLOBAL_FOLDER if global_
              else locate_project_folder(project_root))
    target = folder / f"{name}.py"
    if target.exists() or (folder / name).exists():
        raise DiagnosticsError("cannot write the local extension", [error(
            "local/name-taken", str(target), f"a local extension `{name}` is already there",
            "pick another name, or edit the existing one")])
    text = jinja2.Template(
        (locate_templates("local") / TEMPLATE).read_text(encoding="utf-8"),
        keep_trailing_newline=True, undefined=jinja2.StrictUndefined).render(name=name)
    try:
        write_file(target, text)
    except OSError as exc:
        raise EveBuildError(f"cannot write `{target}`: {exc.strerror or exc}",
                            "check that the folder can be written") from None
    return NewLocal(target, "global" if global_ else "project")
