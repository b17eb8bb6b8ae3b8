"""The `eve dev` loop: rebuild on change, swap generations, report what happened.

- `loop`: `DevSession` (one build round per change; what `eve dev` and the served
  dev app run).
- `status`: the status record `eve dev` keeps for the bundled `eve_dev` extension.
- `extensions`: the bundled development extensions `eve dev` loads.

Serve layer (6): may import session, both layer-4 sides (it rebuilds and reloads),
the authored layer, formats and the foundation; never `serve`, `mcp`, `testing` or
`cli`.
"""
