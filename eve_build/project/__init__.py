"""Reading a project's pyproject.toml, and where an app keeps its agent (`app`).

Layer 3 (authored, beside `source` and `load`): may import formats and the foundation.
"""
