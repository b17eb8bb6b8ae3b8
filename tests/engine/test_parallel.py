"""Splitting the imports across workers changes nothing in the output."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from eve_build.engine import author
from eve_build.engine.author import derive_worker_count, split_evenly
from eve_build.errors import DiagnosticsError
from eve_build.extension.build import build_extension
from tests.golden_files import read_files


def _build(root: Path, workers: int) -> dict[str, bytes]:
    build_extension(root, use_cache=False, workers=workers)
    return read_files(root / "build" / "eve")


def test_parallel_and_serial_builds_write_byte_identical_output(
    copy_fixture: Callable[[str], Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = copy_fixture("extensions/acme-crm")
    batches: list[int] = []
    real = author.run_jobs

    def counting(target: Any, payloads: list[Any], *, budget: float, **options: Any) -> Any:
        batches.append(len(payloads))
        return real(target, payloads, budget=budget, **options)

    monkeypatch.setattr(author, "run_jobs", counting)

    serial = _build(root, workers=1)
    parallel = _build(root, workers=3)

    assert batches == [1, 3]
    assert parallel == serial
    assert b'"states"' in serial["acme_crm/extension/_manifest.json"]


def test_parallel_and_serial_builds_report_the_same_diagnostics(
    copy_fixture: Callable[[str], Path]
) -> None:
    root = copy_fixture("extensions/acme-crm")
    tools = root / "extension" / "tools"
    (tools / "nameless.py").write_text("x = 1\n")
    (tools / "broken.py").write_text("tool = define_tool(\n")
    reports = []
    for workers in (1, 4):
        with pytest.raises(DiagnosticsError) as caught:
            build_extension(root, use_cache=False, workers=workers)
        reports.append([d.render() for d in caught.value.diagnostics])

    assert reports[0] == reports[1]
    assert any("load/definition-missing" in line for line in reports[0])
    assert any("load/syntax-error" in line for line in reports[0])


def test_small_extensions_use_one_worker_and_large_ones_every_core() -> None:
    assert derive_worker_count(0, cores=8) == 0
    assert derive_worker_count(10, cores=8) == 1
    assert derive_worker_count(23, cores=8) == 1
    assert derive_worker_count(24, cores=8) == 2
    assert derive_worker_count(1000, cores=2) == 2
    assert derive_worker_count(1000, cores=64) == 64


def test_batches_keep_the_order_and_lose_nothing() -> None:
    items = list(range(10))

    chunks = split_evenly(items, 3)

    assert chunks == [[0, 1, 2, 3], [4, 5, 6], [7, 8, 9]]


def test_a_schema_that_is_not_json_is_a_diagnostic_not_a_crash(
    copy_fixture: Callable[[str], Path]
) -> None:
    root = copy_fixture("extensions/gizmo")
    (root / "extension" / "tools" / "odd.py").write_text(
        "from pydantic import BaseModel, Field\n"
        "from eve_build.sdk import define_tool\n\n\n"
        "class Input(BaseModel):\n"
        "    size: float = Field(default=float('nan'))\n\n\n"
        "tool = define_tool(description='Odd.', input=Input, execute=lambda i, c: 1)\n")

    with pytest.raises(DiagnosticsError) as caught:
        build_extension(root, use_cache=False)

    [problem] = caught.value.diagnostics
    assert (problem.code, problem.file) == ("tool/schema-failed", "extension/tools/odd.py")
    assert re.search("is not JSON|cannot be written as JSON", problem.message)
