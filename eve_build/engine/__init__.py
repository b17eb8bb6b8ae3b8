"""The build engine: user code in worker processes under a time budget, and the cache.

(`import-timeout` is read by `project.budget`, a worker's progress is `load.progress`,
and `eve build --plan` is `consumer.plan`.)

- `workers`: start workers, watch them against the budget, turn a hang or a crash into a
  diagnostic naming the module; `job`: a worker's entry point (for `workers` and `zygote`).
- `author`: the import-and-check step of `eve extension build`, split across workers.
- `consumer`: the import step of `eve build` / `eve info`, in one worker.
- `cache`: the content-addressed cache of per-module check results.

Layer 4, build side: may import `output`, the authored layer, formats and the
foundation; never `extension`, `consumer`, `hatch`, `add`, `scaffold` or the run side
(the consumer's import step is passed in as a callable).
"""
