"""The scaffold's pyproject.toml, written from data with tomli-w.

Writing TOML from a dict (not a template) escapes names, descriptions and author
names correctly whatever they contain. The metadata is what PyPI and pyroma expect:
an SPDX license, authors from `git config` when set, project URLs to fill in, a
compatible-release range on eve-build for the runtime, and `test` / `dev` extras. The
`test` extra, which `init` installs, has the `build` frontend too: the scaffold's
output folder is `build/`, which `python -m build` would otherwise try to run.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import tomli_w
from packaging.version import Version

LICENSE = "MIT"
FRONTEND = "build>=1.2"
"""The `build` frontend (`python -m build`), in the extension scaffold's `test` extra."""
DUPLICATE_FILES_CHECK = "W002"
"""check-wheel-contents' duplicate-files check, which an eve wheel fails by design."""
DESCRIPTION = "An eve extension that agents mount to get the `greet` tool."


@dataclass(frozen=True)
class Author:
    name: str
    email: str = ""

    def to_toml(self) -> dict[str, str]:
        return {"name": self.name, "email": self.email} if self.email else {"name": self.name}


def derive_runtime_requirement(eve_build_version: str) -> str:
    """`eve-build>=0.1,<1` for 0.1.0: what a consumer's eve-build may be to run the package."""
    release = Version(eve_build_version).release
    major, minor = release[0], (release[1] if len(release) > 1 else 0)
    return f"eve-build>={major}.{minor},<{major + 1}"


def derive_pyproject(name: str, eve_build_version: str, authors: Sequence[Author] = ()) -> str:
    """The whole pyproject.toml of a new extension package."""
    project: dict[str, Any] = {
        "name": name,
        "version": "0.1.0",
        "description": DESCRIPTION,
        "readme": "README.md",
        "license": LICENSE,
        "license-files": ["LICENSE"],
        "requires-python": ">=3.11",
    }
    if authors:
        project["authors"] = [a.to_toml() for a in authors]
    project |= {
        "keywords": ["eve", "eve-extension", "agents"],
        "classifiers": [
            "Programming Language :: Python :: 3",
            "Framework :: Pydantic :: 2",
            "Typing :: Typed",
        ],
        "dependencies": [derive_runtime_requirement(eve_build_version), "pydantic>=2"],
        "optional-dependencies": {
            # the `build` frontend: `build/` is the output folder, and `python -m build`
            # without the frontend installed runs that folder (`No module named
            # build.__main__`); `init` installs this extra, so it just works
            "test": ["pytest>=8", FRONTEND],
            "dev": [f"{name}[test]", FRONTEND, "twine>=5"],
        },
        "urls": {
            "Homepage": f"https://github.com/OWNER/{name}",
            "Source": f"https://github.com/OWNER/{name}",
            "Issues": f"https://github.com/OWNER/{name}/issues",
        },
    }
    data = {
        "build-system": {
            "requires": ["hatchling", f"eve-build=={eve_build_version}"],
            "build-backend": "hatchling.build",
        },
        "project": project,
        "tool": {
            "eve": {"extension": {"source": "extension", "output": "build/eve"}},
            # W002 (duplicate files): the manifest is in the package and, identical, in
            # the dist-info, on purpose (docs/publishing.md, "Checking the wheel")
            "check-wheel-contents": {"ignore": [DUPLICATE_FILES_CHECK]},
            "hatch": {
                "build": {
                    "hooks": {"eve": {"require-runtime-dependencies": True}},
                    "targets": {"wheel": {"bypass-selection": True}},
                },
            },
        },
    }
    return tomli_w.dumps(data, multiline_strings=False)


AGENT_EXTRA = "agent"
"""eve-build's extra with the model engine, which `eve run` and `eve chat` need."""


def derive_agent_pyproject(name: str, eve_build_version: str,
                           authors: Sequence[Author] = ()) -> str:
    """The whole pyproject.toml of a new agent project (`eve init`).

    The project builds with hatchling to an empty wheel, so `pip install -e ".[test]"`
    installs its dependencies (eve-build with its `agent` extra, and every extension
    `eve add` lists); nothing of it is meant for PyPI.
    """
    runtime = derive_runtime_requirement(eve_build_version).replace(
        "eve-build", f"eve-build[{AGENT_EXTRA}]", 1)
    project: dict[str, Any] = {
        "name": name,
        "version": "0.1.0",
        "description": "An eve agent.",
        "requires-python": ">=3.11",
    }
    if authors:
        project["authors"] = [a.to_toml() for a in authors]
    project |= {
        "dependencies": [runtime],
        "optional-dependencies": {"test": ["pytest>=8"]},
    }
    data = {
        "build-system": {"requires": ["hatchling"], "build-backend": "hatchling.build"},
        "project": project,
        "tool": {"hatch": {"build": {"targets": {"wheel": {"bypass-selection": True}}}}},
    }
    return tomli_w.dumps(data, multiline_strings=False)
