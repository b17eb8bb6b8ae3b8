"""A wheel of eve-build itself, built in-process from its source checkout.

`eve extension init` installs the running eve-build into the new package's venv. From a
checkout, handing pip the folder makes it build a wheel in an isolated environment
(fetching hatchling first), which took most of `init`'s time; hatchling is a dependency
of eve-build anyway, so the wheel is built here, in a fraction of a second, and pip
(or uv) only installs it.
"""

from __future__ import annotations

from pathlib import Path

from hatchling.builders.wheel import WheelBuilder


def build_checkout_wheel(checkout: Path, directory: Path) -> Path:
    """Build `checkout` (eve-build's source tree) into a wheel in `directory`."""
    builder = WheelBuilder(str(checkout))
    [wheel] = list(builder.build(directory=str(directory), versions=["standard"]))
    return Path(wheel)
