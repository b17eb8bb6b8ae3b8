"""Reading an authored agent-shaped tree: no writes, no imports of user code.

Layer 3 (authored, beside `project` and `load`): may import formats and the foundation.
"""
