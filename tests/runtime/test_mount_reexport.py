"""A mount file may re-export the factory: `from gizmo import gizmo as mount`."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from eve_build.runtime import Agent


def test_a_reexported_factory_mounts_with_its_defaults(
    app: Callable[..., Path], load: Callable[..., Agent]
) -> None:
    root = app(["gizmo"], {"extensions/gz.py": "from gizmo import gizmo as mount\n"})
    agent = load(root)

    assert agent.tools() == ["gz__spin"]
    assert agent.call_tool("gz__spin", {"times": 2}).value == {"spins": 2}
    assert [m.namespace for m in agent.compiled.root.mounts] == ["gz"]
