"""The capability contract table and the pure compatibility check.

Each capability an extension can require has a current contract version, the
versions this eve-build still accepts, and for each dropped version the reason it
was dropped and how to migrate. The table is data; `find_incompatibilities` is a
pure function over it that fails closed for names it does not know.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Dropped:
    reason: str
    migration: str


@dataclass(frozen=True)
class Contract:
    current: int
    supported: tuple[int, ...]
    dropped: Mapping[int, Dropped] = field(default_factory=dict)


_PREVIEW = Dropped(
    reason="version 0 was the eve-build development preview contract, whose generated "
    "modules and manifests predate format 1",
    migration="rebuild the extension with this eve-build (`eve extension build`) and "
    "publish a new release",
)

CONTRACTS: Mapping[str, Contract] = {
    name: Contract(current=1, supported=(1,), dropped={0: _PREVIEW})
    for name in (
        "extension",
        "config",
        "tool",
        "dynamicTool",
        "channel",
        "connection",
        "dynamicConnection",
        "skill",
        "schedule",
        "subagent",
        "instructions",
        "dynamicInstructions",
        "hook",
        "state",
    )
}
"""Every capability eve-build knows, by its manifest name."""

MANIFEST_KIND = "eve-extension"
MANIFEST_FILENAME = "_manifest.json"
SOURCE_PACKAGE_DIR = "extension"  # the subpackage of a built extension holding its source
DIST_INFO_MANIFEST = "eve-manifest.json"  # the manifest's copy in a wheel's dist-info
MANIFEST_FORMAT_VERSION = 1
SUPPORTED_FORMAT_VERSIONS = (1,)


@dataclass(frozen=True)
class Incompatibility:
    """One required capability this eve-build cannot honour."""

    capability: str
    version: object
    problem: str  # "unknown" | "dropped" | "newer" | "invalid"
    message: str
    hint: str


def derive_requirements(capabilities: set[str]) -> dict[str, int]:
    """The `requires` table for the capabilities an extension uses, sorted by name."""
    return {name: CONTRACTS[name].current for name in sorted(capabilities | {"extension"})}


def find_incompatibilities(
    requires: Mapping[str, object], contracts: Mapping[str, Contract] = CONTRACTS
) -> list[Incompatibility]:
    """Every requirement that this eve-build cannot satisfy, sorted by capability."""
    found: list[Incompatibility] = []
    for name in sorted(requires):
        version = requires[name]
        contract = contracts.get(name) if name in contracts else None
        if contract is None:
            found.append(
                Incompatibility(
                    name, version, "unknown",
                    f"requires capability `{name}`, which this eve-build does not know",
                    "upgrade eve-build, or install an extension release built for this one",
                )
            )
            continue
        if not isinstance(version, int) or isinstance(version, bool):
            found.append(
                Incompatibility(
                    name, version, "invalid",
                    f"requires `{name}` at version {version!r}, which is not a whole number",
                    "rebuild or reinstall the extension: its manifest is damaged",
                )
            )
            continue
        if version in contract.supported:
            continue
        supported = ", ".join(f"v{v}" for v in contract.supported)
        if version in contract.dropped:
            dropped = contract.dropped[version]
            found.append(
                Incompatibility(
                    name, version, "dropped",
                    f"requires {name} contract v{version}, which was dropped: {dropped.reason}",
                    f"migration: {dropped.migration}",
                )
            )
        elif version > max(contract.supported):
            found.append(
                Incompatibility(
                    name, version, "newer",
                    f"requires {name} contract v{version}, but this eve-build supports "
                    f"{name} contract versions: {supported}",
                    "upgrade eve-build, or install an extension release built for this one",
                )
            )
        else:
            found.append(
                Incompatibility(
                    name, version, "unknown",
                    f"requires {name} contract v{version}, which this eve-build never "
                    f"supported (supported: {supported})",
                    "install an extension release built for this eve-build",
                )
            )
    return found
