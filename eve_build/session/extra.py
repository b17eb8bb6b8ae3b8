"""The `agent` extra: pydantic-ai is installed only by those who run sessions.

Nothing in eve_build imports pydantic_ai at module level outside eve_build.session's
engine modules, and those are imported only by the commands that run a model
(`eve --help` stays fast and works without the extra).
"""

from __future__ import annotations

import importlib.util

from eve_build.install_hint import derive_extra_hint
from eve_build.session.errors import session_error

ENGINE_MODULE = "pydantic_ai"


def require_agent_extra() -> None:
    """Raise `session/extra-missing` when pydantic-ai is not installed."""
    try:
        found = importlib.util.find_spec(ENGINE_MODULE) is not None
    except (ImportError, ValueError):  # set to None in sys.modules, or broken
        found = False
    if not found:
        raise session_error("session/extra-missing",
                            "running the agent with a model needs pydantic-ai "
                            "(`pydantic-ai-slim`), which this environment lacks",
                            derive_extra_hint("agent"),
                            title="cannot start a session")
