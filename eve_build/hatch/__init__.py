"""The hatchling build hook `eve`: the only package of eve-build that imports hatchling.

`hooks` is the plugin entry point, `plugin` the hook, `options` checks its table and
`build_data` turns a `build_extension()` result into what hatchling ships.
"""
