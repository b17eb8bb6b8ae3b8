"""The state mapping of a served agent, kept in the session store (DESIGN.md section 13).

`eve serve` hands `StoreStates` to the loaded agent instead of a dict, so every
`define_state` value (keys `<mount path>:<name>`) is a row of the store: a restart
finds it, and every process on the same store sees the same value. Reads go to the
store each time (another process may have written since), and return a fresh copy:
change a value with `state.update(fn)` or `state.set(value)`, not by mutating what
`get()` returned. `update_atomically` is what `State.update` uses when it exists: the
read, `change` and the write are one transaction with the row locked, so two requests
or two processes updating one state never lose an update.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Mapping, MutableMapping
from typing import Any

from eve_build.session.store import StateScope

SCOPE_ENV = "EVE_STATE_SCOPE"
"""Names the served agent's state in a store that several agents share."""


def derive_scope(agent_dir: str, environ: Mapping[str, str] | None = None) -> str:
    """`serve/<agent folder>` (the same on every replica), or EVE_STATE_SCOPE."""
    env = os.environ if environ is None else environ
    given = env.get(SCOPE_ENV, "").strip()
    return given or f"serve/{agent_dir}"


class StoreStates(MutableMapping[str, Any]):
    """A MutableMapping over one StateScope; each operation is one transaction."""

    def __init__(self, scope: StateScope) -> None:
        self.scope = scope

    def __getitem__(self, key: str) -> Any:
        found, value = self.scope.get(key)
        if not found:
            raise KeyError(key)
        return value

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and self.scope.get(key)[0]

    def __setitem__(self, key: str, value: Any) -> None:
        self.scope.put(key, value)

    def __delitem__(self, key: str) -> None:
        if key not in self:
            raise KeyError(key)
        self.scope.delete(key)

    def __iter__(self) -> Iterator[str]:
        return iter(self.scope.read_all())

    def __len__(self) -> int:
        return len(self.scope.read_all())

    def setdefault(self, key: str, default: Any = None) -> Any:
        """The value, creating it as `default` when missing, in one transaction."""
        return self.scope.update(key, lambda value: value, lambda: default)

    def update_atomically(self, key: str, change: Callable[[Any], Any],
                          initial: Callable[[], Any]) -> Any:
        return self.scope.update(key, change, initial)
