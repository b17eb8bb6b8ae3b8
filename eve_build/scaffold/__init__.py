"""`eve extension init`: render and set up a new extension package.

The CLI calls `init_extension(name, target, install=..., git=..., force=...)` and
prints the `InitResult` it returns; nothing in this package prints.

Layer 4, build side, its top: may import `hatch`, `consumer`, `extension`, `engine`,
`output`, the authored layer, formats and the foundation; never the run side.
"""

from __future__ import annotations

from eve_build.process import Runner
from eve_build.scaffold.init import InitResult, init_extension
from eve_build.scaffold.names import parse_extension_name
from eve_build.scaffold.render import ScaffoldContext, derive_context, render_scaffold

__all__ = [
    "InitResult",
    "Runner",
    "ScaffoldContext",
    "derive_context",
    "init_extension",
    "parse_extension_name",
    "render_scaffold",
]
