"""`eve extension init`: render and set up a new extension package.

    from eve_build.scaffold import init_extension

    result = init_extension("acme-crm", Path("acme-crm"), install=False, git=False)
"""

from __future__ import annotations

from eve_build.scaffold.init import InitResult, init_extension
from eve_build.scaffold.names import parse_extension_name
from eve_build.scaffold.render import ScaffoldContext, derive_context, render_scaffold
from eve_build.scaffold.steps import Runner

__all__ = [
    "InitResult",
    "Runner",
    "ScaffoldContext",
    "derive_context",
    "init_extension",
    "parse_extension_name",
    "render_scaffold",
]
