"""Reading a project's pyproject.toml."""
