"""The consuming agent: mounts, namespaces, overrides, compatibility, workspaces.

Layer 4, build side: may import `extension`, `engine`, `output`, the authored layer,
formats and the foundation; never `add`, `scaffold`, `hatch` or the run side.
"""
