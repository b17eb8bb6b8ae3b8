"""The workspace CI template: a GitHub Actions matrix read from `eve build --plan --json`.

    text = render_workspace_ci()   # -> .github/workflows/eve-build.yml of a uv workspace

docs/scaling.md explains the jobs and how the same plan feeds other build systems.
"""

from __future__ import annotations

from pathlib import Path

import jinja2

import eve_build
from eve_build._version import __version__

WORKSPACE_CI_TEMPLATE = "workspace/dot-github/workflows/eve-build.yml.jinja"
WORKSPACE_CI_PATH = ".github/workflows/eve-build.yml"


def locate_templates() -> Path:
    """`eve_build/_templates/` in a wheel, the repository's `templates/` in a checkout."""
    package = Path(eve_build.__file__).resolve().parent
    shipped = package / "_templates"
    return shipped if shipped.is_dir() else package.parent / "templates"


def render_workspace_ci(eve_build_version: str = __version__) -> str:
    environment = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(locate_templates())), keep_trailing_newline=True,
        undefined=jinja2.StrictUndefined, autoescape=False,
    )
    template = environment.get_template(WORKSPACE_CI_TEMPLATE)
    return template.render(eve_build_version=eve_build_version)
