from __future__ import annotations

import json
from pathlib import Path

import pytest

from eve_build.formats.manifest import (
    Manifest,
    ManifestError,
    parse_manifest,
    read_manifest,
    serialize_manifest,
)

GOOD = {
    "kind": "eve-extension", "formatVersion": 1, "builtWithEve": "0.1.0",
    "requires": {"extension": 1, "tool": 1}, "build": {"externalDependencies": []},
    "package": {"name": "x", "version": "1.0", "import": "x"}, "config": None,
    "contributions": {}, "files": {},
}


def test_round_trip_is_byte_stable() -> None:
    text = serialize_manifest(Manifest.model_validate(GOOD))
    assert serialize_manifest(parse_manifest(text)) == text
    assert text.endswith("}\n")
    assert list(json.loads(text)) == list(GOOD)


@pytest.mark.parametrize(
    ("change", "fragment"),
    [
        ({"kind": "npm"}, "not an eve extension"),
        ({"formatVersion": 2}, "formatVersion 2"),
        ({"formatVersion": 0}, "formatVersion 0"),
        ({"extra": True}, "malformed"),
        ({"package": {"name": "x"}}, "malformed"),
    ],
)
def test_rejects_bad_manifests(change: dict[str, object], fragment: str) -> None:
    with pytest.raises(ManifestError, match=fragment) as caught:
        parse_manifest(json.dumps({**GOOD, **change}))
    assert caught.value.hint


def test_newer_format_says_upgrade() -> None:
    with pytest.raises(ManifestError) as caught:
        parse_manifest(json.dumps({**GOOD, "formatVersion": 2}))
    assert "upgrade eve-build" in caught.value.hint


def test_missing_and_invalid_files(tmp_path: Path) -> None:
    with pytest.raises(ManifestError, match="no compatibility manifest"):
        read_manifest(tmp_path / "_manifest.json")
    (tmp_path / "_manifest.json").write_text("{not json")
    with pytest.raises(ManifestError, match="not valid JSON"):
        read_manifest(tmp_path / "_manifest.json")


@pytest.mark.parametrize("version", [True, 1.0, "1"])
def test_format_version_must_be_an_integer(version: object) -> None:
    with pytest.raises(ManifestError, match="formatVersion"):
        parse_manifest(json.dumps({**GOOD, "formatVersion": version}))
