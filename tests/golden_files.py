"""Compare a whole tree of files against a golden folder (or rewrite it on request)."""

from __future__ import annotations

import shutil
from pathlib import Path


def read_files(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and "__pycache__" not in p.parts
    }


def assert_matches_golden(actual_root: Path, golden_root: Path, *, update: bool) -> None:
    """Every file equal, none missing, none extra. `update` rewrites the golden folder."""
    actual = read_files(actual_root)
    if update:
        if golden_root.exists():
            shutil.rmtree(golden_root)
        for relative, data in actual.items():
            target = golden_root / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
        return
    assert golden_root.is_dir(), f"no golden files at {golden_root}: run with --update-golden"
    expected = read_files(golden_root)
    assert sorted(actual) == sorted(expected), "the set of generated files changed"
    for relative, data in expected.items():
        assert actual[relative].decode() == data.decode(), f"{relative} differs from golden"
