"""Formats: what the build writes and the run side reads, as plain data.

The compatibility manifest, the compiled agent and the freshness record live here so
that the build side and the run side both depend on them and never on each other.
May import only the foundation modules at the top of `eve_build` (and the standard
library, pydantic, packaging).
"""
