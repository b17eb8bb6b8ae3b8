"""The composed host: a compiled agent with its local extensions and its connections.

    from eve_build.runtime import load_agent   # the documented path; it answers from here

`load_agent` and `open_agent` (loader.py) open the agent with the runtime core
(`eve_build.runtime.loader.open_compiled_agent`) and hand it the local layer
(`eve_build.local`) and the connections' tools (`eve_build.connections`), which both
build on the runtime; so the composition sits above all three.

Layer 4, run side, its top: may import `local`, `node`, `connections`, `runtime`, the
authored layer, formats and the foundation; never the build side.
"""

from __future__ import annotations

from eve_build.host.loader import load_agent, open_agent

__all__ = ["load_agent", "open_agent"]
