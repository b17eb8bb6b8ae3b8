from __future__ import annotations

import pytest

from eve_build.naming import (
    derive_identifier,
    derive_import_name,
    derive_qualified,
    find_segment_problems,
    split_qualified,
    suggest_segment,
)


@pytest.mark.parametrize("segment", ["search", "admin-reset", "v2", "load_profile", "0day"])
def test_valid_segments(segment: str) -> None:
    assert find_segment_problems(segment) == []


@pytest.mark.parametrize(
    ("segment", "fragment"),
    [
        ("find__all", "reserved as the mount separator"),
        ("Search", "not a valid name"),
        ("web+hook", "not a valid name"),
        ("-lead", "not a valid name"),
        ("", "not a valid name"),
    ],
)
def test_invalid_segments(segment: str, fragment: str) -> None:
    assert any(fragment in p for p in find_segment_problems(segment))


def test_suggestion_is_itself_valid() -> None:
    for bad in ["Find__All", "web+hook", "__x__", "Ä"]:
        assert find_segment_problems(suggest_segment(bad)) == []


def test_names_and_identifiers() -> None:
    assert derive_import_name("Acme.CRM-tools") == "acme_crm_tools"
    assert derive_identifier("admin-reset") == "admin_reset"
    assert derive_qualified(None, "search") == "search"
    assert derive_qualified(derive_import_name("crm"), "search") == "crm__search"  # type: ignore[arg-type]
    assert split_qualified("crm__search") == ("crm", "search")
    assert split_qualified("search") is None
