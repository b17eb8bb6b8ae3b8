"""The trace of one call: what each hook handler did, in the order it ran.

Each entry is a JSON-able dict:

    {"event": "action.call", "mount": "crm", "hook": "audit", "outcome": "rewrite",
     "seconds": 0.0004, "before": {...}, "after": {...}}

`mount` is the namespace, or None for the agent's own hooks. `outcome` is one of
the codes below; `reason` says why a call was blocked, a handler timed out or
raised; `warning` is there when a handler took more than half its budget.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from eve_build.errors import describe_exception

PROCEED = "proceed"
"""The handler returned None: go on unchanged."""
REWRITE = "rewrite"
"""An `action.call` handler replaced the arguments (`before`, `after`)."""
BLOCKED = "blocked"
"""An `action.call` handler returned block(reason)."""
TIMEOUT = "timeout"
"""The handler did not return within its budget."""
ERROR = "error"
"""The handler raised, or returned something its event does not take."""
TRANSFORM = "transform"
"""An `action.result` or `message.received` handler replaced the value."""
HANDLED = "handled"
"""A `message.received` handler answered the message: the chain stops."""

logger = logging.getLogger("eve_build.runtime")
logger.addHandler(logging.NullHandler())  # a library logs; the application shows it


@dataclass(frozen=True)
class HookSource:
    """Who a handler belongs to: a mount's namespace (None: the agent) and the hook's name."""

    mount: str | None
    hook: str
    origin: str | None = None  # set for a local extension (`hook` is then its name)

    def describe(self) -> str:
        if self.origin is not None:
            return f"local extension `{self.hook}`"
        owner = f"mount `{self.mount}`" if self.mount is not None else "the agent"
        return f"hook `{self.hook}` of {owner}"


def derive_entry(
    event: str, source: HookSource, outcome: str, seconds: float, budget: float,
    **details: Any,
) -> dict[str, Any]:
    """One trace entry; logs a warning when the handler used more than half its budget."""
    entry: dict[str, Any] = {
        "event": event, "mount": source.mount, "hook": source.hook, "outcome": outcome,
        "seconds": round(seconds, 6),
    }
    if source.origin is not None:
        entry["origin"] = source.origin
    entry.update({key: value for key, value in details.items() if value is not None})
    if outcome != TIMEOUT and seconds > budget / 2:
        warning = (f"{source.describe()} took {seconds:.2f} s on `{event}`, more than half "
                   f"of its {budget:g} s budget")
        entry["warning"] = warning
        logger.warning("%s", warning)
    return entry


def derive_timeout_reason(source: HookSource, budget: float) -> str:
    return f"{source.describe()} did not return within its {budget:g} s budget"


def derive_error_reason(source: HookSource, error: BaseException) -> str:
    return f"{source.describe()} raised {describe_exception(error)}"

