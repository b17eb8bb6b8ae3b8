"""Reading an authored agent-shaped tree: no writes, no imports of user code."""
