"""Producing output: the generated files of a build (written atomically by `formats.writer`).

Layer 4, build side, its lowest room: may import the authored layer, formats and the
foundation; nothing else of the build side and nothing of the run side.
"""
