"""Project extensions: a local extension in its own process (DESIGN.md section 8).

A *node* is a normal Python project (pyproject.toml depending on eve-build, an
`extension.py` with `setup(ctx) -> Spec`) that runs in its own venv and answers
JSON-RPC 2.0 on the Unix socket `$EVE_HOME/run/<name>.sock` (docs/protocol.md).

- `paths`, `registry`, `security`, `liveness`: where nodes live, `nodes.json`, socket
  checks, pid files and stale leftovers.
- `protocol`, `connection`: the wire format and one async connection to a node.
- `server`, `context`, `__main__`: the node side (`python -m eve_build.node`).
- `venv`, `process`, `lifecycle`, `reload`: `eve node add|start|list|stop|remove`.
- `client`, `scan`: the host side, turning running nodes into `Spec`s of origin `node`.

Layer 4, run side: may import `runtime`, the authored layer, formats and the foundation;
never `local` or `connections`, never the build side (a node's venv installs
eve-build with the foundation module `eve_build.toolchain`).
"""
