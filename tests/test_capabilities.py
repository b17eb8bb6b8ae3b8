from __future__ import annotations

import pytest

from eve_build.capabilities import CONTRACTS, derive_requirements, find_incompatibilities


def test_requirements_always_include_extension_and_are_sorted() -> None:
    assert list(derive_requirements({"tool", "config"})) == ["config", "extension", "tool"]


@pytest.mark.parametrize("name", sorted(CONTRACTS))
def test_every_supported_version_is_accepted(name: str) -> None:
    for version in CONTRACTS[name].supported:
        assert find_incompatibilities({name: version}) == []


@pytest.mark.parametrize("name", sorted(CONTRACTS))
def test_the_next_version_asks_for_an_upgrade(name: str) -> None:
    [problem] = find_incompatibilities({name: max(CONTRACTS[name].supported) + 1})
    assert problem.problem == "newer"
    assert "upgrade eve-build" in problem.hint


def test_dropped_versions_give_reason_and_migration() -> None:
    [problem] = find_incompatibilities({"tool": 0})
    assert problem.problem == "dropped"
    assert "development preview" in problem.message
    assert problem.hint.startswith("migration: rebuild the extension")


@pytest.mark.parametrize("name", ["toString", "__proto__", "tools", ""])
def test_unknown_capabilities_fail_closed(name: str) -> None:
    [problem] = find_incompatibilities({name: 1})
    assert problem.problem == "unknown"


@pytest.mark.parametrize("version", ["1", 1.0, True, None])
def test_non_integer_versions_are_rejected(version: object) -> None:
    [problem] = find_incompatibilities({"tool": version})
    assert problem.problem == "invalid"


def test_results_are_sorted_by_capability() -> None:
    found = find_incompatibilities({"tool": 9, "channel": 9, "hook": 9})
    assert [p.capability for p in found] == ["channel", "hook", "tool"]
