"""The docs cannot drift from the code: generated pages, tables and links are checked."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from types import ModuleType

import pytest

from eve_build.capabilities import CONTRACTS
from eve_build.slots import SLOTS
from tests.conftest import REPO

DOCS = REPO / "docs"
GENERATOR = DOCS / "reference" / "generate_diagnostics.py"

# The pages whose links are checked: the ones written alongside this test, and the
# README. Pages other engineers own are checked by their own tests, not here.
CHECKED_PAGES = (
    "docs/index.md",
    "docs/extensions.md",
    "docs/manifest.md",
    "docs/decisions.md",
    "docs/reference/diagnostics.md",
    "README.md",
)

LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
FENCE = re.compile(r"^(```|~~~).*?^\1", re.MULTILINE | re.DOTALL)
CODE_SPAN = re.compile(r"`[^`\n]*`")
HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$", re.MULTILINE)


def _load_generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("generate_diagnostics", GENERATOR)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_diagnostics_reference_is_generated_from_the_codes_table() -> None:
    expected = _load_generator().render_diagnostics()
    committed = (DOCS / "reference" / "diagnostics.md").read_text(encoding="utf-8")
    assert committed == expected, (
        "docs/reference/diagnostics.md is out of date with eve_build/codes.py: "
        "run `python docs/reference/generate_diagnostics.py` and commit the result"
    )


def _prose(text: str) -> str:
    """The markdown without fenced code blocks and inline code, where links are not links."""
    return CODE_SPAN.sub("", FENCE.sub("", text))


def _anchor(heading: str) -> str:
    """The GitHub anchor of a heading: lower case, punctuation dropped, spaces to `-`."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading).lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def _anchors(page: Path) -> set[str]:
    text = FENCE.sub("", page.read_text(encoding="utf-8"))
    return {_anchor(heading) for heading in HEADING.findall(text)}


def _links(page: Path) -> list[str]:
    return [
        target for target in LINK.findall(_prose(page.read_text(encoding="utf-8")))
        if not re.match(r"^[a-z][a-z0-9+.-]*:", target)  # http:, https:, mailto:
    ]


def _pages() -> list[Path]:
    pages = [REPO / name for name in CHECKED_PAGES]
    return [page for page in pages if page.name != "README.md" or page.is_file()]


@pytest.mark.parametrize("page", _pages(), ids=lambda p: p.relative_to(REPO).as_posix())
def test_relative_links_point_to_existing_files(page: Path) -> None:
    assert page.is_file(), f"{page.relative_to(REPO)} is listed in CHECKED_PAGES but missing"
    broken: list[str] = []
    for target in _links(page):
        path_part, _, fragment = target.partition("#")
        resolved = (page.parent / path_part).resolve() if path_part else page
        if not resolved.exists():
            broken.append(f"{target}: no such file")
        elif fragment and resolved.suffix == ".md" and fragment not in _anchors(resolved):
            broken.append(f"{target}: no heading with the anchor `#{fragment}`")
    assert not broken, f"broken links in {page.relative_to(REPO)}:\n" + "\n".join(broken)


def _table_rows(text: str) -> list[list[str]]:
    return [
        [cell.strip() for cell in line.strip().strip("|").split("|")]
        for line in text.splitlines() if line.startswith("| `")
    ]


def test_the_capability_table_matches_the_contracts() -> None:
    text = (DOCS / "manifest.md").read_text(encoding="utf-8")
    documented = {
        row[0].strip("`"): (row[2], row[3], row[4])
        for row in _table_rows(text) if len(row) == 5 and row[0].strip("`") in CONTRACTS
    }
    expected = {
        name: (
            str(contract.current),
            ", ".join(str(v) for v in contract.supported),
            ", ".join(str(v) for v in sorted(contract.dropped)) or "none",
        )
        for name, contract in CONTRACTS.items()
    }
    assert documented == expected, "update the capability table in docs/manifest.md"
    flat = " ".join(text.split())
    for contract in CONTRACTS.values():
        for dropped in contract.dropped.values():
            assert " ".join(dropped.reason.split()) in flat
            assert " ".join(dropped.migration.split()) in flat


def test_the_slot_table_matches_the_slots() -> None:
    text = (DOCS / "extensions.md").read_text(encoding="utf-8")
    rows = {row[0].strip("`"): row for row in _table_rows(text) if len(row) == 6}
    for slot in SLOTS:
        row = rows.get(f"{slot.directory}/")
        assert row is not None, f"docs/extensions.md has no slot row for `{slot.directory}/`"
        _, definition, layout, joiner, capability, mounted = row
        if slot.layout == "modules":
            assert definition == f"`{slot.attribute}`", slot.directory
            assert layout == f"modules, {'nested' if slot.nested else 'flat'}", slot.directory
        else:
            assert layout.startswith(slot.layout), slot.directory
        assert joiner == (f"`{slot.joiner}`" if slot.joiner else "none"), slot.directory
        assert capability.startswith(f"`{slot.capability}`"), slot.directory
        if slot.dynamic_capability:
            assert f"`{slot.dynamic_capability}`" in capability, slot.directory
        assert ("<ns>__" in mounted) == slot.prefixed, slot.directory
