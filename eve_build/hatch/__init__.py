"""The hatchling build hook `eve`: the only package of eve-build that imports hatchling.

`hooks` is the plugin entry point, `plugin` the hook, `options` checks its table,
`build_data` runs `build_extension()`, `inclusions` turns its result into what
hatchling ships and `reuse` records it, so an unchanged rebuild skips the pipeline.
"""
