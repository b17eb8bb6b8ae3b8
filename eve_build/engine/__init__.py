"""The build engine: user code in worker processes under a time budget, and the cache.

- `budget`: how long one module may take to import (`import-timeout`, `EVE_IMPORT_TIMEOUT`).
- `progress`: what a worker tells its parent while it runs (the module in progress).
- `workers`: start workers, watch them against the budget, turn a hang or a crash into a
  diagnostic naming the module.
- `author`: the import-and-check step of `eve extension build`, split across workers.
- `consumer`: the import step of `eve build` / `eve info`, in one worker.
- `cache`: the content-addressed cache of per-module check results.
- `plan`: the workspace build graph of `eve build --plan`.
"""
