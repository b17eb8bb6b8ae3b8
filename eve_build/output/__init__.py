"""Producing output: the generated files of a build, and writing them atomically."""
