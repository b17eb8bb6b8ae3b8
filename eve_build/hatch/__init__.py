"""The hatchling build hook `eve`: the only package of eve-build that imports hatchling.

`hooks` is the plugin entry point, `plugin` the hook, `options` checks its table,
`build_data` runs `build_extension()` (whose build stamp skips an unchanged rebuild)
and `inclusions` turns its result into what hatchling ships.

Layer 4, build side: may import `consumer`, `extension`, `engine`, `output`, the
authored layer, formats and the foundation; never `add`, `scaffold` or the run side.
"""
