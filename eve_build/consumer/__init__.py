"""The consuming agent: mounts, namespaces, overrides, compatibility, workspaces."""
