"""The extension build: `eve extension build` as one pipeline, and the checks around its output.

- `build`: pyproject -> discover -> import -> check -> generate -> write
  (`build_extension`, also `from eve_build import build_extension`).
- `guards`: what a build may replace, checked before the output is written.
- `shipping`: the output about to be packed is exactly what its build wrote.

Build side (layer 4): may import the engine, output, the authored
layer (project, source, load), formats and the foundation; never the run side
(runtime, local, node, connections) or anything above.
"""
