"""hatchling's plugin entry point (`[project.entry-points.hatch] eve = ...`)."""

from __future__ import annotations

from hatchling.plugin import hookimpl

from eve_build.hatch.plugin import EveBuildHook


@hookimpl
def hatch_register_build_hook() -> type[EveBuildHook]:
    return EveBuildHook
