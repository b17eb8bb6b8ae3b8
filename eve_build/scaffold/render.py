"""Render the `eve extension init` and `eve init` scaffolds from the jinja2 templates.

The templates live at the repository's top level in `templates/extension/` (an
extension package) and `templates/agent/` (an agent project) and ship in the wheel as
`eve_build/_templates/<kind>/` (found by
`eve_build.toolchain.locate_templates`). A template's path below that folder, minus
`.jinja`, is the output path; a segment spelled `dot-NAME` is written as `.NAME`, so
that the template tree holds no dotfiles of its own (a real `.gitignore` or `.github/`
there would act on eve-build's own repository).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path, PurePosixPath
from typing import Any

import jinja2

from eve_build._version import __version__
from eve_build.errors import EveBuildError
from eve_build.naming import derive_import_name
from eve_build.scaffold.metadata import (
    Author,
    derive_agent_pyproject,
    derive_pyproject,
    derive_runtime_requirement,
)
from eve_build.scaffold.options import SampleConfig, derive_options_table, derive_sample_fields
from eve_build.toolchain import EXTENSION_TEMPLATE as EXTENSION_TEMPLATE
from eve_build.toolchain import locate_templates as locate_templates

AGENT_TEMPLATE = "agent"
"""The `eve init` templates, `templates/agent/`."""
TEMPLATE_SUFFIX = ".jinja"
OWN_REPOSITORY_ONLY = (".github/workflows/ci.yml",)
"""Files only a package that is its own repository gets (not a workspace member)."""
DOT_PREFIX = "dot-"


@dataclass(frozen=True)
class ScaffoldContext:
    """The variables every template sees."""

    name: str
    """The distribution name, `acme-crm`."""
    import_name: str
    """The generated import package and mount factory, `acme_crm`."""
    eve_build_version: str
    """The eve-build that makes the scaffold, pinned in `[build-system]`."""
    authors: tuple[Author, ...] = ()
    """`[project].authors`, from `git config` when set."""
    own_repository: bool = True
    """False for a workspace member: no CI workflow of its own."""
    member_path: str = ""
    """A uv workspace member's folder relative to the workspace root (`packages/wx`);
    empty for a package of its own: README and AGENTS.md then say the `uv run` lines."""
    model: str = ""
    """An agent's model for `define_agent(model=...)` (`eve init`, from `EVE_MODEL`);
    empty: the line is left commented for the user."""


def derive_context(name: str, eve_build_version: str = __version__,
                   authors: tuple[Author, ...] = (), *,
                   own_repository: bool = True, member_path: str = "",
                   model: str = "") -> ScaffoldContext:
    """The template context for the distribution `name` (assumed already valid)."""
    return ScaffoldContext(
        name=name,
        import_name=str(derive_import_name(name)),
        eve_build_version=eve_build_version,
        authors=authors,
        own_repository=own_repository,
        member_path=member_path,
        model=model,
    )


def derive_variables(context: ScaffoldContext) -> dict[str, Any]:
    """What the templates see: the context plus the data-derived pieces."""
    return {
        **asdict(context),
        "runtime_requirement": derive_runtime_requirement(context.eve_build_version),
        "config_fields": derive_sample_fields(),
        "options_table": derive_options_table(SampleConfig.model_json_schema()).rstrip("\n"),
    }


def derive_output_path(template: PurePosixPath) -> str:
    """`dot-github/workflows/ci.yml.jinja` -> `.github/workflows/ci.yml`."""
    parts = list(template.parts)
    parts[-1] = parts[-1].removesuffix(TEMPLATE_SUFFIX)
    mapped = [
        "." + part.removeprefix(DOT_PREFIX) if part.startswith(DOT_PREFIX) else part
        for part in parts
    ]
    return PurePosixPath(*mapped).as_posix()


def find_templates(folder: Path) -> list[PurePosixPath]:
    """Every `*.jinja` file below `folder`, relative and sorted."""
    found = [
        PurePosixPath(path.relative_to(folder).as_posix())
        for path in folder.rglob(f"*{TEMPLATE_SUFFIX}")
        if path.is_file() and "__pycache__" not in path.parts
    ]
    return sorted(found)


def render_scaffold(context: ScaffoldContext, folder: Path | None = None, *,
                    kind: str = EXTENSION_TEMPLATE) -> dict[str, str]:
    """Render every template: relative POSIX output path -> text, sorted by path.

    pyproject.toml is written from data (`metadata.derive_pyproject`, or
    `derive_agent_pyproject` for an agent), not a template.
    Pure: reads the templates, writes nothing.

    Args:
        context: the template variables, from `derive_context`.
        folder: the template folder; `locate_templates(kind)` when None.
        kind: `extension` (`eve extension init`) or `agent` (`eve init`).

    Raises:
        EveBuildError: a template is missing, or uses an undefined variable.
    """
    folder = folder if folder is not None else locate_templates(kind)
    environment = jinja2.Environment(
        loader=jinja2.FileSystemLoader(folder),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        autoescape=False,
    )
    variables = derive_variables(context)
    pyproject = derive_agent_pyproject if kind == AGENT_TEMPLATE else derive_pyproject
    rendered: dict[str, str] = {
        "pyproject.toml": pyproject(context.name, context.eve_build_version, context.authors),
    }
    for template in find_templates(folder):
        try:
            text = environment.get_template(template.as_posix()).render(variables)
        except jinja2.TemplateError as exc:
            raise EveBuildError(
                f"`{folder / template}`: the scaffold template does not render: {exc}",
                hint="this is a bug in eve-build's templates; please report it",
            ) from exc
        rendered[derive_output_path(template)] = text
    if not context.own_repository:
        for path in OWN_REPOSITORY_ONLY:
            rendered.pop(path, None)
    return dict(sorted(rendered.items()))
