"""The CPU cost of the issue-23 artifact checks on one extension, measured in-process.

Used by `python bench/engine_bench.py --checks`: each check that a cold
`eve extension build` now runs is timed alone on the generated tree (CPU time of this
process, `time.process_time`, best of 5 rounds), so the result does not depend on how
loaded the shared machine is; engine_bench then divides their sum by the cold build's
CPU time (user + system of the whole process tree).
"""

from __future__ import annotations

import hashlib
import os
import time
from collections.abc import Callable
from pathlib import Path

from pydantic import BaseModel

from eve_build.engine.stamp import derive_build_fingerprint
from eve_build.extension.build import locate_extension_project
from eve_build.extension.guards import find_unsafe_output
from eve_build.extension.shipping import derive_digests
from eve_build.formats.freshness import read_inputs
from eve_build.formats.manifest import read_manifest
from eve_build.hatch.shipped import find_unsafe_inclusions
from eve_build.load.fields import _has_json_form
from eve_build.project.pyproject import read_pyproject
from eve_build.project.values import find_invalid_requirements
from eve_build.source import tree
from eve_build.source.discover import discover_source


def cpu_seconds(work: Callable[[], object], loops: int) -> float:
    """CPU seconds of one call of `work`: best of 5 rounds of `loops` calls."""
    best = float("inf")
    for _ in range(5):
        start = time.process_time()
        for _ in range(loops):
            work()
        best = min(best, (time.process_time() - start) / loops)
    return best


def _old_fingerprint(source: Path, pyproject: Path) -> str:
    """The fingerprint walk before issue 23 (os.walk, read_bytes), for the difference."""
    hasher = hashlib.sha256(pyproject.read_bytes())
    found = []
    for directory, subdirs, names in os.walk(source):
        subdirs[:] = sorted(d for d in subdirs if d != "__pycache__")
        base = Path(directory).relative_to(source).as_posix()
        prefix = "" if base == "." else f"{base}/"
        found += (f"{prefix}{name}" for name in names if not name.endswith(".pyc"))
    for relative in sorted(found):
        data = (source / relative).read_bytes()
        hasher.update(f"\0{relative}\0{len(data)}\0".encode())
        hasher.update(data)
    return hasher.hexdigest()


def _fingerprint(root: Path, source: str) -> str | None:
    inputs = read_inputs(root, source)
    return derive_build_fingerprint(inputs, "e") if inputs is not None else None


def measure_checks(root: Path, tools: int) -> dict[str, float]:
    """CPU seconds each new check adds to one cold build of the (built) extension."""
    project = locate_extension_project(root)
    source, display = project.source_dir, f"{project.source}/"

    def discover() -> object:
        return discover_source(source, display=display, package_root=root)

    with_stat = cpu_seconds(discover, 5)
    real = tree._hard_link
    tree._hard_link = lambda _item: None  # type: ignore[assignment]
    try:
        without_stat = cpu_seconds(discover, 5)
    finally:
        tree._hard_link = real
    pyproject = root / "pyproject.toml"
    new_walk = cpu_seconds(lambda: _fingerprint(root, project.source), 5)
    old_walk = cpu_seconds(lambda: _old_fingerprint(source, pyproject), 5) + cpu_seconds(
        lambda: derive_build_fingerprint.__globals__["derive_toolchain_stamp"](), 5)
    data, _ = read_pyproject(root)
    assert data is not None
    package = project.output_dir / project.import_name
    files = {p.relative_to(project.output_dir).as_posix(): p.read_bytes()
             for p in sorted(package.rglob("*")) if p.is_file()}
    manifest = read_manifest(package / "extension" / "_manifest.json")

    class Input(BaseModel):
        query: str
        limit: int = 7

    default = Input.model_fields["limit"].default
    shipped = [(str(root / name), name) for name in ["pyproject.toml"]] + [
        (str(source / p), f"extension/{p}") for p in sorted(
            q.relative_to(source).as_posix() for q in source.rglob("*.py"))]
    return {
        "hard-link stat per source file (discovery)": max(0.0, with_stat - without_stat),
        "stamp walk: links, link counts, special files (new - old)": new_walk - old_walk,
        "output place guards": cpu_seconds(lambda: find_unsafe_output(project), 50),
        "PEP 508 check of the dependencies": cpu_seconds(
            lambda: find_invalid_requirements(data["project"], ""), 50),
        "content hashes of the output for the stamp": cpu_seconds(
            lambda: derive_digests(files, manifest.files, project.import_name), 5),
        f"JSON form of {tools + 1} defaults (workers)": (tools + 1) * cpu_seconds(
            lambda: _has_json_form(default), 2000),
        "pack only: shipped-file check of the sdist (not in a build)": cpu_seconds(
            lambda: find_unsafe_inclusions(root, shipped), 5),
    }
