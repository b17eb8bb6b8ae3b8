"""The state mapping of a served agent, kept in the session store (DESIGN.md section 13).

`eve serve` hands `StoreStates` to the loaded agent instead of a dict, so every
`define_state` value (keys `<mount path>:<name>`) is a row of the store: a restart
finds it, and every process on the same store sees the same value. Reads go to the
store each time (another process may have written since), and return a fresh copy:
change a value with `state.update(fn)` or `state.set(value)`, not by mutating what
`get()` returned. `update_atomically` is what `State.update` uses when it exists: the
read, `change` and the write are one transaction with the row locked, so two requests
or two processes updating one state never lose an update. Which scope of the store an
agent's state is (whose state it is) is answered by eve_build.serve.scope alone.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, MutableMapping
from typing import Any

from eve_build.session.store import StateScope


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


class StoreEntries(MutableMapping[str, list[dict[str, Any]]]):
    """Local extensions' appended entries (`ctx.append_entry`) in the store, by extension.

    Stands in for `LocalSession.entries`: `setdefault(name, []).append(entry)` appends in
    one transaction, and `get(name)` reads what every process appended."""

    def __init__(self, scope: StateScope) -> None:
        self.scope = scope

    def __getitem__(self, name: str) -> list[dict[str, Any]]:
        found, items = self.scope.get(name)
        if not found:
            raise KeyError(name)
        return _Appending(self.scope, name, items)

    def __setitem__(self, name: str, items: list[dict[str, Any]]) -> None:
        self.scope.put(name, list(items))

    def __delitem__(self, name: str) -> None:
        self.scope.delete(name)

    def __iter__(self) -> Iterator[str]:
        return iter(self.scope.read_all())

    def __len__(self) -> int:
        return len(self.scope.read_all())

    def setdefault(self, name: str, default: list[dict[str, Any]] | None = None,
                   ) -> list[dict[str, Any]]:
        items = self.scope.update(name, lambda value: value, lambda: list(default or []))
        return _Appending(self.scope, name, items)


class _Appending(list[dict[str, Any]]):
    """A copy of one extension's entries whose `append` also appends in the store."""

    def __init__(self, scope: StateScope, name: str, items: list[dict[str, Any]]) -> None:
        super().__init__(items)
        self._scope, self._name = scope, name

    def append(self, entry: dict[str, Any]) -> None:
        self._scope.update(self._name, lambda items: [*items, entry], list)
        super().append(entry)
